// @vitest-environment happy-dom
import { onlineManager } from '@tanstack/react-query';
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it } from 'vitest';
import type { ConnectionState, RealtimeClient } from '../lib/realtime';
import { RealtimeContext } from '../lib/realtime-state';
import { RealtimeIndicator } from './realtime-indicator';
import { REALTIME_OFFLINE_TEXT } from './realtime-status';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

/** A socket that believes it is connected: it notices a lost network only when its heartbeat times out. */
function fakeClient(state: ConnectionState) {
  const listeners = new Set<(s: ConnectionState) => void>();
  return {
    state,
    errorReason: null,
    onState(cb: (s: ConnectionState) => void) {
      listeners.add(cb);
      return () => listeners.delete(cb);
    },
  } as unknown as RealtimeClient;
}

const indicator = () => document.querySelector('[data-testid="realtime-indicator"]');

describe('the live-connection indicator', () => {
  let root: Root | null = null;
  afterEach(async () => {
    if (root) await act(async () => root!.unmount());
    root = null;
    await act(async () => void window.dispatchEvent(new Event('online')));
    document.body.innerHTML = '';
  });

  async function mount(client: RealtimeClient) {
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(RealtimeContext.Provider, { value: client }, createElement(RealtimeIndicator))));
  }

  it('is not green while the browser is offline, though the socket has not noticed yet, and is green again once back online', async () => {
    await mount(fakeClient('connected'));
    expect(indicator()?.getAttribute('data-state')).toBe('connected');

    await act(async () => void window.dispatchEvent(new Event('offline')));
    expect(onlineManager.isOnline()).toBe(false);
    expect(indicator()?.getAttribute('data-state')).toBe('disconnected');
    expect(indicator()?.getAttribute('aria-label')).toBe(REALTIME_OFFLINE_TEXT);

    await act(async () => void window.dispatchEvent(new Event('online')));
    expect(indicator()?.getAttribute('data-state')).toBe('connected');
    expect(indicator()?.getAttribute('aria-label')).toBe('Обновления в реальном времени подключены');
  });

  it('offline, a connection that failed for good still says why', async () => {
    await mount(fakeClient('failed'));
    await act(async () => void window.dispatchEvent(new Event('offline')));
    expect(indicator()?.getAttribute('data-state')).toBe('failed');
    expect(indicator()?.getAttribute('aria-label')).toMatch(/^Не удалось подключиться к серверу обновлений/);
  });
});
