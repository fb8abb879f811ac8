// @vitest-environment happy-dom
import type { AdminAuditEntry } from '@adena/contract';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { answer, cleanup, settle, type } from '../../../test/dom';
import { AdminAuditLog } from './admin-audit-log';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const entry = (id: number, action: string, before: unknown, after: unknown): AdminAuditEntry => ({
  id,
  admin_id: 1,
  admin_name: 'Анна',
  admin_email: null,
  action,
  entity_type: 'user',
  entity_id: '7',
  before,
  after,
  created_at: '2026-11-01T12:00:00Z',
});

describe('the audit log', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
    history.replaceState(null, '', '/');
  });

  it('names actions and fields in Russian, says booleans as «да»/«нет», and shows a key it does not know as it is', async () => {
    const entries = [
      entry(
        1,
        'user.two_factor_off',
        { admin: false, two_factor: true },
        { admin: false, two_factor: false, webhook_removed: false, reason: 'Потерял телефон' },
      ),
      entry(2, 'user.something_new', { brand_new_field: 1 }, { brand_new_field: 2 }),
      { ...entry(3, 'request.reject', { status: 'pending' }, { status: 'rejected' }), entity_type: 'balance_request' },
      { ...entry(4, 'code.cancel', { status: 'active' }, { status: 'cancelled' }), entity_type: 'code' },
    ];
    localStorage.setItem('access_token', 'token');
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        if (url.startsWith('/api/admin/audit_log')) return answer(200, { data: entries, total: entries.length });
        throw new Error(`unexpected ${url}`);
      }),
    );
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(AdminAuditLog))));
    await settle();

    const rows = [...document.querySelectorAll('[data-testid="audit-row"]')];
    expect(rows).toHaveLength(4);
    const cells = (row: Element) => [...row.querySelectorAll('td')].map((td) => td.textContent);
    const [known, unknown] = rows.map(cells);
    expect(known?.[2]).toBe('Вход с кодом отключён');
    expect([...rows[0]!.querySelectorAll('li')].map((li) => li.textContent)).toEqual([
      'Вход с кодом: да → нет',
      'Вебхук удалён: — → нет',
      'Причина: — → Потерял телефон',
    ]);
    expect(unknown?.[2]).toBe('user.something_new');
    expect(rows[1]!.querySelector('li')?.textContent).toBe('brand_new_field: 1 → 2');
    // A status in words that agree with its object: a request is «отменена», a code «отменён».
    expect(rows[2]!.querySelector('li')?.textContent).toBe('Статус: ожидает → отклонена');
    expect(rows[3]!.querySelector('li')?.textContent).toBe('Статус: активен → отменён');
  });

  /** Renders the log with GET /api/admin/audit_log answering `entries` and /api/admin/users `operators`; the URLs asked. */
  async function showLog(entries: AdminAuditEntry[], operators: Array<{ id: number; name: string; email: string | null }> = []) {
    const asked: string[] = [];
    localStorage.setItem('access_token', 'token');
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        asked.push(String(url));
        if (url.startsWith('/api/admin/audit_log')) return answer(200, { data: entries, total: entries.length });
        if (url.startsWith('/api/admin/users')) return answer(200, { data: operators, total: operators.length });
        throw new Error(`unexpected ${url}`);
      }),
    );
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(AdminAuditLog))));
    await settle();
    return asked;
  }
  const changes = () => [...document.querySelectorAll('[data-testid="audit-row"]')].map((row) => [...row.querySelectorAll('li')].map((li) => li.textContent));
  const request = (e: AdminAuditEntry): AdminAuditEntry => ({ ...e, entity_type: 'balance_request', entity_id: '12' });

  it('names the operator a claim or a decision holds by id from the entries’ authors, asking for no list', async () => {
    // Review finding: «Обработал: — → 1», «В работе у: 1».
    const asked = await showLog([
      request(entry(3, 'request.complete', { status: 'pending', amount: '5000000', comment: null, processed_by: null }, { status: 'completed', amount: '5000000', comment: null, processed_by: 1 })),
      request(entry(2, 'request.claim', null, { claimed_by: 1, claimed_at: '2026-11-01T11:59:00Z' })),
    ]);
    const [complete, claim] = changes();
    expect(complete).toEqual(['Статус: ожидает → выполнена', 'Обработал: — → Анна']);
    expect(claim?.[0]).toBe('В работе у: Анна');
    expect(asked.filter((u) => u.startsWith('/api/admin/users'))).toEqual([]);
  });

  it('names an operator no entry on the page was written by from the operators list, «оператор №id» when not there either', async () => {
    const asked = await showLog(
      [
        // Анна takes over Борис's lapsed claim, then releases it.
        request(entry(5, 'request.release', { claimed_by: 1, claimed_at: '2026-11-01T12:00:00Z' }, { claimed_by: null, claimed_at: null })),
        request(entry(4, 'request.claim', { claimed_by: 2, claimed_at: '2026-11-01T11:00:00Z' }, { claimed_by: 1, claimed_at: '2026-11-01T12:00:00Z' })),
        // Анна demoted operator 3, whose claim was dropped (releaseAllOf): no longer in the operators list.
        request(entry(3, 'request.release', { claimed_by: 3, claimed_at: '2026-11-01T10:00:00Z' }, { claimed_by: null, claimed_at: null, claim_dropped_by: 3 })),
      ],
      [{ id: 1, name: 'Анна', email: null }, { id: 2, name: 'Борис', email: 'boris@example.com' }],
    );
    const claimedBy = changes().map((lis) => lis.filter((li) => li?.startsWith('В работе у') || li?.startsWith('Снята с работы у')));
    expect(claimedBy).toEqual([['В работе у: Анна → —'], ['В работе у: Борис → Анна'], ['В работе у: оператор №3 → —', 'Снята с работы у: — → оператор №3']]);
    const users = asked.filter((u) => u.startsWith('/api/admin/users'));
    expect(users).toHaveLength(1);
    expect(new URL(users[0]!, 'http://localhost').searchParams.get('role')).toBe('admin');
  });

  it('keeps «Что изменилось» at least 260 px wide, a date in one piece, and cuts only a long unbroken value', async () => {
    // Walk finding: at 390 px the column got ~119 px and «03.12.2026, 15:24:28» split as «03.12.202 / 6».
    await showLog([entry(1, 'user.vip_grant', { vip_until: '2026-12-03T12:24:28Z' }, { vip_until: '2026-12-04T12:24:28Z' })]);
    const header = [...document.querySelectorAll('th')].find((th) => th.textContent === 'Что изменилось')!;
    expect(getComputedStyle(header).minWidth).toBe('260px');
    const list = document.querySelector('[data-testid="audit-row"] ul')!;
    expect(getComputedStyle(list).overflowWrap).toBe('anywhere');
    expect(getComputedStyle(list).wordBreak).not.toBe('break-word');
    // The only break opportunity left in the line is around «→»: each date and its time are held by no-break spaces.
    const text = list.querySelector('li')!.textContent!;
    expect(text).toMatch(/^VIP до: \d{2}\.12\.2026,\u00a0\d{2}:24:28 → \d{2}\.12\.2026,\u00a0\d{2}:24:28$/);
  });

  it('names a user entry «Пользователь №id» with the name when known; other objects by «№» too', async () => {
    // Walk finding: «Пользователь 3» with no name, where every other reference reads «№».
    const asked = await showLog(
      [
        // Анна (id 1) made user 3 an operator: the operators list names them.
        { ...entry(4, 'user.admin_grant', { admin: false }, { admin: true }), entity_id: '3' },
        // The page's own author.
        { ...entry(3, 'user.vip_grant', { vip_until: null }, { vip_until: '2026-12-04T12:24:28Z' }), entity_id: '1' },
        // A player no list names.
        { ...entry(2, 'user.vip_grant', { vip_until: null }, { vip_until: '2026-12-04T12:24:28Z' }), entity_id: '9' },
        { ...entry(1, 'gamesserver.update', { name: 'Scryde x50', code_fee_bp: 300 }, { name: 'Scryde x50', code_fee_bp: 450 }), entity_type: 'gamesserver', entity_id: '2' },
      ],
      [{ id: 3, name: 'Борис', email: null }],
    );
    const objects = [...document.querySelectorAll('[data-testid="audit-row"]')].map((row) => row.querySelectorAll('td')[3]!.textContent);
    expect(objects).toEqual(['Пользователь №3 · Борис', 'Пользователь №1 · Анна', 'Пользователь №9', 'Сервер №2 · Scryde x50']);
    expect(document.querySelector('[data-testid="audit-row"] a')?.getAttribute('href')).toBe('/admin/users/3');
    expect(asked.filter((u) => u.startsWith('/api/admin/users'))).toHaveLength(1);
  });

  it('«id объекта» filters only by a number: a stray letter is said under the field and the list keeps its filter', async () => {
    // A plain TextField sent whatever was typed («7x») as entity_id, and nothing said the id was not one.
    history.replaceState(null, '', '/admin/audit?entity_id=abc');
    const asked: URLSearchParams[] = [];
    localStorage.setItem('access_token', 'token');
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        asked.push(new URL(String(url), 'http://localhost').searchParams);
        return answer(200, { data: [entry(1, 'user.vip', null, {})], total: 1 });
      }),
    );
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(AdminAuditLog))));
    await settle();
    // An address with a word for the id is read as no filter.
    expect(asked.at(-1)?.get('entity_id')).toBeNull();
    const label = [...document.querySelectorAll('label')].find((l) => l.textContent === 'id объекта')!;
    const input = () => document.getElementById(label.htmlFor) as HTMLInputElement;
    await act(async () => type(input(), '7'));
    await settle();
    expect(asked.at(-1)?.get('entity_id')).toBe('7');
    const count = asked.length;
    await act(async () => type(input(), '7x'));
    await settle();
    expect(asked).toHaveLength(count);
    expect(input().value).toBe('7x');
    expect(input().closest('.MuiFormControl-root')?.textContent).toContain('id — целое число от 1');
    expect(location.search).toBe('?entity_id=7');
  });

  it('asks page 2 under the newest entry page 1 showed (before_id); another filter or page 1 again drops that anchor', async () => {
    history.replaceState(null, '', '/admin/audit');
    const asked: URLSearchParams[] = [];
    // The log grows by 10 entries between reads: page 1 starts at a newer entry each time.
    let newest = 100;
    localStorage.setItem('access_token', 'token');
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        const q = new URL(String(url), 'http://localhost').searchParams;
        asked.push(q);
        newest += 10;
        const top = Number(q.get('before_id') ?? newest);
        const page = Number(q.get('page') ?? 1);
        const first = top - (page - 1) * 25;
        return answer(200, { data: Array.from({ length: 25 }, (_, i) => entry(first - i, 'user.vip', null, {})), total: 60 });
      }),
    );
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(AdminAuditLog))));
    await settle();
    const goTo = async (page: number) => {
      await act(async () => document.querySelector<HTMLButtonElement>(`button[aria-label="Go to page ${page}"], button[aria-label="page ${page}"]`)!.click());
      await settle();
    };
    const rows = () => document.querySelectorAll('[data-testid="audit-row"]').length;
    expect(asked).toHaveLength(1);
    expect(asked[0]!.get('before_id')).toBeNull();
    expect(rows()).toBe(25);

    // Page 2 (and 3) under page 1's newest entry, 110.
    await goTo(2);
    expect(asked.at(-1)?.get('page')).toBe('2');
    expect(asked.at(-1)?.get('before_id')).toBe('110');
    await goTo(3);
    expect(asked.at(-1)?.get('page')).toBe('3');
    expect(asked.at(-1)?.get('before_id')).toBe('110');

    // Back to page 1: read live, and page 2 then goes under what page 1 shows now.
    await goTo(1);
    expect(asked.at(-1)?.get('page')).toBe('1');
    expect(asked.at(-1)?.get('before_id')).toBeNull();
    const renewed = String(newest);
    expect(renewed).not.toBe('110');
    await goTo(2);
    expect(asked.at(-1)?.get('before_id')).toBe(renewed);

    // Another filter: its page 1 is read without the anchor, and its page 2 under its own page 1's newest.
    const entityId = [...document.querySelectorAll('label')].find((l) => l.textContent === 'id объекта')!;
    await act(async () => type(document.getElementById(entityId.htmlFor) as HTMLInputElement, '7'));
    await settle();
    expect(asked.at(-1)?.get('entity_id')).toBe('7');
    expect(asked.at(-1)?.get('page')).toBe('1');
    expect(asked.at(-1)?.get('before_id')).toBeNull();
    const filtered = String(newest);
    expect(filtered).not.toBe(renewed);
    await goTo(2);
    expect(asked.at(-1)?.get('entity_id')).toBe('7');
    expect(asked.at(-1)?.get('before_id')).toBe(filtered);
  });
});
