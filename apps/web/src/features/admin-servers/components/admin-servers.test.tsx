// @vitest-environment happy-dom
import { type AdminGamesserver, GamesserverInputSchema } from '@adena/contract';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { answer, cleanup, settle, type } from '../../../test/dom';
import { AdminServers } from './admin-servers';
import { toForm, toInput } from './server-form-dialog';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const limit = { min: 1_000_000, max: 5_000_000_000 };
const server: AdminGamesserver = {
  id: 3,
  name: 'Scryde x50',
  cashier_nick: 'Кассир',
  limits: { input: { '1': limit, '2': limit }, output: { '1': limit, '2': limit } },
  code_fee_bp: 300,
  vip_code_fee_bp: 100,
  min_nominal: 1_000_000,
  standard_nominals: [1_000_000],
  vip_price: 100,
  vip_period_days: 30,
  active: true,
  sort_order: 0,
  created_at: '2025-01-01T00:00:00Z',
  updated_at: '2025-01-01T00:00:00Z',
};

const button = (name: string, within: ParentNode = document) => [...within.querySelectorAll('button')].find((b) => b.textContent === name)!;
const visibilityDialog = () => document.querySelector('[data-testid="server-visibility-dialog"]');
const formDialog = () => document.querySelector('[data-testid="server-form-dialog"]');
/** An input's name: its aria-label (the limits' «Пополнение, адена: от»), else its field's label. */
const nameOf = (i: HTMLInputElement) => i.getAttribute('aria-label') ?? i.closest('.MuiFormControl-root')?.querySelector('label')?.textContent ?? '';
// MUI closes a dialog on a press and release on the area around it (the container, not the paper).
const clickBeside = (dialog: Element) => {
  const container = dialog.querySelector('.MuiDialog-container')!;
  container.dispatchEvent(new MouseEvent('mousedown', { bubbles: true }));
  container.dispatchEvent(new MouseEvent('click', { bubbles: true }));
};

