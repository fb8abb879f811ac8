// @vitest-environment happy-dom
import type { RealtimeMessage, User } from '@adena/contract/lite';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useUi } from '../../lib/ui-store';
import { startSession, userQueryOptions } from '../../lib/session';
import { useRealtimeState } from '../../lib/realtime-state';
import { RealtimeProvider } from './realtime-provider';

// A stand-in for lib/realtime's client: records what the provider does with it.
const made: FakeClient[] = [];
class FakeClient {
  state = 'initialized';
  errorReason: string | null = null;
  closed = false;
  listeners = new Set<(s: string) => void>();
  constructor(
    readonly userId: number,
    readonly handlers: { onMessage(msg: RealtimeMessage): void; onResync(): void },
  ) {
    made.push(this);
  }
  onState(cb: (s: string) => void) {
    this.listeners.add(cb);
    return () => this.listeners.delete(cb);
  }
  set(state: string) {
    this.state = state;
    for (const cb of this.listeners) cb(state);
  }
  connect() {
    this.set('connecting');
  }
  retryNow() {}
  close() {
    this.closed = true;
    this.set('closed');
  }
}
vi.mock('../../lib/realtime', () => ({ RealtimeClient: FakeClient }));
// The dialog itself is not under test here (and would pull MUI into happy-dom).
vi.mock('../../features/codes/components/error-code-dialog', () => ({ ErrorCodeDialog: () => null }));
(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const user = (id: number): User => ({
  id,
  name: 'Игрок',
  email: null,
  phone: null,
  admin: false,
  vip: false,
  vip_until: null,
  telegram_linked: false,
  two_factor: false,
  has_password: true,
  created_at: '2026-11-01T00:00:00Z',
});

let seen: string | null = null;
function StateProbe() {
  seen = useRealtimeState()?.state ?? null;
  return null;
}

describe('the realtime provider follows the session', () => {
  let qc: QueryClient;
  let root: Root;
  // TanStack Query tells its observers on a zero timeout.
  const settle = () => act(() => new Promise((r) => setTimeout(r, 10)));

  beforeEach(async () => {
    made.length = 0;
    seen = null;
    localStorage.setItem('access_token', 'token');
    qc = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Number.POSITIVE_INFINITY } } });
    qc.setQueryData(userQueryOptions().queryKey, user(1));
    root = createRoot(document.createElement('div'));
    await act(async () => {
      root.render(createElement(QueryClientProvider, { client: qc }, createElement(RealtimeProvider, null, createElement(StateProbe))));
    });
    // The client and the event rules are imported on demand: the client appears when both have loaded.
    await act(() => vi.waitFor(() => expect(made).toHaveLength(1), { timeout: 10_000 }));
    await settle();
  });
  afterEach(() => act(() => root.unmount()));

  it('connects a client for the signed-in user and exposes its state', async () => {
    expect(made[0]?.userId).toBe(1);
    expect(seen).toBe('connecting');
    await act(async () => made[0]?.set('connected'));
    expect(seen).toBe('connected');
  });

  it('closes the client on sign-out', async () => {
    await act(async () => qc.setQueryData(userQueryOptions().queryKey, null));
    await settle();
    expect(made[0]?.closed).toBe(true);
    expect(seen).toBeNull();
  });

  it('a session_ended event signs out, which closes the client', async () => {
    await act(async () => made[0]?.handlers.onMessage({ channel: 'private:user.1', name: 'session_ended', data: { reason: 'blocked' } }));
    await settle();
    expect(localStorage.getItem('access_token')).toBeNull();
    expect(qc.getQueryData(userQueryOptions().queryKey)).toBeNull();
    expect(made[0]?.closed).toBe(true);
  });

  it('an error_code event opens the error-code dialog', async () => {
    await act(async () =>
      made[0]?.handlers.onMessage({ channel: 'private:user.1', name: 'error_code', data: { gamesserver_id: 1, code_id: 2, your_error_code_id: 3 } }),
    );
    expect(useUi.getState().dialog).toEqual({ name: 'error_code', incidentId: 3 });
  });

  it('a new session of the same user (a sign-in again in the mini app) gets a client of its own: ending the old session does not sign this tab out', async () => {
    // Review finding: the socket stayed in the old session's room; «Завершить другие сеансы» then signed this tab out.
    await act(async () => startSession(qc, { access_token: 'token-2', user: user(1) }));
    await act(() => vi.waitFor(() => expect(made).toHaveLength(2), { timeout: 10_000 }));
    expect(made[0]?.closed).toBe(true);
    expect(made[1]?.closed).toBe(false);
    expect(made[1]?.userId).toBe(1);
  });

  it('another tab signing in with another token gives this tab a client of the new session, not the last one\u2019s socket', async () => {
    // Review finding: only this tab's own sign-ins were heard; the old socket kept feeding the last account's events in.
    localStorage.setItem('access_token', 'token-other-tab');
    await act(async () => window.dispatchEvent(new StorageEvent('storage', { key: 'access_token', oldValue: 'token', newValue: 'token-other-tab' })));
    await act(() => vi.waitFor(() => expect(made).toHaveLength(2), { timeout: 10_000 }));
    expect(made[0]?.closed).toBe(true);
    expect(made[1]?.closed).toBe(false);
  });

  it('an incident dialog open at sign-out does not open for the next user of the tab', async () => {
    await act(async () =>
      made[0]?.handlers.onMessage({ channel: 'private:user.1', name: 'error_code', data: { gamesserver_id: 1, code_id: 2, your_error_code_id: 3 } }),
    );
    expect(useUi.getState().dialog).toEqual({ name: 'error_code', incidentId: 3 });
    await act(async () => made[0]?.handlers.onMessage({ channel: 'private:user.1', name: 'session_ended', data: { reason: 'revoked' } }));
    await settle();
    expect(useUi.getState().dialog).toEqual({ name: 'none' });
  });
});
