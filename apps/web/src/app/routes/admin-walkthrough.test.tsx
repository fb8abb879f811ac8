// @vitest-environment happy-dom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { userQueryOptions } from '../../lib/session';
import { answer, cleanup, settle, type } from '../../test/dom';
import AdminRoutes from './admin';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

describe("an operator's TOTP walkthrough", () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
  });

  it('keeps the recovery codes on screen when the user is read again meanwhile (back to the tab), until «Коды сохранены»', async () => {
    let twoFactor = false;
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        const path = new URL(String(url), 'http://localhost').pathname;
        if (path === '/api/user') return answer(200, { id: 1, name: 'Оператор', admin: true, two_factor: twoFactor });
        if (path === '/api/2fa/setup') return answer(200, { secret: 'JBSWY3DPEHPK3PXP', otpauth_url: 'otpauth://totp/Adena:op?secret=JBSWY3DPEHPK3PXP' });
        if (path === '/api/2fa/enable') {
          twoFactor = true;
          return answer(200, { enabled: true, recovery_codes: ['aaaa-bbbb', 'cccc-dddd'] });
        }
        return answer(404, { message: 'Не найдено' });
      }),
    );
    localStorage.setItem('access_token', 'token');
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    await qc.fetchQuery(userQueryOptions());
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(AdminRoutes))));
    await settle();
    await act(async () => type(document.querySelector('[data-testid="totp-enable-code"]') as HTMLInputElement, '123456'));
    await act(async () => [...document.querySelectorAll('button')].find((b) => b.textContent === 'Включить')!.click());
    await settle();
    expect(document.querySelector('[data-testid="recovery-codes"]')).not.toBeNull();
    // The operator switches to a notes app and back: the user object is read again and says TOTP is on.
    await act(async () => qc.invalidateQueries({ queryKey: userQueryOptions().queryKey }));
    await settle();
    expect(qc.getQueryData(userQueryOptions().queryKey)).toMatchObject({ two_factor: true });
    expect(document.querySelector('[data-testid="recovery-codes"]')).not.toBeNull();
    await act(async () => [...document.querySelectorAll('button')].find((b) => b.textContent === 'Коды сохранены')!.click());
    await settle();
    expect(document.querySelector('[data-testid="recovery-codes"]')).toBeNull();
    expect(document.querySelector('[data-view="admin-two-factor-setup"]')).toBeNull();
  });
});
