// @vitest-environment happy-dom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, createElement } from 'react';
import { createRoot } from 'react-dom/client';
import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../lib/api-client';
import { type MoneyFormState, useMoneyForm } from './money-form';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

/**
 * The put/take form's state with `send` failing as given, then succeeding; returns the keys each try
 * sent. `closesOnSuccess`: send clears the form when it succeeds, as the take dialog does.
 */
async function form(failure: unknown, closesOnSuccess = false, later: unknown[] = []) {
  const keys: string[] = [];
  const failures = [failure, ...later];
  const send = vi.fn(async (_amount: number, key: string) => {
    keys.push(key);
    if (keys.length <= failures.length) throw failures[keys.length - 1];
  });
  const onSent = () => {
    if (closesOnSuccess) state.current!.clear();
  };
  const state: { current: MoneyFormState | null } = { current: null };
  function Probe() {
    state.current = useMoneyForm({ operation: 'take', gameServerId: 1, currency: 1, nick: 'Hero', send, onSent });
    return null;
  }
  const root = createRoot(document.createElement('div'));
  await act(async () => root.render(createElement(QueryClientProvider, { client: new QueryClient() }, createElement(Probe))));
  const f = () => state.current!;
  const submit = () => act(() => f().submit({ preventDefault() {} } as React.FormEvent));
  const type = (text: string) => act(async () => f().setAmountText(text));
  const close = () => act(async () => f().clear());
  return { f, type, submit, close, keys, unmount: () => act(() => root.unmount()) };
}

describe('the put and take form across a closed dialog', () => {
  it('after a lost answer, closing and opening again keeps the amount and the key: the same withdrawal is not made twice', async () => {
    const t = await form(new ApiError(0, { message: 'Нет связи с сервером' }));
    await t.type('1,5кк');
    await t.submit();
    await t.close();
    expect(t.f().amountText).toBe('1,5кк');
    await t.submit();
    expect(t.keys).toHaveLength(2);
    expect(t.keys[1]).toBe(t.keys[0]);
    // Once it went through, the next opening is a new withdrawal with a new key.
    await t.close();
    expect(t.f().amountText).toBe('');
    await t.type('2кк');
    await t.submit();
    expect(t.keys[2]).not.toBe(t.keys[0]);
    await t.unmount();
  });

  it('after a lost answer, another amount is another request with a new key (the old key with it would be refused every time)', async () => {
    const t = await form(new ApiError(0, { message: 'Нет связи с сервером' }));
    await t.type('1,5кк');
    await t.submit();
    await t.type('2кк');
    await t.submit();
    expect(t.keys).toHaveLength(2);
    expect(t.keys[1]).not.toBe(t.keys[0]);
    await t.unmount();
  });

  it('a retry that goes through after a lost answer, in a dialog that closes itself on success, leaves the next withdrawal a new key', async () => {
    const t = await form(new ApiError(503, { message: 'Сервис временно недоступен' }), true);
    await t.type('1кк');
    await t.submit();
    await t.submit();
    expect(t.keys[1]).toBe(t.keys[0]);
    expect(t.f().amountText).toBe('');
    await t.type('1кк');
    await t.submit();
    expect(t.keys[2]).not.toBe(t.keys[0]);
    await t.unmount();
  });

  it('after a lost answer, a retry refused before it reached the withdrawal (429, 401, a TOTP prompt) keeps the key: the third try is not a second withdrawal', async () => {
    const t = await form(new ApiError(0, { message: 'Нет связи с сервером' }), false, [
      new ApiError(429, { message: 'Слишком много запросов' }),
      new ApiError(401, { message: 'Войдите снова' }),
      new ApiError(403, { message: 'Подтвердите действие кодом', two_factor_required: true }),
    ]);
    await t.type('5кк');
    for (let i = 0; i < 5; i++) await t.submit();
    expect(t.keys).toHaveLength(5);
    expect(new Set(t.keys).size).toBe(1);
    // The fifth went through (answered from the first try): the next withdrawal is a new one.
    await t.close();
    await t.type('5кк');
    await t.submit();
    expect(t.keys[5]).not.toBe(t.keys[0]);
    await t.unmount();
  });

  it('an error on a field the form does not show (a server just switched off) is said above the form', async () => {
    const t = await form(new ApiError(404, { message: 'Игровой сервер не найден', errors: { gamesserver_id: ['Игровой сервер не найден'] } }));
    await t.type('2кк');
    await t.submit();
    expect(t.f().errors.formError).toBe('Игровой сервер не найден');
    await t.unmount();
  });

  it('after a refusal (nothing moved), the next opening starts empty with a new key', async () => {
    const t = await form(new ApiError(422, { message: 'Сумма вне лимитов', errors: { amount: ['Сумма вне лимитов'] } }));
    await t.type('500');
    await t.submit();
    await t.close();
    expect(t.f().amountText).toBe('');
    await t.type('2кк');
    await t.submit();
    expect(t.keys[1]).not.toBe(t.keys[0]);
    await t.unmount();
  });
});
