import { describe, expect, it } from 'vitest';
import type { ConnectionState } from '../lib/realtime';
import { describeState, REALTIME_OFFLINE_TEXT } from './realtime-status';

describe('the realtime indicator speaks SPEC.md’s connection states', () => {
  it('shows the Russian error text when the connection fails', () => {
    expect(describeState('failed')).toMatchObject({ tone: 'error', text: expect.stringMatching(/^Не удалось подключиться к серверу обновлений/) });
  });

  it('is green only when connected, amber while (re)connecting, red when suspended, silent when closed', () => {
    const states: ConnectionState[] = ['initialized', 'connecting', 'connected', 'disconnected', 'suspended', 'closing', 'closed', 'failed'];
    expect(Object.fromEntries(states.map((s) => [s, describeState(s)?.tone ?? null]))).toEqual({
      initialized: 'wait',
      connecting: 'wait',
      connected: 'ok',
      disconnected: 'wait',
      suspended: 'error',
      closing: null,
      closed: null,
      failed: 'error',
    });
  });

  it('offline, the connection is down whatever the socket still thinks; a failure for good keeps its own text', () => {
    for (const s of ['initialized', 'connecting', 'connected', 'disconnected', 'suspended'] as const) {
      expect(describeState(s, true)).toEqual({ tone: 'error', text: REALTIME_OFFLINE_TEXT, short: 'нет связи' });
    }
    expect(describeState('failed', true)?.text).toMatch(/^Не удалось подключиться/);
    expect(describeState('closed', true)).toBeNull();
  });
});
