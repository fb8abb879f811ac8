// @vitest-environment happy-dom
import type { Gamesserver } from '@adena/contract/lite';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, createElement } from 'react';
import { createRoot } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { gamesserversQueryOptions } from '../../../lib/gamesservers';
import { userQueryOptions } from '../../../lib/session';
import { useUi } from '../../../lib/ui-store';
import { answer, cleanup, playerUser, settle, type } from '../../../test/dom';
import type { AnyPriceData } from '../api/price-data';
import { withCodeStatus } from '../api/price-data-cache';
import { EditUserVariantDialog, editDiff, paidForOpenCodes } from './edit-user-variant-dialog';
import { DeleteSuccessDialog, UserVariantDialog } from './user-variant-dialogs';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const server = { id: 1, name: 'Scryde x50', min_nominal: 100_000 } as Gamesserver;

const byLabel = (label: string) => {
  const l = [...document.querySelectorAll('label')].find((x) => x.textContent?.startsWith(label));
  return document.getElementById(l!.htmlFor) as HTMLInputElement;
};
const submit = () => document.getElementById('user-variant-form')!.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));

describe('the own-nominal batch dialog after a lost answer', () => {
  afterEach(async () => {
    await cleanup(null);
    useUi.setState({ dialog: { name: 'none' }, queued: null });
  });

  it('keeps the batch and its key across closing and opening again, so the same batch is not charged twice; another count is a new key', async () => {
    localStorage.setItem('access_token', 'token');
    const keys: string[] = [];
    let lost = true;
    vi.stubGlobal(
      'fetch',
      vi.fn(async (_url: string, init: RequestInit) => {
        keys.push(new Headers(init.headers).get('Idempotency-Key') ?? '');
        if (lost) throw new TypeError('Failed to fetch');
        return answer(200, { success: true, summa: 3_060_000, count: 3, nominal: 1_000_000, codes: [] });
      }),
    );
    const qc = new QueryClient({ defaultOptions: { mutations: { networkMode: 'always' } } });
    const root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root.render(createElement(QueryClientProvider, { client: qc }, createElement(UserVariantDialog, { server, feeBp: 200 }))));
    await act(async () => useUi.getState().openDialog({ name: 'user_variant' }));
    await act(async () => {
      type(byLabel('Номинал кода'), '1кк');
      type(byLabel('Количество кодов'), '3');
    });
    await act(async () => submit());
    await settle();
    expect(keys).toHaveLength(1);

    // The player closes the dialog (the answer was lost: it may have gone through) and opens it again.
    const cancel = [...document.querySelectorAll('button')].find((b) => b.textContent === 'Отмена')!;
    await act(async () => cancel.click());
    expect(useUi.getState().dialog.name).toBe('none');
    await act(async () => useUi.getState().openDialog({ name: 'user_variant' }));
    expect(byLabel('Количество кодов').value).toBe('3');
    lost = false;
    await act(async () => submit());
    await settle();
    expect(keys[1]).toBe(keys[0]);

    // It went through: the next batch starts empty. Lost again, then another count: another batch, another key.
    lost = true;
    await act(async () => useUi.getState().openDialog({ name: 'user_variant' }));
    expect(byLabel('Номинал кода').value).toBe('');
    await act(async () => {
      type(byLabel('Номинал кода'), '1кк');
      type(byLabel('Количество кодов'), '2');
    });
    await act(async () => submit());
    await settle();
    await act(async () => type(byLabel('Количество кодов'), '4'));
    await act(async () => submit());
    await settle();
    expect(keys[3]).not.toBe(keys[2]);
    expect(keys[2]).not.toBe(keys[0]);
    await act(async () => root.unmount());
  });

  it('sends the price per code it states, and says so when the fee changed meanwhile (nothing charged)', async () => {
    localStorage.setItem('access_token', 'token');
    const bodies: Array<{ price?: number; nominal: number }> = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (_url: string, init: RequestInit) => {
        if (init.method !== 'POST') return answer(404, { message: 'Не найдено' });
        bodies.push(JSON.parse(String(init.body)));
        return answer(409, { message: 'Цена кода изменилась: теперь 1 050 000 аден. Проверьте и оплатите ещё раз', price: 1_050_000 });
      }),
    );
    const qc = new QueryClient({ defaultOptions: { mutations: { networkMode: 'always' } } });
    const root = createRoot(document.body.appendChild(document.createElement('div')));
    qc.setQueryData(gamesserversQueryOptions().queryKey, [{ ...server, code_fee_bp: 300 }]);
    qc.setQueryData(userQueryOptions().queryKey, playerUser(false));
    await act(async () => root.render(createElement(QueryClientProvider, { client: qc }, createElement(UserVariantDialog, { server, feeBp: 300 }))));
    await act(async () => useUi.getState().openDialog({ name: 'user_variant' }));
    await act(async () => {
      type(byLabel('Номинал кода'), '1кк');
      type(byLabel('Количество кодов'), '2');
    });
    await act(async () => submit());
    await settle();
    expect(bodies[0]).toMatchObject({ nominal: 1_000_000, price: 1_030_000 });
    expect(document.querySelector('[data-testid="user-variant-dialog"]')?.textContent).toContain('Цена кода изменилась');
    expect(useUi.getState().dialog.name).toBe('user_variant');
    // What the dialog's fee is worked out from (the server's fees, the player's VIP) is read again, not only
    // the price data: otherwise it states and sends the old price again and again.
    expect(qc.getQueryState(gamesserversQueryOptions().queryKey)?.isInvalidated).toBe(true);
    expect(qc.getQueryState(userQueryOptions().queryKey)?.isInvalidated).toBe(true);
    await act(async () => root.unmount());
  });

  it('deleting a batch again after a lost answer sends the same key, so the retry learns the refund instead of «Вариант не найден»', async () => {
    localStorage.setItem('access_token', 'token');
    const sent: Array<{ method: string; key: string }> = [];
    let lost = true;
    vi.stubGlobal(
      'fetch',
      vi.fn(async (_url: string, init: RequestInit) => {
        sent.push({ method: String(init.method), key: new Headers(init.headers).get('Idempotency-Key') ?? '' });
        if (lost) throw new TypeError('Failed to fetch');
        return answer(200, { success: 9, summa: 3_060_000 });
      }),
    );
    const qc = new QueryClient({ defaultOptions: { mutations: { networkMode: 'always' } } });
    const root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root.render(createElement(QueryClientProvider, { client: qc }, createElement(EditUserVariantDialog, { server, feeBp: 200 }))));
    await act(async () => useUi.getState().openDialog({ name: 'edit_user_variant', userVariantId: 9, nominal: 1_000_000, count: 3, initialTotalAden: 3_060_000 }));
    const button = (name: string) => [...document.querySelectorAll('button')].find((b) => b.textContent === name)!;
    await act(async () => button('Удалить вариант').click());
    await act(async () => button('Удалить').click());
    await settle();
    lost = false;
    await act(async () => button('Удалить').click());
    await settle();
    expect(sent.map((x) => x.method)).toEqual(['DELETE', 'DELETE']);
    expect(sent[0]!.key).not.toBe('');
    expect(sent[1]!.key).toBe(sent[0]!.key);
    expect(useUi.getState().dialog).toEqual({ name: 'delete_success', summa: 3_060_000 });
    await act(async () => root.unmount());
  });

  it('closed while the batch is being created, it keeps the batch and its key: its answer lost, the same batch sent again is charged once', async () => {
    localStorage.setItem('access_token', 'token');
    const keys: string[] = [];
    const first: Array<(e: unknown) => void> = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (_url: string, init: RequestInit) => {
        keys.push(new Headers(init.headers).get('Idempotency-Key') ?? '');
        if (keys.length === 1) return new Promise<Response>((_resolve, reject) => first.push(reject));
        return answer(200, { success: true, summa: 3_060_000, count: 3, nominal: 1_000_000, codes: [] });
      }),
    );
    const qc = new QueryClient({ defaultOptions: { mutations: { networkMode: 'always' } } });
    const root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root.render(createElement(QueryClientProvider, { client: qc }, createElement(UserVariantDialog, { server, feeBp: 200 }))));
    await act(async () => useUi.getState().openDialog({ name: 'user_variant' }));
    await act(async () => {
      type(byLabel('Номинал кода'), '1кк');
      type(byLabel('Количество кодов'), '3');
    });
    await act(async () => submit());
    const cancel = [...document.querySelectorAll('button')].find((b) => b.textContent === 'Отмена')!;
    await act(async () => cancel.click());
    await act(async () => first[0]!(new TypeError('Failed to fetch')));
    await settle();

    await act(async () => useUi.getState().openDialog({ name: 'user_variant' }));
    expect(byLabel('Номинал кода').value).toBe('1кк');
    expect(byLabel('Количество кодов').value).toBe('3');
    await act(async () => submit());
    await settle();
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
    expect(useUi.getState().dialog.name).toBe('create_success');
    await act(async () => root.unmount());
  });

  it('«Изменить» starts from what the open codes were paid, not from today\'s price after a fee change', () => {
    // Made at a 2% fee (1 020 000 a code); the player then bought VIP, and a code costs 1 010 000 today.
    const batch = { id: 5, gamesserver_id: 1, nominal: 1_000_000, price: 1_010_000, count: 3, open_count: 2, created_at: '2026-11-01T10:00:00.000Z' };
    const code = (id: number, status: 'active' | 'activated') =>
      ({ id, nominal: 1_000_000, price: 1_020_000, status, sert: `ADN-${id}`, gamesserver_id: 1, pricekod_id: 5, created_at: batch.created_at, activated_at: null }) as const;
    expect(paidForOpenCodes(batch, [code(1, 'active'), code(2, 'active'), code(3, 'activated')])).toBe(2_040_000);
    // A page that does not list every open code of the batch: SPEC.md's price × count.
    expect(paidForOpenCodes(batch, [code(1, 'active')])).toBe(2_020_000);
  });

  it('the deletion warning agrees with the count: one code «перестанет», its price comes back', async () => {
    localStorage.setItem('access_token', 'token');
    const qc = new QueryClient();
    const root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root.render(createElement(QueryClientProvider, { client: qc }, createElement(EditUserVariantDialog, { server, feeBp: 200 }))));
    await act(async () => useUi.getState().openDialog({ name: 'edit_user_variant', userVariantId: 9, nominal: 1_000_000, count: 1, initialTotalAden: 1_020_000 }));
    await act(async () => [...document.querySelectorAll('button')].find((b) => b.textContent === 'Удалить вариант')!.click());
    expect(document.body.textContent?.replace(/\u00a0/g, ' ')).toContain('Удалить вариант? 1 код перестанет действовать, его цена вернётся на баланс.');
    await act(async () => root.unmount());
  });

  it('an edit whose answer was lost keeps its key after the dialog closed (its form unmounts) and opened again', async () => {
    localStorage.setItem('access_token', 'token');
    const keys: string[] = [];
    let lost = true;
    vi.stubGlobal(
      'fetch',
      vi.fn(async (_url: string, init: RequestInit) => {
        keys.push(new Headers(init.headers).get('Idempotency-Key') ?? '');
        if (lost) throw new TypeError('Failed to fetch');
        return answer(200, { success: true, summa: 1_020_000, count: 4, nominal: 1_000_000 });
      }),
    );
    const qc = new QueryClient({ defaultOptions: { mutations: { networkMode: 'always' } } });
    const root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root.render(createElement(QueryClientProvider, { client: qc }, createElement(EditUserVariantDialog, { server, feeBp: 200 }))));
    const edit = { name: 'edit_user_variant', userVariantId: 9, nominal: 1_000_000, count: 3, initialTotalAden: 3_060_000 } as const;
    const save = () => document.getElementById('edit-variant-form')!.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
    await act(async () => useUi.getState().openDialog({ ...edit }));
    await act(async () => type(byLabel('Количество кодов'), '4'));
    await act(async () => save());
    await settle();
    await act(async () => useUi.getState().closeDialog());
    await settle();

    await act(async () => useUi.getState().openDialog({ ...edit }));
    await act(async () => type(byLabel('Количество кодов'), '4'));
    lost = false;
    await act(async () => save());
    await settle();
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
    expect(useUi.getState().dialog.name).toBe('none');
    expect(useUi.getState().snackbar.text.replace(/\u00a0/g, ' ')).toBe('Вариант изменён: 4 кода по 1кк аден');
    await act(async () => root.unmount());
  });

  it('a nominal under the server\'s minimum is refused in the field, with no price and «Создать коды» off; a batch keeping its old nominal may still shrink', async () => {
    // Walk 14: «100к» showed «= 100 000 аден» and a price, and only the server's 422 said no.
    localStorage.setItem('access_token', 'token');
    const sent: unknown[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (_url: string, init: RequestInit) => {
        sent.push(JSON.parse(String(init.body)));
        return answer(200, { success: true, summa: -1_020_000, count: 2, nominal: 500_000 });
      }),
    );
    const raised = { ...server, min_nominal: 1_000_000 };
    const qc = new QueryClient({ defaultOptions: { mutations: { networkMode: 'always' } } });
    const root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () =>
      root.render(
        createElement(QueryClientProvider, { client: qc }, createElement(UserVariantDialog, { server: raised, feeBp: 200 }), createElement(EditUserVariantDialog, { server: raised, feeBp: 200 })),
      ),
    );
    await act(async () => useUi.getState().openDialog({ name: 'user_variant' }));
    await act(async () => type(byLabel('Номинал кода'), '100к'));
    const dialog = () => document.querySelector('[role="dialog"]')!;
    const create = () => [...document.querySelectorAll('button')].find((b) => b.textContent === 'Создать коды')!;
    expect(dialog().textContent?.replace(/\u00a0/g, ' ')).toContain('Номинал не меньше 1 000 000 аден');
    expect(dialog().textContent).not.toContain('Цена кода');
    expect(create().disabled).toBe(true);
    await act(async () => submit());
    await settle();
    expect(sent).toEqual([]);
    await act(async () => type(byLabel('Номинал кода'), '1кк'));
    expect(dialog().textContent).toContain('Цена кода');
    expect(create().disabled).toBe(false);

    // A batch of 500к made before the minimum was raised: fewer codes is a refund the server makes.
    await act(async () => useUi.getState().openDialog({ name: 'edit_user_variant', userVariantId: 9, nominal: 500_000, count: 3, initialTotalAden: 1_530_000 }));
    const edit = () => document.querySelector('[data-testid="edit-user-variant-dialog"]')!;
    // The create dialog may still be leaving the page: the fields are the edit dialog's own.
    const field = (label: string) => {
      const l = [...edit().querySelectorAll('label')].find((x) => x.textContent?.startsWith(label));
      return document.getElementById(l!.htmlFor) as HTMLInputElement;
    };
    const editing = () => edit().textContent!.replace(/\u00a0/g, ' ');
    const save = () => [...edit().querySelectorAll('button')].find((b) => b.textContent === 'Сохранить')!;
    await act(async () => type(field('Количество кодов'), '1'));
    expect(editing()).not.toContain('Номинал не меньше');
    expect(save().disabled).toBe(false);
    // More codes of it are bought, under today's minimum (diff review 21): refused as the server would.
    await act(async () => type(field('Количество кодов'), '5'));
    expect(editing()).toContain('Номинал не меньше 1 000 000 аден');
    expect(save().disabled).toBe(true);
    await act(async () => type(field('Количество кодов'), '1'));
    await act(async () => type(field('Номинал кода'), '600к'));
    expect(editing()).toContain('Номинал не меньше 1 000 000 аден');
    expect(save().disabled).toBe(true);
    await act(async () => root.unmount());
  });

  it('an edit of a batch deleted meanwhile (another tab) says so above the fields, instead of nothing', async () => {
    localStorage.setItem('access_token', 'token');
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => answer(404, { message: 'Вариант не найден', errors: { id: ['Вариант не найден'] } })),
    );
    const qc = new QueryClient({ defaultOptions: { mutations: { networkMode: 'always' } } });
    const root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root.render(createElement(QueryClientProvider, { client: qc }, createElement(EditUserVariantDialog, { server, feeBp: 200 }))));
    await act(async () => useUi.getState().openDialog({ name: 'edit_user_variant', userVariantId: 9, nominal: 1_000_000, count: 3, initialTotalAden: 3_060_000 }));
    await act(async () => type(byLabel('Количество кодов'), '4'));
    await act(async () => document.getElementById('edit-variant-form')!.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true })));
    await settle();
    expect(document.querySelector('[data-testid="edit-user-variant-dialog"] [role="alert"]')?.textContent).toBe('Вариант не найден');
    await act(async () => root.unmount());
  });

  it('the edit states the money that moves as the server moves it: codes kept at what they were paid, the newest cancelled, nothing when nothing changed', async () => {
    localStorage.setItem('access_token', 'token');
    // Made at a 2% fee (the newest at 3%); the player then bought VIP, and a code costs 1 010 000 today.
    const code = (id: number, price: number) =>
      ({ id, nominal: 1_000_000, price, status: 'active', sert: `ADN-${id}`, gamesserver_id: 1, pricekod_id: 9, created_at: '2026-11-01T10:00:00.000Z', activated_at: null }) as const;
    const codes = [code(3, 1_030_000), code(1, 1_020_000), code(2, 1_020_000)];
    const userVariants = [{ id: 9, gamesserver_id: 1, nominal: 1_000_000, price: 1_010_000, count: 3, open_count: 3, created_at: '2026-11-01T10:00:00.000Z' }];
    const qc = new QueryClient();
    const root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () =>
      root.render(createElement(QueryClientProvider, { client: qc }, createElement(EditUserVariantDialog, { server, feeBp: 100, userVariants, codes }))),
    );
    await act(async () => useUi.getState().openDialog({ name: 'edit_user_variant', userVariantId: 9, nominal: 1_000_000, count: 3, initialTotalAden: 3_070_000 }));
    const diff = () => document.querySelector('[data-testid="variant-diff"]')?.textContent?.replace(/\u00a0/g, ' ') ?? null;
    // Nothing changed: no money moves (it said «Вернётся на баланс ≈ 40 000 аден»).
    expect(diff()).toBeNull();
    // One more code: charged at today's price only (it said 960 000, today's price × 4 − what was paid).
    await act(async () => type(byLabel('Количество кодов'), '4'));
    expect(diff()).toBe('Доплата ≈ 1 010 000 аден');
    // One less: the newest code is cancelled and what it was paid comes back (it said 1 050 000).
    await act(async () => type(byLabel('Количество кодов'), '2'));
    expect(diff()).toBe('Вернётся на баланс ≈ 1 030 000 аден');
    await act(async () => type(byLabel('Количество кодов'), '1'));
    expect(diff()).toBe('Вернётся на баланс ≈ 2 050 000 аден');
    // Another nominal: every open code back, the new ones at today's price.
    await act(async () => {
      type(byLabel('Номинал кода'), '2кк');
      type(byLabel('Количество кодов'), '2');
    });
    expect(diff()).toBe('Доплата ≈ 970 000 аден');
    await act(async () => root.unmount());

    // Without every open code listed, a smaller count falls back to SPEC.md's new total − initialTotalAden.
    expect(editDiff({ nominal: 1_000_000, openCount: 3, paid: null }, 3_030_000, 1_000_000, 2, 100)).toBe(-1_010_000);
    expect(editDiff({ nominal: 1_000_000, openCount: 3, paid: null }, 3_030_000, 1_000_000, 3, 100)).toBeNull();
  });

  it('a batch answered after its dialog was opened again, or after the player switched server, is said in a notice naming the server, not on the dialog open now', async () => {
    localStorage.setItem('access_token', 'token');
    const pending: Array<(r: Response) => void> = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => new Promise<Response>((resolve) => pending.push(resolve))),
    );
    const other = { id: 2, name: 'Asterios x5', min_nominal: 100_000 } as Gamesserver;
    const qc = new QueryClient({ defaultOptions: { mutations: { networkMode: 'always' } } });
    const root = createRoot(document.body.appendChild(document.createElement('div')));
    const render = (s: Gamesserver) =>
      act(async () => root.render(createElement(QueryClientProvider, { client: qc }, createElement(UserVariantDialog, { key: s.id, server: s, feeBp: 200 }))));
    const fill = () =>
      act(async () => {
        type(byLabel('Номинал кода'), '1кк');
        type(byLabel('Количество кодов'), '3');
      });
    await render(server);
    await act(async () => useUi.getState().openDialog({ name: 'user_variant' }));
    await fill();
    await act(async () => submit());
    // Closed and opened again before the answer: another opening, maybe for another batch.
    await act(async () => useUi.getState().closeDialog());
    await act(async () => useUi.getState().openDialog({ name: 'user_variant' }));
    await act(async () => pending[0]!(answer(200, { success: true, summa: 3_060_000, count: 3, nominal: 1_000_000, codes: [] })));
    await settle();
    expect(useUi.getState().dialog.name).toBe('user_variant');
    expect(useUi.getState().snackbar.text.replace(/\u00a0/g, ' ')).toBe('Коды созданы на сервере Scryde x50: 3 кода по 1кк аден, они в списке «Мои коды»');

    // Sent on Scryde, the player switches to Asterios with the dialog open: Scryde's refusal opens no low-balance dialog there.
    await fill();
    await act(async () => submit());
    await render(other);
    expect(useUi.getState().dialog.name).toBe('user_variant');
    await act(async () => pending[1]!(answer(409, { message: 'Недостаточно средств на балансе', low_cap: true })));
    await settle();
    expect(useUi.getState().dialog.name).toBe('user_variant');
    expect(useUi.getState().snackbar).toMatchObject({ status: 'error', text: 'Коды на сервере Scryde x50 не созданы: недостаточно средств на балансе' });
    await act(async () => root.unmount());
  });

  it('an edit answered after the same batch’s dialog was opened again closes nothing: the notice names the server', async () => {
    localStorage.setItem('access_token', 'token');
    let resolve!: (r: Response) => void;
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => new Promise<Response>((r) => (resolve = r))),
    );
    const qc = new QueryClient({ defaultOptions: { mutations: { networkMode: 'always' } } });
    const root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root.render(createElement(QueryClientProvider, { client: qc }, createElement(EditUserVariantDialog, { server, feeBp: 200 }))));
    const edit = { name: 'edit_user_variant', userVariantId: 9, nominal: 1_000_000, count: 3, initialTotalAden: 3_060_000 } as const;
    await act(async () => useUi.getState().openDialog({ ...edit }));
    await act(async () => type(byLabel('Количество кодов'), '4'));
    await act(async () => document.getElementById('edit-variant-form')!.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true })));
    await act(async () => useUi.getState().closeDialog());
    await act(async () => useUi.getState().openDialog({ ...edit }));
    await act(async () => resolve(answer(200, { success: true, summa: 1_020_000, count: 4, nominal: 1_000_000 })));
    await settle();
    expect(useUi.getState().dialog).toEqual(edit);
    expect(useUi.getState().snackbar.text.replace(/\u00a0/g, ' ')).toBe('Вариант на сервере Scryde x50 изменён: 4 кода по 1кк аден');
    await act(async () => root.unmount());
  });

  it('a server’s error under a field goes once the player edits that field', async () => {
    localStorage.setItem('access_token', 'token');
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => answer(422, { message: 'Номинал не меньше 150 000 аден', errors: { nominal: ['Номинал не меньше 150 000 аден'] } })),
    );
    const qc = new QueryClient({ defaultOptions: { mutations: { networkMode: 'always' } } });
    const root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root.render(createElement(QueryClientProvider, { client: qc }, createElement(UserVariantDialog, { server, feeBp: 200 }))));
    await act(async () => useUi.getState().openDialog({ name: 'user_variant' }));
    await act(async () => type(byLabel('Номинал кода'), '100000'));
    await act(async () => submit());
    await settle();
    const dialogText = () => document.querySelector('[data-testid="user-variant-dialog"]')?.textContent ?? '';
    expect(dialogText()).toContain('Номинал не меньше 150 000 аден');
    await act(async () => type(byLabel('Номинал кода'), '200000'));
    expect(dialogText()).not.toContain('Номинал не меньше 150 000 аден');
    await act(async () => root.unmount());
  });

  it('deleting a batch with no open codes says nothing comes back, not «0 кодов перестанут действовать»; the deletion says «Неактивированные»', async () => {
    localStorage.setItem('access_token', 'token');
    const qc = new QueryClient();
    const root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () =>
      root.render(
        createElement(QueryClientProvider, { client: qc }, createElement(EditUserVariantDialog, { server, feeBp: 200 }), createElement(DeleteSuccessDialog)),
      ),
    );
    await act(async () => useUi.getState().openDialog({ name: 'edit_user_variant', userVariantId: 9, nominal: 1_000_000, count: 0, initialTotalAden: 0 }));
    const text = () => document.body.textContent?.replace(/\u00a0/g, ' ') ?? '';
    expect(text()).toContain('Изменение касается только неактивированных кодов.');
    await act(async () => [...document.querySelectorAll('button')].find((b) => b.textContent === 'Удалить вариант')!.click());
    expect(text()).toContain('Удалить вариант? Неактивированных кодов в нём нет, на баланс ничего не вернётся.');
    expect(text()).not.toContain('перестанут');
    await act(async () => useUi.getState().openDialog({ name: 'delete_success', summa: 0 }));
    expect(text()).toContain('Неактивированные коды отменены.');
    await act(async () => root.unmount());
  });

  const clickBeside = (testId: string) =>
    act(async () => {
      const container = document.querySelector(`[data-testid="${testId}"] .MuiDialog-container`)!;
      container.dispatchEvent(new MouseEvent('mousedown', { bubbles: true }));
      container.dispatchEvent(new MouseEvent('click', { bubbles: true }));
    });

  it('a click beside «Свой номинал» keeps what the player typed; beside an untouched one it closes', async () => {
    localStorage.setItem('access_token', 'token');
    const qc = new QueryClient();
    const root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root.render(createElement(QueryClientProvider, { client: qc }, createElement(UserVariantDialog, { server, feeBp: 200 }))));
    await act(async () => useUi.getState().openDialog({ name: 'user_variant' }));
    await act(async () => type(byLabel('Номинал кода'), '1кк'));
    await clickBeside('user-variant-dialog');
    expect(useUi.getState().dialog.name).toBe('user_variant');
    expect(byLabel('Номинал кода').value).toBe('1кк');
    await act(async () => type(byLabel('Номинал кода'), ''));
    await act(async () => type(byLabel('Количество кодов'), '5'));
    await clickBeside('user-variant-dialog');
    expect(useUi.getState().dialog.name).toBe('user_variant');
    await act(async () => type(byLabel('Количество кодов'), '1'));
    await clickBeside('user-variant-dialog');
    expect(useUi.getState().dialog.name).toBe('none');
    await act(async () => root.unmount());
  });

  it('a click beside «Изменить вариант» keeps the nominal or count the player changed; beside one as it opened it closes', async () => {
    localStorage.setItem('access_token', 'token');
    const qc = new QueryClient();
    const root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root.render(createElement(QueryClientProvider, { client: qc }, createElement(EditUserVariantDialog, { server, feeBp: 200 }))));
    const edit = { name: 'edit_user_variant', userVariantId: 9, nominal: 1_000_000, count: 3, initialTotalAden: 3_060_000 } as const;
    await act(async () => useUi.getState().openDialog({ ...edit }));
    // The nominal as players write it (walk 16: it read «1000000»).
    expect(byLabel('Номинал кода').value).toBe('1кк');
    await act(async () => type(byLabel('Количество кодов'), '4'));
    await clickBeside('edit-user-variant-dialog');
    expect(useUi.getState().dialog.name).toBe('edit_user_variant');
    expect(byLabel('Количество кодов').value).toBe('4');
    await act(async () => type(byLabel('Количество кодов'), '3'));
    await act(async () => type(byLabel('Номинал кода'), '2кк'));
    await clickBeside('edit-user-variant-dialog');
    expect(useUi.getState().dialog.name).toBe('edit_user_variant');
    // The same nominal in other words is no change.
    await act(async () => type(byLabel('Номинал кода'), '1 000 000'));
    await clickBeside('edit-user-variant-dialog');
    expect(useUi.getState().dialog.name).toBe('none');
    await act(async () => root.unmount());
  });

  describe('a code of the batch activated while its edit is open', () => {
    const code = (id: number) =>
      ({ id, nominal: 1_000_000, price: 1_020_000, status: 'active', sert: `ADN-${id}`, gamesserver_id: 1, pricekod_id: 9, created_at: '2026-11-01T10:00:00.000Z', activated_at: null }) as const;
    /** The batch's slice of the price data, changed by the same function the realtime code_status event uses. */
    const start = () =>
      ({
        pricekods: [{ id: 9, gamesserver_id: 1, nominal: 1_000_000, price: 1_020_000, count: 3, open_count: 3, created_at: '2026-11-01T10:00:00.000Z' }],
        kods: [],
        svoy_variant_kods: [code(1), code(2), code(3)],
      }) as unknown as AnyPriceData;
    const text = (sel: string) => document.querySelector(sel)?.textContent?.replace(/\u00a0/g, ' ') ?? null;

    async function openEdit() {
      localStorage.setItem('access_token', 'token');
      const bodies: Array<{ count: number; nominal: number }> = [];
      vi.stubGlobal(
        'fetch',
        vi.fn(async (_url: string, init: RequestInit) => {
          const body = JSON.parse(String(init.body)) as { count: number; nominal: number };
          bodies.push(body);
          return answer(200, { success: true, summa: 0, count: body.count, nominal: body.nominal });
        }),
      );
      const qc = new QueryClient({ defaultOptions: { mutations: { networkMode: 'always' } } });
      const root = createRoot(document.body.appendChild(document.createElement('div')));
      const render = (data: AnyPriceData) =>
        act(async () =>
          root.render(
            createElement(
              QueryClientProvider,
              { client: qc },
              createElement(EditUserVariantDialog, { server, feeBp: 200, userVariants: data.pricekods, codes: data.svoy_variant_kods }),
            ),
          ),
        );
      let data = start();
      await render(data);
      await act(async () => useUi.getState().openDialog({ name: 'edit_user_variant', userVariantId: 9, nominal: 1_000_000, count: 3, initialTotalAden: 3_060_000 }));
      const activate = async (id: number) => {
        data = withCodeStatus(data, id, 'activated');
        await render(data);
      };
      return { bodies, activate, root };
    }
    const save = () => act(async () => document.getElementById('edit-variant-form')!.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true })));

    it('«Сейчас» says the live open count and paid total; the untouched count follows it, and «Сохранить» charges nothing', async () => {
      // Review finding: the dialog kept count 3 from its opening; «Сохранить» with nothing changed sent count 3 where
      // 2 were open, and the server (count = open codes wanted) issued and charged one more.
      const { bodies, activate, root } = await openEdit();
      expect(text('#edit-variant-form > p')).toContain('Сейчас: 3 кода по 1кк аден, оплачено 3 060 000 аден.');
      await activate(2);
      expect(text('#edit-variant-form > p')).toContain('Сейчас: 2 кода по 1кк аден, оплачено 2 040 000 аден.');
      expect(byLabel('Количество кодов').value).toBe('2');
      expect(text('[data-testid="variant-diff"]')).toBeNull();
      expect(text('[data-testid="variant-changed-meanwhile"]')).toBeNull();
      await save();
      await settle();
      expect(bodies).toEqual([expect.objectContaining({ nominal: 1_000_000, count: 2 })]);
      await act(async () => root.unmount());
    });

    it('a count the player changed stays, and the activation is said with what it now charges', async () => {
      const { bodies, activate, root } = await openEdit();
      await act(async () => type(byLabel('Количество кодов'), '4'));
      expect(text('[data-testid="variant-diff"]')).toBe('Доплата ≈ 1 020 000 аден');
      await activate(2);
      expect(byLabel('Количество кодов').value).toBe('4');
      expect(text('[data-testid="variant-changed-meanwhile"]')).toBe(
        'Пока окно было открыто, активирован или отменён 1 код этого варианта: неактивированных теперь 2. Проверьте количество: столько неактивированных кодов будет в варианте после сохранения.',
      );
      expect(text('[data-testid="variant-diff"]')).toBe('Доплата ≈ 2 040 000 аден');
      // Set back to the live count: nothing to say, nothing charged.
      await act(async () => type(byLabel('Количество кодов'), '2'));
      expect(text('[data-testid="variant-changed-meanwhile"]')).toBeNull();
      expect(text('[data-testid="variant-diff"]')).toBeNull();
      await save();
      await settle();
      expect(bodies).toEqual([expect.objectContaining({ count: 2 })]);
      await act(async () => root.unmount());
    });
  });
});
