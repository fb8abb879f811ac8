// @vitest-environment happy-dom
import type { Gamesserver } from '@adena/contract/lite';
import { act, createElement, type ReactElement } from 'react';
import type { Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useUi } from '../../../lib/ui-store';
import { answer, cleanup, mountWithQuery, playerUser, settle, type } from '../../../test/dom';
import { MoneyDialogs } from './money-dialogs';
import { TakeDialog } from './take-dialog';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const limit = { min: 1_000_000, max: 5_000_000_000 };
const coins = { min: 1, max: 100_000 };
const limits = { input: { '1': limit, '2': coins }, output: { '1': limit, '2': coins } };
const scryde = { id: 1, name: 'Scryde x50', cashier_nick: 'Кассир', limits } as unknown as Gamesserver;
const asterios = { id: 2, name: 'Asterios x5', cashier_nick: 'Казначей', limits } as unknown as Gamesserver;
const withdrawal = answer(200, { success: { id: 3, enter_currency: 1_500_000 } });

/**
 * Every money call's key and body. A call is answered by the next of `plan`: 'hang' waits for the
 * test (`release`), 'lost' has no connection, 'ok' goes through; reads find nothing.
 */
function network(...plan: Array<'hang' | 'lost' | 'ok'>) {
  const sent: Array<{ key: string; body: { gamesserver_id: number; amount: number } }> = [];
  const hung: { resolve(r: Response): void; reject(e: unknown): void }[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (_url: string, init: RequestInit) => {
      if (init.method !== 'POST') return answer(404, { message: 'Не найдено' });
      sent.push({ key: new Headers(init.headers).get('Idempotency-Key') ?? '', body: JSON.parse(String(init.body)) });
      const next = plan.shift() ?? 'ok';
      if (next === 'lost') throw new TypeError('Failed to fetch');
      if (next === 'hang') return new Promise<Response>((resolve, reject) => hung.push({ resolve, reject }));
      return withdrawal.clone();
    }),
  );
  return { sent, keys: () => sent.map((s) => s.key), plan, hung };
}

const inTake = (selector: string) => document.querySelector<HTMLElement>(`[data-testid="take-dialog"] ${selector}`);
const amountInput = () => inTake('[data-testid="amount-input"]') as HTMLInputElement;
const button = (dialog: string, text: string) => [...document.querySelectorAll(`[data-testid="${dialog}"] button`)].find((b) => b.textContent === text) as HTMLElement;
const title = () => inTake('h2')?.textContent;
const submitTake = async () => {
  await act(async () => void document.getElementById('take-form')!.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true })));
  await settle();
};
const openTake = () => act(async () => useUi.getState().openDialog({ name: 'take', currency: 1 }));
const typeAmount = (text: string) => act(async () => type(amountInput(), text));