describe('the game servers screen', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
  });

  async function open(opts: { listed?: () => AdminGamesserver; onUpdate?: (body: unknown) => Response | Promise<Response> } = {}) {
    localStorage.setItem('access_token', 'token');
    const updates: unknown[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init?: RequestInit) => {
        if (url === '/api/admin/gamesservers') return answer(200, [opts.listed?.() ?? server]);
        if (url === '/api/admin/ledger/totals') {
          const row = (currency_type: 1 | 2, owed: number) => ({ gamesserver_id: server.id, gamesserver: server.name, currency_type, owed });
          return answer(200, { data: [row(1, 50_000_000), row(2, 120), { ...row(1, 7), gamesserver_id: 99 }], computed_at: '2026-11-27T10:00:00Z' });
        }
        if (url === `/api/admin/gamesservers/${server.id}` && init?.method === 'PUT') {
          updates.push(JSON.parse(String(init.body)));
          if (opts.onUpdate) return opts.onUpdate(JSON.parse(String(init.body)));
          return answer(200, { success: { ...server, active: false } });
        }
        throw new Error(`unexpected ${url}`);
      }),
    );
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { networkMode: 'always' } } });
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(AdminServers))));
    await settle();
    return updates;
  }

  it('the visibility switch hides a server only after the operator confirms, naming the server and what players lose', async () => {
    const updates = await open();
    await act(async () => document.querySelector<HTMLInputElement>('input[aria-label="Scryde x50: виден игрокам"]')!.click());
    await settle();
    expect(updates).toEqual([]);
    expect(visibilityDialog()?.textContent).toContain('Скрыть сервер Scryde x50?');
    expect(visibilityDialog()?.textContent).toContain('Игроки перестанут его видеть, новые заявки и активации кодов на нём будут отклоняться.');
    // What players hold there, which they could not withdraw while it is hidden.
    expect(visibilityDialog()?.querySelector('[data-testid="server-holdings"]')?.textContent?.replace(/\u00a0/g, ' ')).toContain(
      'Игроки держат на нём 50 000 000 аден и 120 монет эйнхасад',
    );

    await act(async () => button('Отмена', visibilityDialog()!).click());
    await settle();
    expect(updates).toEqual([]);

    await act(async () => document.querySelector<HTMLInputElement>('input[aria-label="Scryde x50: виден игрокам"]')!.click());
    await act(async () => button('Скрыть', visibilityDialog()!).click());
    await settle();
    expect(updates).toEqual([{ active: false }]);
  });

  it('a changed server form stays open on a click beside it', async () => {
    await open();
    await act(async () => document.querySelector<HTMLButtonElement>('[aria-label="Изменить Scryde x50"]')!.click());
    const name = () => [...formDialog()!.querySelectorAll('input')].find((i) => i.value.startsWith('Scryde'))!;
    await act(async () => type(name(), 'Scryde x100'));
    await act(async () => clickBeside(formDialog()!));
    await settle();
    expect(formDialog()).not.toBeNull();
    expect(name().value).toBe('Scryde x100');
  });

  it('an edit sends only what the operator changed: a server hidden meanwhile by another operator stays hidden', async () => {
    const updates = await open();
    await act(async () => document.querySelector<HTMLButtonElement>('[aria-label="Изменить Scryde x50"]')!.click());
    const cashier = () => [...formDialog()!.querySelectorAll('input')].find((i) => i.value === 'Кассир')!;
    await act(async () => type(cashier(), 'НовыйКассир'));
    await act(async () => button('Сохранить', formDialog()!).click());
    await settle();
    expect(updates).toEqual([{ cashier_nick: 'НовыйКассир' }]);
  });

  it('the edit form does not hide a server: visibility is the list switch, which asks first', async () => {
    await open();
    await act(async () => document.querySelector<HTMLButtonElement>('[aria-label="Изменить Scryde x50"]')!.click());
    expect(formDialog()!.querySelector('input[type="checkbox"]')).toBeNull();
    expect(formDialog()!.textContent).toContain('Виден игрокам. Скрыть или показать — переключателем «Виден» в списке.');
  });

  it("a save refused because of another operator's change says which fields changed, and «Взять новые» takes them keeping this operator's edits", async () => {
    let listed = server;
    let refuse = true;
    const updates = await open({
      listed: () => listed,
      onUpdate: () => {
        if (!refuse) return answer(200, { success: listed });
        // Meanwhile another operator raised the VIP fee to 200; lowering the normal one to 150 now breaks the rule.
        listed = { ...server, vip_code_fee_bp: 200, updated_at: '2025-01-02T00:00:00Z' };
        return answer(422, { message: 'Проверьте поля', errors: { vip_code_fee_bp: ['Комиссия для VIP не больше обычной'] } });
      },
    });
    await act(async () => document.querySelector<HTMLButtonElement>('[aria-label="Изменить Scryde x50"]')!.click());
    const inputs = () => [...formDialog()!.querySelectorAll('input')];
    const fee = () => inputs().find((i) => i.closest('.MuiFormControl-root')?.textContent?.includes('Обычная'))!;
    const vipFee = () => inputs().find((i) => i.closest('.MuiFormControl-root')?.textContent?.includes('Для VIP'))!;
    await act(async () => type(fee(), '250'));
    await act(async () => button('Сохранить', formDialog()!).click());
    await settle();
    expect(updates).toEqual([{ code_fee_bp: 250 }]);
    expect(formDialog()!.querySelector('[data-testid="server-changed-meanwhile"]')?.textContent).toContain('другой оператор изменил: комиссия для VIP');

    await act(async () => button('Взять новые', formDialog()!).click());
    expect(vipFee().value).toBe('200');
    expect(fee().value).toBe('250');
    expect(formDialog()!.querySelector('[data-testid="server-changed-meanwhile"]')).toBeNull();
    refuse = false;
    await act(async () => button('Сохранить', formDialog()!).click());
    await settle();
    // Only this operator's change is sent, against the server as it is now.
    expect(updates.at(-1)).toEqual({ code_fee_bp: 250 });
  });

  it("«Взять новые» never shows again a server hidden meanwhile, and takes another operator's limit while keeping this one's", async () => {
    let listed = server;
    let refuse = true;
    const updates = await open({
      listed: () => listed,
      onUpdate: () => {
        if (!refuse) return answer(200, { success: listed });
        // Meanwhile another operator hid the server and raised the deposit limit.
        listed = { ...server, active: false, limits: { ...server.limits, input: { ...server.limits.input, '1': { min: 1_000_000, max: 9_000_000_000 } } }, updated_at: '2025-01-02T00:00:00Z' };
        return answer(409, { message: 'Настройки изменились' });
      },
    });
    await act(async () => document.querySelector<HTMLButtonElement>('[aria-label="Изменить Scryde x50"]')!.click());
    const field = (label: string) => [...formDialog()!.querySelectorAll('input')].find((i) => nameOf(i).startsWith(label))!;
    await act(async () => type(field('Вывод, адена: до'), '6ккк'));
    await act(async () => button('Сохранить', formDialog()!).click());
    await settle();
    await act(async () => button('Взять новые', formDialog()!).click());
    expect(field('Пополнение, адена: до').value).toBe('9ккк');
    expect(field('Вывод, адена: до').value).toBe('6ккк');
    refuse = false;
    await act(async () => button('Сохранить', formDialog()!).click());
    await settle();
    const last = updates.at(-1) as { active?: boolean; limits: { input: { '1': { max: number } }; output: { '1': { max: number } } } };
    expect(last).not.toHaveProperty('active');
    expect(last.limits.input['1'].max).toBe(9_000_000_000);
    expect(last.limits.output['1'].max).toBe(6_000_000_000);
  });

  it('a price past 2^53 − 1 says it is too big, not that it is not whole', async () => {
    const updates = await open();
    await act(async () => document.querySelector<HTMLButtonElement>('[aria-label="Изменить Scryde x50"]')!.click());
    const vipPrice = [...formDialog()!.querySelectorAll('input')].find((i) => i.closest('.MuiFormControl-root')?.textContent?.includes('Цена в монетах'))!;
    await act(async () => type(vipPrice, '10000000000ккк'));
    await act(async () => button('Сохранить', formDialog()!).click());
    await settle();
    expect(updates).toEqual([]);
    const field = vipPrice.closest('.MuiFormControl-root')!.textContent!;
    expect(field).not.toContain('целым числом');
    expect(field).toMatch(/больш/i);
  });

  it('the form is not closed while a save is on its way, so a refusal is not lost', async () => {
    let release: (r: Response) => void = () => {};
    await open({ onUpdate: () => new Promise<Response>((r) => (release = r)) });
    await act(async () => document.querySelector<HTMLButtonElement>('[aria-label="Изменить Scryde x50"]')!.click());
    const cashier = () => [...formDialog()!.querySelectorAll('input')].find((i) => i.value === 'Кассир' || i.value === 'Другой')!;
    await act(async () => type(cashier(), 'Другой'));
    await act(async () => button('Сохранить', formDialog()!).click());
    expect(button('Отмена', formDialog()!).disabled).toBe(true);
    await act(async () => release(answer(422, { message: 'Проверьте поля', errors: { cashier_nick: ['Такой ник уже занят'] } })));
    await settle();
    expect(formDialog()!.textContent).toContain('Такой ник уже занят');
  });

  it('heads the display order «Порядок», not «№»: a new server’s 0 is not its number', async () => {
    // Walk finding: a new server with order 0 showed «№ 0».
    await open();
    const heads = [...document.querySelectorAll('th')].map((th) => th.textContent);
    expect(heads[0]).toBe('Порядок');
    expect(heads).not.toContain('№');
    expect(document.querySelector('[data-testid="admin-server-row"] td')?.textContent).toBe('0');
  });

  // Amounts shorthand can write, and ones it cannot (written in full), near 2^53 − 1 too.
  const awkward: AdminGamesserver = {
    ...server,
    limits: {
      input: { '1': { min: 1_000_000, max: 10_000_000_000 }, '2': { min: 1, max: 1_234_567 } },
      output: { '1': { min: 1_000_001, max: Number.MAX_SAFE_INTEGER }, '2': { min: 10, max: 100_000 } },
    },
    min_nominal: 999_999,
    standard_nominals: [1_000_000, 1_500_000, 2_250_000_000, 1_234_567, 999_999, 5_000_000_001, 9_007_199_250_000_000],
    vip_price: 1_200,
  };
  const plain = (s: string) => s.replace(/\u00a0/g, ' ');

  it('the edit form writes amounts as the list does: adena in shorthand, coins and inexact amounts grouped in full', async () => {
    // Walk finding: «1000000, 5000000, 10000000» and «1000000000» in the form, «1кк» in the list.
    await open({ listed: () => awkward });
    await act(async () => document.querySelector<HTMLButtonElement>('[aria-label="Изменить Scryde x50"]')!.click());
    const field = (label: string) => plain([...formDialog()!.querySelectorAll('input')].find((i) => nameOf(i).startsWith(label))!.value);
    expect(field('Стандартные номиналы')).toBe('1кк, 1,5кк, 2,25ккк, 1 234 567, 999 999, 5 000 000 001, 9 007 199,25ккк');
    expect(field('Минимальный номинал')).toBe('999 999');
    expect(field('Пополнение, адена: от')).toBe('1кк');
    expect(field('Пополнение, адена: до')).toBe('10ккк');
    expect(field('Вывод, адена: от')).toBe('1 000 001');
    expect(field('Вывод, адена: до')).toBe('9 007 199 254 740 991');
    expect(field('Пополнение, монеты: до')).toBe('1 234 567');
    expect(field('Цена в монетах')).toBe('1 200');
  });

  it('names a limit row above its pair, so «от» and «до» fit in the 500 px dialog; each input keeps the whole name', async () => {
    // Chromium walk at 1280 px: «Пополнение, монеты: от» as the field's label was cut to «Пополнение, монеты…».
    await open({ listed: () => awkward });
    await act(async () => document.querySelector<HTMLButtonElement>('[aria-label="Изменить Scryde x50"]')!.click());
    const rows = [...formDialog()!.querySelectorAll<HTMLElement>('[data-testid="limit-row"]')];
    expect(rows.map((r) => document.getElementById(r.getAttribute('aria-labelledby') ?? '')?.textContent)).toEqual([
      'Пополнение, адена',
      'Пополнение, монеты',
      'Вывод, адена',
      'Вывод, монеты',
    ]);
    for (const r of rows) {
      expect(r.getAttribute('role')).toBe('group');
      expect([...r.querySelectorAll('label')].map((l) => l.textContent)).toEqual(['от', 'до']);
    }
    expect([...rows[1]!.querySelectorAll('input')].map((i) => i.getAttribute('aria-label'))).toEqual(['Пополнение, монеты: от', 'Пополнение, монеты: до']);
  });

  it('reads back exactly what the form wrote: saved unchanged it sends nothing, one field changed sends the others as they were', async () => {
    // The pure round trip: every field of the server, through the form's text and back.
    const { id: _id, created_at: _c, updated_at: _u, ...fields } = awkward;
    expect(GamesserverInputSchema.parse(toInput(toForm(awkward)))).toEqual(fields);
    expect(GamesserverInputSchema.parse(toInput(toForm(server)))).toEqual(GamesserverInputSchema.parse({ ...server }));

    const updates = await open({ listed: () => awkward, onUpdate: (body) => answer(200, { success: { ...awkward, ...(body as object) } }) });
    const edit = () => act(async () => document.querySelector<HTMLButtonElement>('[aria-label="Изменить Scryde x50"]')!.click());
    await edit();
    await act(async () => button('Сохранить', formDialog()!).click());
    await settle();
    expect(updates).toEqual([]);
    expect(formDialog()).toBeNull();

    // One coin limit changed: the limits go as a whole, every other one exactly as the server holds it.
    await edit();
    const field = (label: string) => [...formDialog()!.querySelectorAll('input')].find((i) => nameOf(i).startsWith(label))!;
    await act(async () => type(field('Вывод, монеты: от'), '20'));
    await act(async () => type(field('Стандартные номиналы'), `${field('Стандартные номиналы').value}, 7кк`));
    await act(async () => button('Сохранить', formDialog()!).click());
    await settle();
    expect(updates).toEqual([
      {
        limits: { ...awkward.limits, output: { ...awkward.limits.output, '2': { min: 20, max: 100_000 } } },
        standard_nominals: [...awkward.standard_nominals, 7_000_000],
      },
    ]);
  });
});
