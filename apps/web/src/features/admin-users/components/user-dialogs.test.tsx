// @vitest-environment happy-dom
import type { AdminUser } from '@adena/contract';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { answer, cleanup, settle } from '../../../test/dom';
import { VipDialog } from './user-dialogs';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

// An operator in Moscow (UTC+3): 22:30 UTC on 10 March is already 11 March there.
const previousTz = vi.hoisted(() => {
  const tz = process.env.TZ;
  process.env.TZ = 'Europe/Moscow';
  return tz;
});

const user: AdminUser = {
  id: 42,
  name: 'Покупатель',
  email: null,
  phone: null,
  admin: false,
  vip: true,
  vip_until: '2025-03-10T22:30:00Z',
  telegram_linked: false,
  two_factor: false,
  created_at: '2025-01-01T00:00:00Z',
  blocked_at: null,
  telegram_id: null,
  discord_id: null,
};

const dayInput = () => document.querySelector<HTMLInputElement>('[data-testid="vip-dialog"] input[type="date"]')!;
const button = (name: string) => [...document.querySelectorAll('button')].find((b) => b.textContent === name)!;

describe('the admin VIP dialog', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
    vi.useRealTimers();
  });
  afterAll(() => {
    if (previousTz === undefined) delete process.env.TZ;
    else process.env.TZ = previousTz;
  });

  it('shows the day of the user’s VIP in the operator’s time zone, and saving it unchanged keeps that day', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2025-03-10T22:00:00Z') });
    localStorage.setItem('access_token', 'token');
    const saved: unknown[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init?: RequestInit) => {
        if (url === `/api/admin/users/${user.id}/vip`) {
          saved.push(JSON.parse(String(init?.body)));
          return answer(200, { success: user });
        }
        throw new Error(`unexpected ${url}`);
      }),
    );
    const qc = new QueryClient({ defaultOptions: { mutations: { networkMode: 'always' } } });
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(VipDialog, { user, open: true, onClose: () => {} }))));

    expect(dayInput().value).toBe('2025-03-11');
    // «Today» is 11 March in Moscow as well (01:00): yesterday cannot be picked.
    expect(dayInput().min).toBe('2025-03-11');

    await act(async () => button('Сохранить').click());
    await settle();
    expect(saved).toEqual([{ vip_until: '2025-03-11T20:59:59.000Z' }]);
  });
});
