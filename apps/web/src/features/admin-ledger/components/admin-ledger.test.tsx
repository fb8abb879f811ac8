// @vitest-environment happy-dom
import { act, createElement } from 'react';
import type { Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { answer, cleanup, mountWithQuery, settle } from '../../../test/dom';
import { AdminLedger } from './admin-ledger';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

describe('the ledger’s «Проверить журнал»', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
  });

  it('drops the previous verdict when a re-check fails, so no «Журнал сходится» stands beside the error', async () => {
    let audit = answer(200, { ok: true, problems: [], checked_at: '2026-11-01T10:00:00.000Z' });
    const fetch = vi.fn(async (url: string | URL | Request) =>
      String(url).includes('/audit') ? audit : answer(200, { data: [], computed_at: '2026-11-01T10:00:00.000Z' }),
    );
    vi.stubGlobal('fetch', fetch);
    ({ root } = await mountWithQuery(() => createElement(AdminLedger)));
    await settle();
    const panel = () => document.querySelector('[data-testid="ledger-audit"]')!;
    const check = () => [...panel().querySelectorAll('button')].find((b) => b.textContent === 'Проверить журнал')!;
    await act(async () => check().click());
    await settle();
    expect(panel().querySelector('[data-testid="ledger-audit-verdict"]')?.textContent).toContain('Журнал сходится');

    audit = answer(503, { message: 'Сервис временно недоступен. Повторите попытку через минуту' });
    await act(async () => check().click());
    await settle();
    expect(panel().textContent).toContain('Сервис временно недоступен');
    expect(panel().querySelector('[data-testid="ledger-audit-verdict"]')).toBeNull();
    expect(panel().textContent).not.toContain('Журнал сходится');

    // A check that runs again shows its own verdict.
    audit = answer(200, { ok: false, problems: ['Кошелёк №3: баланс не равен сумме записей'], checked_at: '2026-11-01T10:05:00.000Z' });
    await act(async () => check().click());
    await settle();
    expect(panel().textContent).not.toContain('Сервис временно недоступен');
    expect(panel().querySelector('[data-testid="ledger-audit-verdict"]')?.textContent).toContain('Найдены расхождения: 1');
  });
});
