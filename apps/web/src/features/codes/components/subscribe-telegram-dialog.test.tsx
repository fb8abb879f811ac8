// @vitest-environment happy-dom
import type { Gamesserver, User } from '@adena/contract/lite';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { userQueryOptions } from '../../../lib/session';
import { useStepUp } from '../../../lib/step-up';
import { useUi } from '../../../lib/ui-store';
import { answer, cleanup, settle, type } from '../../../test/dom';
import { SubscribeTelegramDialog } from './subscribe-telegram-dialog';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const server = { id: 1, name: 'Scryde x50', min_nominal: 100_000 } as Gamesserver;
/** Signed in through Telegram: `telegram_linked` is true, yet no chat gets the notices. */
const user: User = {
  id: 5,
  name: 'Ася',
  email: null,
  phone: null,
  admin: false,
  vip: false,
  vip_until: null,
  telegram_linked: true,
  created_at: '2026-11-01T00:00:00Z',
} as User;
const dialogText = () => document.querySelector('[data-testid="subscribe-telegram-dialog"]')?.textContent ?? '';
const button = (name: string) => [...document.querySelectorAll('button')].find((b) => b.textContent === name);

describe('the Telegram notices dialog when the link cannot be read', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
    useUi.getState().closeDialog();
  });

  async function openWith(linkAnswers: Array<() => Response | Promise<Response>>, telegramPrice: number | null = null) {
    localStorage.setItem('access_token', 'token');
    const asked: string[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        asked.push(url);
        if (url !== '/api/telegram_link') throw new Error(`unexpected ${url}`);
        return (linkAnswers.shift() ?? (() => answer(500, { message: 'unexpected' })))();
      }),
    );
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    qc.setQueryData(userQueryOptions().queryKey, user);
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(SubscribeTelegramDialog, { server, telegramPrice }))));
    await act(async () => useUi.getState().openDialog({ name: 'subscribe_telegram' }));
    await settle();
    return asked;
  }

  it('a refused or lost answer never shows «Telegram подключён» to a player who only signed in through Telegram; «Повторить» asks again', async () => {
    const asked = await openWith([
      () => answer(429, { message: 'Слишком много запросов. Попробуйте через минуту' }),
      () => answer(200, { url: 'https://t.me/adena_test_bot?start=abc', linked: false }),
    ]);
    expect(dialogText()).not.toContain('Telegram подключён');
    expect(button('Отключить Telegram')).toBeUndefined();
    expect(dialogText()).toContain('Не удалось узнать, подключён ли Telegram: Слишком много запросов. Попробуйте через минуту');

    await act(async () => button('Повторить')!.click());
    await settle();
    expect(asked).toHaveLength(2);
    expect(dialogText()).toContain('Подключить Telegram');
    expect(dialogText()).not.toContain('Telegram подключён');
  });

  it('a cancelled authenticator prompt offers «Ввести код», not «Отключить Telegram»', async () => {
    await openWith([() => answer(403, { message: 'Введите код из приложения-аутентификатора', two_factor_required: true })]);
    expect(useStepUp.getState().prompt).not.toBeNull();
    await act(async () => useStepUp.getState().answer(null));
    await settle();
    expect(dialogText()).not.toContain('Telegram подключён');
    expect(button('Отключить Telegram')).toBeUndefined();
    expect(button('Ввести код')).toBeDefined();
  });

  it('without a bot, a threshold set earlier promises no message and can only be removed; with none set there is nothing to set', async () => {
    await openWith([() => answer(200, { url: null, linked: false })], 10_000_000);
    expect(dialogText()).toContain('Уведомления в Telegram сейчас недоступны');
    expect(dialogText()).not.toContain('сообщение придёт');
    expect(dialogText().replace(/\u00a0/g, ' ')).toContain('Порог: 10 000 000 аден на Scryde x50. Уведомления в Telegram сейчас недоступны: сообщений о балансе не будет.');
    expect(button('Сохранить порог')).toBeUndefined();
    expect(button('Удалить порог')).toBeDefined();
    await act(async () => root!.unmount());

    await openWith([() => answer(200, { url: null, linked: false })]);
    expect(dialogText()).not.toContain('Порог');
    expect(button('Сохранить порог')).toBeUndefined();
  });

  it('before the chat is linked, the threshold says messages start once Telegram is connected', async () => {
    await openWith([() => answer(200, { url: 'https://t.me/adena_test_bot?start=abc', linked: false })], 21);
    expect(dialogText()).not.toContain('сообщение придёт');
    expect(dialogText().replace(/\u00a0/g, ' ')).toContain('Порог: 21 адена на Scryde x50. Бот начнёт сообщать о балансе ниже порога, когда вы подключите Telegram.');
    expect(button('Сохранить порог')).toBeDefined();
  });

  it('with the chat linked, the threshold promises the message', async () => {
    await openWith([() => answer(200, { url: null, linked: true })], 21);
    expect(dialogText().replace(/\u00a0/g, ' ')).toContain('Сейчас: сообщение придёт, когда баланс адены на Scryde x50 станет меньше 21 адены.');
  });

  it('a server’s error under the threshold goes once the player types another one', async () => {
    localStorage.setItem('access_token', 'token');
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        if (url === '/api/telegram_link') return answer(200, { url: null, linked: true });
        if (url === '/api/add_limit_otvetka/') return answer(422, { message: 'Слишком большой порог', errors: { telegram_price: ['Слишком большой порог'] } });
        throw new Error(`unexpected ${url}`);
      }),
    );
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { networkMode: 'always' } } });
    qc.setQueryData(userQueryOptions().queryKey, user);
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(SubscribeTelegramDialog, { server, telegramPrice: null }))));
    await act(async () => useUi.getState().openDialog({ name: 'subscribe_telegram' }));
    await settle();
    const input = () => document.querySelector('[data-testid="amount-input"]') as HTMLInputElement;
    await act(async () => type(input(), '900ккк'));
    await act(async () => button('Сохранить порог')!.click());
    await settle();
    expect(dialogText()).toContain('Слишком большой порог');
    await act(async () => type(input(), '10кк'));
    expect(dialogText()).not.toContain('Слишком большой порог');
  });
});
