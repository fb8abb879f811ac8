// @vitest-environment happy-dom
import { act, createElement } from 'react';
import type { Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useUi } from '../../../lib/ui-store';
import { answer, cleanup, mountWithQuery, settle } from '../../../test/dom';
import { ErrorCodeDialog } from './error-code-dialog';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const incident = {
  id: 4,
  code_id: 12,
  sert: 'ADN-AAAA-BBBB',
  nominal: 1_000_000,
  gamesserver_id: 1,
  gamesserver: 'Scryde x50',
  code_status: 'activated',
  created_at: '2026-11-27T09:00:00Z',
  acknowledged_at: null,
};
const button = (text: string) => [...document.querySelectorAll('button')].find((b) => b.textContent === text)!;

describe('the repeated-activation notice', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
    useUi.setState({ dialog: { name: 'none' }, queued: null });
  });

  it('«Понятно» answered after «Позже» leaves the dialog the player opened since alone', async () => {
    let acknowledge!: (r: Response) => void;
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        if (String(url).endsWith('/ack')) return new Promise<Response>((r) => (acknowledge = r));
        if (String(url).startsWith('/api/code_incidents')) return answer(200, [incident]);
        return answer(200, { error_codes_count: 1 });
      }),
    );
    ({ root } = await mountWithQuery(() => createElement(ErrorCodeDialog)));
    await act(async () => useUi.getState().openDialog({ name: 'error_code', incidentId: 4 }));
    await settle();
    await act(async () => button('Понятно').click());
    await act(async () => button('Позже').click());
    await act(async () => useUi.getState().openDialog({ name: 'vip' }));
    await act(async () => acknowledge(answer(200, { success: true })));
    await settle();
    expect(useUi.getState().dialog.name).toBe('vip');
  });

  it('a failed «Понятно» says the server’s reason, and is not shown on the next incident’s dialog', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        if (String(url).endsWith('/ack')) return answer(429, { message: 'Слишком много запросов. Попробуйте через минуту' });
        if (String(url).startsWith('/api/code_incidents')) return answer(200, [incident, { ...incident, id: 5, sert: 'ADN-CCCC-DDDD' }]);
        return answer(200, { error_codes_count: 2 });
      }),
    );
    ({ root } = await mountWithQuery(() => createElement(ErrorCodeDialog)));
    await act(async () => useUi.getState().openDialog({ name: 'error_code', incidentId: 4 }));
    await settle();
    await act(async () => button('Понятно').click());
    await settle();
    const alertText = () => document.querySelector('[data-testid="error-code-dialog"] [role="alert"]')?.textContent ?? null;
    expect(alertText()).toBe('Слишком много запросов. Попробуйте через минуту');

    // The next incident comes (offered when this one closes): its dialog starts without the last one's failure.
    await act(async () => useUi.getState().openDialog({ name: 'error_code', incidentId: 5 }));
    await settle();
    expect(document.querySelector('[data-testid="error-code-dialog"]')?.textContent).toContain('ADN-CCCC-DDDD');
    expect(alertText()).toBeNull();
  });
});