describe('the withdrawal dialog and its Idempotency-Key', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
    useUi.setState({ dialog: { name: 'none' }, queued: null });
  });

  async function mount(element: () => ReactElement) {
    const mounted = await mountWithQuery(element);
    root = mounted.root;
    return mounted.render;
  }

  const dialogs = () => createElement(MoneyDialogs, { server: scryde, nick: 'Hero', balances: { 1: 10_000_000, 2: 0 } });
  /** A 1,5кк withdrawal sent, and its dialog closed with «Отмена» before any answer. */
  const sendThenCancel = async () => {
    await openTake();
    await typeAmount('1,5кк');
    await submitTake();
    await act(async () => button('take-dialog', 'Отмена').click());
  };

  it('closed while the withdrawal runs, it keeps the amount and the key: sent again after the answer was lost, it is one withdrawal', async () => {
    const net = network('hang', 'ok');
    await mount(dialogs);
    await openTake();
    await typeAmount('1,5кк');
    await submitTake();
    expect(net.sent).toHaveLength(1);

    // A stalled connection: the player gives up with «Отмена» before any answer, and then it is lost.
    await act(async () => button('take-dialog', 'Отмена').click());
    expect(useUi.getState().dialog.name).toBe('none');
    await act(async () => net.hung[0]!.reject(new TypeError('Failed to fetch')));
    await settle();

    await openTake();
    expect(amountInput().value).toBe('1,5кк');
    await submitTake();
    expect(net.sent).toHaveLength(2);
    expect(net.sent[1]!.body).toEqual(net.sent[0]!.body);
    expect(net.keys()[1]).toBe(net.keys()[0]);
  });

  it('answered after the player moved to another server and opened a withdrawal there, it leaves that dialog and its amount alone and names its own server', async () => {
    const net = network('hang', 'ok');
    let server = scryde;
    const render = await mount(() => createElement(MoneyDialogs, { server, nick: 'Hero', balances: { 1: 10_000_000, 2: 0 } }));
    await sendThenCancel();
    server = asterios;
    await render();
    await openTake();
    expect(title()).toBe('Вывести адену — Asterios x5');
    await typeAmount('3кк');

    await act(async () => net.hung[0]!.resolve(withdrawal.clone()));
    await settle();
    expect(useUi.getState().dialog.name).toBe('take');
    expect(title()).toBe('Вывести адену — Asterios x5');
    expect(amountInput().value).toBe('3кк');
    expect(useUi.getState().snackbar.text.replace(/\u00a0/g, ' ')).toBe('Заявка на вывод 1 500 000 аден на Scryde x50 создана');
  });

  it('cancelled while its nick was being saved, it sends no withdrawal and leaves the Asterios withdrawal opened since alone', async () => {
    // Review finding: the withdrawal went out once the nick was saved, recorded the dialog open then as its
    // opening, closed the Asterios withdrawal and erased its «3кк».
    useUi.setState((s) => ({ snackbar: { ...s.snackbar, open: false, text: '' } }));
    let releaseNick!: () => void;
    const posts: string[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init: RequestInit) => {
        if (init.method !== 'POST') return answer(404, { message: 'Не найдено' });
        posts.push(url);
        if (url === '/api/save_nick/') {
          await new Promise<void>((r) => (releaseNick = r));
          return answer(200, { success: 'Ник сохранён' });
        }
        return withdrawal.clone();
      }),
    );
    let server = scryde;
    const render = await mount(() => createElement(MoneyDialogs, { server, nick: null, balances: { 1: 10_000_000, 2: 0 } }));
    await openTake();
    await act(async () => type(inTake('[data-testid="dialog-nick-input"]') as HTMLInputElement, 'Hero'));
    await typeAmount('1,5кк');
    await submitTake();
    expect(posts).toEqual(['/api/save_nick/']);
    await act(async () => button('take-dialog', 'Отмена').click());

    server = asterios;
    await render();
    await openTake();
    await act(async () => type(inTake('[data-testid="dialog-nick-input"]') as HTMLInputElement, 'Hero2'));
    await typeAmount('3кк');
    await act(async () => releaseNick());
    await settle();
    await settle();

    expect(posts).toEqual(['/api/save_nick/']);
    expect(useUi.getState().dialog.name).toBe('take');
    expect(title()).toBe('Вывести адену — Asterios x5');
    expect(amountInput().value).toBe('3кк');
    expect(useUi.getState().snackbar.text).not.toContain('создана');
  });

  it('opened again to retry while the first withdrawal runs, the kept amount goes when that one is made: no second withdrawal under a new key', async () => {
    // Review finding: the reopened dialog kept «1,5кк» after the late success, and «Вывести» sent a second withdrawal.
    const net = network('hang', 'ok');
    await mount(dialogs);
    await sendThenCancel();
    await openTake();
    expect(amountInput().value).toBe('1,5кк');
    await act(async () => net.hung[0]!.resolve(withdrawal.clone()));
    await settle();
    expect(useUi.getState().dialog.name).toBe('none');
    expect(useUi.getState().snackbar.text.replace(/\u00a0/g, ' ')).toBe('Заявка на вывод 1 500 000 аден на Scryde x50 создана');
    await openTake();
    expect(amountInput().value).toBe('');
    expect(net.sent).toHaveLength(1);
  });

  it('a refusal that comes after the dialog was closed is not shown in the next opening', async () => {
    const net = network('hang', 'ok');
    await mount(dialogs);
    await sendThenCancel();
    await openTake();
    await act(async () => net.hung[0]!.resolve(answer(422, { message: 'Ошибка', errors: { amount: ['Вывод не больше 1 000 000 аден за заявку'] } })));
    await settle();
    expect(useUi.getState().dialog.name).toBe('take');
    expect(document.querySelector('[data-testid="take-dialog"]')?.textContent).not.toContain('Вывод не больше');
  });

  it('answered after it was closed, the withdrawal closes no other dialog, says it was made, and the next one takes a new key', async () => {
    const net = network('hang', 'ok');
    await mount(dialogs);
    await sendThenCancel();
    await act(async () => useUi.getState().openDialog({ name: 'put', currency: 1 }));

    await act(async () => net.hung[0]!.resolve(withdrawal.clone()));
    await settle();
    expect(useUi.getState().dialog.name).toBe('put');
    expect(useUi.getState().snackbar.text.replace(/\u00a0/g, ' ')).toBe('Заявка на вывод 1 500 000 аден на Scryde x50 создана');

    // Its answer is known: the next opening starts empty, and the same amount again is a new withdrawal.
    await act(async () => useUi.getState().closeDialog());
    await openTake();
    expect(amountInput().value).toBe('');
    await typeAmount('1,5кк');
    await submitTake();
    expect(net.keys()[1]).not.toBe(net.keys()[0]);
  });

  it('a withdrawal whose answer was lost keeps its key when the dialog is unmounted (a tab switch) and mounted again; another amount is another key', async () => {
    const net = network('lost', 'lost', 'ok', 'ok', 'ok');
    let shown = true;
    const render = await mount(() => (shown ? dialogs() : createElement('div')));
    await sendThenCancel();
    // «История» and back: the wallet card and its dialogs unmount and mount again.
    shown = false;
    await render();
    shown = true;
    await render();

    await openTake();
    await typeAmount('1,5кк');
    await submitTake();
    expect(net.keys()[1]).toBe(net.keys()[0]);
    // Another amount is another withdrawal…
    await typeAmount('2кк');
    await submitTake();
    expect(net.keys()[2]).not.toBe(net.keys()[0]);
    // …while the one in doubt keeps its key until its answer is known; then the same amount is a new one.
    await openTake();
    await typeAmount('1,5кк');
    await submitTake();
    expect(net.keys()[3]).toBe(net.keys()[0]);
    await openTake();
    await typeAmount('1,5кк');
    await submitTake();
    expect(net.keys()[4]).not.toBe(net.keys()[0]);
  });

  it('stays on the server it was opened for, which its title names, whatever server the page shows meanwhile', async () => {
    const net = network('ok');
    let server = scryde;
    const render = await mount(() => createElement(TakeDialog, { server, nick: 'Hero', available: 10_000_000 }));
    await openTake();
    expect(title()).toBe('Вывести адену — Scryde x50');
    await typeAmount('1,5кк');
    server = asterios;
    await render();
    expect(title()).toBe('Вывести адену — Scryde x50');
    await submitTake();
    expect(net.sent[0]!.body).toMatchObject({ gamesserver_id: 1, amount: 1_500_000 });
  });

  it('refused for want of balance, it never states a balance that would have sufficed: the wallet is read again and shown as it is', async () => {
    // The page holds 10кк; another device spent most of it meanwhile.
    let walletReads = 0;
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init: RequestInit) => {
        if (url === '/api/user') return answer(200, playerUser(false));
        if (url === '/api/wallets') {
          walletReads += 1;
          return answer(200, [{ id: 7, gamesserver_id: 1, gamesserver: 'Scryde x50', nick: 'Hero', balance: 500_000, balance_second: 0, new_message: false }]);
        }
        if (init?.method === 'POST') return answer(409, { message: 'Недостаточно средств', low_cap: true });
        return answer(404, { message: 'Не найдено' });
      }),
    );
    await mount(dialogs);
    await openTake();
    await typeAmount('1,5кк');
    await submitTake();
    await settle();
    expect(useUi.getState().dialog.name).toBe('low_capacity');
    const dialog = document.querySelector('[data-testid="low-capacity-dialog"]')!;
    expect(walletReads).toBeGreaterThan(0);
    expect(dialog.textContent?.replace(/\u00a0/g, ' ')).toContain('Для вывода нужно 1 500 000 аден, а на балансе 500 000 аден.');
    expect(dialog.textContent).not.toContain('10 000 000');
  });

  it('more than the page holds opens the low-capacity dialog at once: nothing is sent, so no TOTP code is asked for a sure refusal', async () => {
    const posts: string[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init: RequestInit) => {
        if (url === '/api/user') return answer(200, playerUser(true));
        if (url === '/api/wallets') return answer(200, [{ id: 7, gamesserver_id: 1, gamesserver: 'Scryde x50', nick: 'Hero', balance: 10_000_000, balance_second: 0, new_message: false }]);
        if (init?.method === 'POST') {
          posts.push(url);
          return answer(403, { message: 'Подтвердите действие кодом', two_factor_required: true });
        }
        return answer(404, { message: 'Не найдено' });
      }),
    );
    await mount(dialogs);
    await openTake();
    await typeAmount('15кк');
    await submitTake();
    await settle();
    expect(posts).toEqual([]);
    expect(useUi.getState().dialog.name).toBe('low_capacity');
    const dialog = document.querySelector('[data-testid="low-capacity-dialog"]')!;
    expect(dialog.textContent?.replace(/\u00a0/g, ' ')).toContain('Для вывода нужно 15 000 000 аден, а на балансе 10 000 000 аден.');
    // Within the balance, it goes (and the server asks for the code).
    await openTake();
    await typeAmount('5кк');
    await submitTake();
    expect(posts).toEqual(['/api/down_balance_user/']);
    expect(inTake('input[autocomplete="one-time-code"]')).toBeTruthy();
  });

  it('a withdrawal whose answer was lost goes again with its key even when its own hold has lowered «Доступно» below it: the player learns it was made', async () => {
    const net = network('lost', 'ok');
    let balance = 10_000_000;
    const render = await mount(() => createElement(MoneyDialogs, { server: scryde, nick: 'Hero', balances: { 1: balance, 2: 0 } }));
    await openTake();
    await typeAmount('8кк');
    await submitTake();
    expect(net.sent).toHaveLength(1);
    // The server made it: the realtime balance comes, 2кк left; the answer itself was lost.
    balance = 2_000_000;
    await render();
    await submitTake();
    expect(net.sent).toHaveLength(2);
    expect(net.keys()[1]).toBe(net.keys()[0]);
    expect(useUi.getState().dialog.name).toBe('none');
    // A new 8кк withdrawal now is beyond the balance: the low-capacity dialog, nothing sent.
    await openTake();
    await typeAmount('8кк');
    await submitTake();
    expect(net.sent).toHaveLength(2);
    expect(useUi.getState().dialog.name).toBe('low_capacity');
  });

  it('asked for the code, a recovery code typed on the Russian layout goes as its Latin keys, and an impossible one is said under the field, unsent', async () => {
    const codes: Array<string | null> = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (_url: string, init: RequestInit) => {
        if (init?.method !== 'POST') return answer(404, { message: 'Не найдено' });
        const code = new Headers(init.headers).get('X-Two-Factor-Code');
        codes.push(code);
        return code === null ? answer(403, { message: 'Подтвердите действие кодом', two_factor_required: true }) : withdrawal.clone();
      }),
    );
    await mount(dialogs);
    await openTake();
    await typeAmount('1,5кк');
    await submitTake();
    const field = () => inTake('input[autocomplete="one-time-code"]') as HTMLInputElement;
    expect(field()).toBeTruthy();
    // Something that cannot be a code: said under the field; nothing more is sent.
    await act(async () => type(field(), 'привет'));
    await submitTake();
    expect(codes).toEqual([null]);
    const codeHelper = () => field().closest('.MuiFormControl-root')?.querySelector('.MuiFormHelperText-root')?.textContent;
    expect(codeHelper()).toBe('Введите 6 цифр из приложения или резервный код');
    // «фисву-апршо» is «abcde-fghij» typed on the Russian layout: sent as that, and the withdrawal is made.
    await act(async () => type(field(), 'фисву-апршо'));
    await submitTake();
    expect(codes).toHaveLength(2);
    expect(codes[1]?.replace('-', '')).toBe('abcdefghij');
    expect(useUi.getState().dialog.name).toBe('none');
  });

  it('an amount outside the server’s limits is said under «Сумма» in the server’s words and never sent (a TOTP code would be spent on its refusal)', async () => {
    const net = network();
    // A balance above the server's maximum: the limits alone decide.
    await mount(() => createElement(MoneyDialogs, { server: scryde, nick: 'Hero', balances: { 1: 10_000_000_000, 2: 0 } }));
    await openTake();
    const helper = () => document.getElementById(amountInput().getAttribute('aria-describedby') ?? '')?.textContent?.replace(/\u00a0/g, ' ');
    const press = () => button('take-dialog', 'Вывести') as HTMLButtonElement;
    for (const text of ['500к', '5000000001']) {
      await typeAmount(text);
      expect(helper()).toBe('От 1 000 000 до 5 000 000 000 аден');
      expect(amountInput().getAttribute('aria-invalid')).toBe('true');
      expect(press().disabled).toBe(true);
      await submitTake();
    }
    expect(net.sent).toEqual([]);
    await typeAmount('5ккк');
    expect(press().disabled).toBe(false);
    await submitTake();
    expect(net.sent.map((s) => s.body.amount)).toEqual([5_000_000_000]);
  });

  it('with TOTP on, the code a withdrawal carried is spent whatever the answer: the field is emptied, and a press again asks for a new code instead of sending the spent one', async () => {
    const codes: Array<string | null> = [];
    let lost = true;
    vi.stubGlobal(
      'fetch',
      vi.fn(async (_url: string, init: RequestInit) => {
        if (init?.method !== 'POST') return answer(404, { message: 'Не найдено' });
        const code = new Headers(init.headers).get('X-Two-Factor-Code');
        codes.push(code);
        if (code === null) return answer(403, { message: 'Подтвердите действие кодом', two_factor_required: true });
        // The server's limits are newer than the page's; then a wrong code; then a good one.
        if (code === '111111') return answer(422, { message: 'Сумма вывода вне пределов сервера', errors: { amount: ['От 2 000 000 до 5 000 000 000 аден'] } });
        if (code === '222222') return answer(422, { message: 'Неверный код', errors: { code: ['Неверный код. Возьмите новый код из приложения'] } });
        // An answer lost: the retry goes with the same key and the same code, answered from the first try.
        if (lost) {
          lost = false;
          throw new TypeError('Failed to fetch');
        }
        return withdrawal.clone();
      }),
    );
    await mount(dialogs);
    await openTake();
    await typeAmount('1,5кк');
    await submitTake();
    const field = () => inTake('input[autocomplete="one-time-code"]') as HTMLInputElement;
    const codeHelper = () => field().closest('.MuiFormControl-root')?.querySelector('.MuiFormHelperText-root')?.textContent;
    await act(async () => type(field(), '111111'));
    await submitTake();
    expect(field().value).toBe('');
    await typeAmount('2кк');
    await submitTake();
    // Nothing sent with the spent code: the empty field asks for one.
    expect(codes).toEqual([null, '111111']);
    expect(codeHelper()).toBe('Введите 6 цифр из приложения или резервный код');

    await act(async () => type(field(), '222222'));
    // «Вывести» pressed: the button takes the cursor.
    await act(async () => (document.querySelector('button[form="take-form"]') as HTMLButtonElement).focus());
    await submitTake();
    expect(field().value).toBe('');
    expect(codeHelper()).toBe('Неверный код. Возьмите новый код из приложения');
    // The cursor is back in the emptied field, for the next code.
    expect(document.activeElement).toBe(field());
    await act(async () => type(field(), '333333'));
    await submitTake();
    expect(field().value).toBe('333333');
    await submitTake();
    expect(codes).toEqual([null, '111111', '222222', '333333', '333333']);
    expect(useUi.getState().dialog.name).toBe('none');
  });
});
