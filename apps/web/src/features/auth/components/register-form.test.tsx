// @vitest-environment happy-dom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, settle, type } from '../../../test/dom';
import { endSession, startSession } from '../../../lib/session';
import { RegisterForm } from './register-form';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

describe('the sign-up form', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
  });

  it('says «Пароли не совпадают» under the repeat as soon as both are typed and differ, before any submit, and drops it once they match', async () => {
    const fetch = vi.fn();
    vi.stubGlobal('fetch', fetch);
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: new QueryClient() }, createElement(RegisterForm, { method: 'email' }))));
    const [password, repeat] = [...document.querySelectorAll<HTMLInputElement>('input[type="password"]')];
    const repeatField = () => repeat!.closest('.MuiFormControl-root')!;

    await act(async () => type(password!, 'correct horse'));
    expect(repeatField().textContent).not.toContain('Пароли не совпадают');
    await act(async () => type(repeat!, 'correct hor'));
    expect(repeatField().textContent).toContain('Пароли не совпадают');
    expect(repeat!.getAttribute('aria-invalid')).toBe('true');

    await act(async () => type(repeat!, 'correct horse'));
    expect(repeatField().textContent).not.toContain('Пароли не совпадают');
    expect(repeat!.getAttribute('aria-invalid')).toBe('false');
    expect(fetch).not.toHaveBeenCalled();
  });

  it('names the address the code went to, lets the player go back to the details when the flow dies, and waits as the server says', async () => {
    let releaseStart: () => void = () => {};
    const sent: [string, unknown][] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init?: RequestInit) => {
        const body = JSON.parse(String(init?.body ?? '{}'));
        sent.push([url, body]);
        if (url === '/api/email_register') {
          await new Promise<void>((r) => (releaseStart = r));
          return Response.json({ email_token: `flow-${sent.length}` });
        }
        const dead = { message: 'Слишком много неверных попыток. Запросите новый код', errors: { code: ['Слишком много неверных попыток. Запросите новый код'] } };
        return Response.json(dead, { status: 429, headers: { 'Retry-After': url.includes('new_token') ? '30' : '12' } });
      }),
    );
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: new QueryClient() }, createElement(RegisterForm, { method: 'email' }))));
    const email = document.querySelector<HTMLInputElement>('input[type="email"]')!;
    const [password, repeat] = [...document.querySelectorAll<HTMLInputElement>('input[type="password"]')];
    await act(async () => type(email, 'first@example.com'));
    await act(async () => type(password!, 'correct horse battery'));
    await act(async () => type(repeat!, 'correct horse battery'));
    const button = (text: string) => [...document.querySelectorAll('button')].find((b) => b.textContent?.startsWith(text));
    await act(async () => button('Получить код')!.click());
    // While the code is being sent the details cannot change under it.
    expect(email.disabled).toBe(true);
    await act(async () => releaseStart());
    await settle();
    expect(document.body.textContent).toContain('Мы отправили код из 6 цифр на first@example.com');

    // Five wrong codes later the flow is dead (the server then resends it once the minute is over, sign-up.routes.test.ts).
    await act(async () => type(document.querySelector<HTMLInputElement>('input[autocomplete="one-time-code"]')!, '000000'));
    await act(async () => button('Подтвердить')!.click());
    await settle();
    expect(document.body.textContent).toContain('Слишком много неверных попыток');
    // The resend waits out its minute (code-step.test.tsx: a refused one then counts the server's Retry-After).
    expect(button('Отправить код ещё раз')?.textContent).toMatch(/через (59|60)\u00a0с/);

    // Back to the details, as typed, for a new flow.
    await act(async () => button('Изменить данные и начать заново')!.click());
    await settle();
    expect(document.querySelector<HTMLInputElement>('input[type="email"]')!.value).toBe('first@example.com');
    expect(document.querySelector<HTMLInputElement>('input[type="password"]')!.value).toBe('correct horse battery');
    await act(async () => button('Получить код')!.click());
    await act(async () => releaseStart());
    await settle();
    expect(document.body.textContent).toContain('Мы отправили код из 6 цифр на first@example.com');
    expect(sent.filter(([url]) => url === '/api/email_register')).toHaveLength(2);
  });

  it('a flow whose resends are used up goes back to the details with the reason, where «Получить код» starts a new one', async () => {
    const sent: string[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        sent.push(url);
        if (url === '/api/email_register') return Response.json({ email_token: 'flow-2' });
        const usedUp = 'Слишком много повторных отправок. Начните заново';
        return Response.json({ message: usedUp }, { status: 429, headers: { 'Retry-After': '60' } });
      }),
    );
    // The code step of a flow sent over a minute ago (a reload: the details typed are gone).
    sessionStorage.setItem('code_flow:register:email', JSON.stringify({ token: 'flow-1', sentTo: 'player@example.com', sentAt: Date.now() - 61_000 }));
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: new QueryClient() }, createElement(RegisterForm, { method: 'email' }))));
    const button = (text: string) => [...document.querySelectorAll('button')].find((b) => b.textContent?.startsWith(text));
    await act(async () => button('Отправить код ещё раз')!.click());
    await settle();
    expect(sent).toEqual(['/api/new_token_email_register']);
    expect(document.querySelector('input[autocomplete="one-time-code"]')).toBeNull();
    expect(document.body.textContent).toContain('Слишком много повторных отправок. Начните заново');
    expect(document.querySelector<HTMLInputElement>('input[type="email"]')!.value).toBe('player@example.com');
    expect(sessionStorage.getItem('code_flow:register:email')).toBeNull();

    const [password, repeat] = [...document.querySelectorAll<HTMLInputElement>('input[type="password"]')];
    await act(async () => type(password!, 'correct horse battery'));
    await act(async () => type(repeat!, 'correct horse battery'));
    await act(async () => button('Получить код')!.click());
    await settle();
    expect(sent.at(-1)).toBe('/api/email_register');
    expect(document.body.textContent).toContain('Мы отправили код из 6 цифр на player@example.com');
  });

  it('a resend refused after the player left its flow («Изменить данные») changes nothing on the page: no reason shown, no address filled back', async () => {
    let refuse: () => void = () => {};
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        if (url === '/api/email_register') return Response.json({ email_token: 'flow-2' });
        const usedUp = 'Слишком много повторных отправок. Начните заново';
        return new Promise<Response>((resolve) => (refuse = () => resolve(Response.json({ message: usedUp }, { status: 429, headers: { 'Retry-After': '60' } }))));
      }),
    );
    sessionStorage.setItem('code_flow:register:email', JSON.stringify({ token: 'flow-1', sentTo: 'player@example.com', sentAt: Date.now() - 61_000 }));
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: new QueryClient() }, createElement(RegisterForm, { method: 'email' }))));
    const button = (text: string) => [...document.querySelectorAll('button')].find((b) => b.textContent?.startsWith(text));
    await act(async () => button('Отправить код ещё раз')!.click());
    await act(async () => button('Изменить данные и начать заново')!.click());
    await settle();
    const email = () => document.querySelector<HTMLInputElement>('input[type="email"]')!;
    await act(async () => type(email(), ''));
    await act(async () => refuse());
    await settle();
    expect(email().value).toBe('');
    expect(document.body.textContent).not.toContain('Слишком много повторных отправок');
  });

  it('keeps the code step across a reload of the tab: the code goes to the same flow, the resend still waits its minute, and a new start fills in the address', async () => {
    const sent: [string, Record<string, unknown>][] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init?: RequestInit) => {
        const body = JSON.parse(String(init?.body ?? '{}'));
        sent.push([url, body]);
        if (url === '/api/email_register') return Response.json({ email_token: 'flow-1' });
        return Response.json({ message: 'Неверный код', errors: { code: ['Неверный код'] } }, { status: 422 });
      }),
    );
    const mount = async () => {
      root = createRoot(document.body.appendChild(document.createElement('div')));
      await act(async () => root!.render(createElement(QueryClientProvider, { client: new QueryClient() }, createElement(RegisterForm, { method: 'email' }))));
    };
    await mount();
    const button = (text: string) => [...document.querySelectorAll('button')].find((b) => b.textContent?.startsWith(text));
    const [password, repeat] = [...document.querySelectorAll<HTMLInputElement>('input[type="password"]')];
    await act(async () => type(document.querySelector<HTMLInputElement>('input[type="email"]')!, 'player@example.com'));
    await act(async () => type(password!, 'correct horse battery'));
    await act(async () => type(repeat!, 'correct horse battery'));
    await act(async () => button('Получить код')!.click());
    await settle();
    expect(document.body.textContent).toContain('на player@example.com');

    // The page reloads (the phone dropped the tab while the player read their mail): the same step.
    await act(async () => root!.unmount());
    document.body.innerHTML = '';
    await mount();
    expect(document.body.textContent).toContain('Мы отправили код из 6 цифр на player@example.com');
    expect(button('Отправить код ещё раз')?.textContent).toMatch(/через (59|60)\u00a0с/);
    await act(async () => type(document.querySelector<HTMLInputElement>('input[autocomplete="one-time-code"]')!, '123456'));
    await act(async () => button('Подтвердить')!.click());
    await settle();
    expect(sent.at(-1)).toEqual(['/api/code_verification_email_register', expect.objectContaining({ email_token: 'flow-1', code: '123456' })]);

    // Starting again after the reload: the details are gone, the address is filled in.
    await act(async () => button('Изменить данные и начать заново')!.click());
    await settle();
    expect(document.querySelector<HTMLInputElement>('input[type="email"]')!.value).toBe('player@example.com');
    // …and a reload now shows the details form, not the dropped flow.
    await act(async () => root!.unmount());
    document.body.innerHTML = '';
    await mount();
    expect(document.querySelector('input[autocomplete="one-time-code"]')).toBeNull();
  });

  it('forgets a flow older than its code (10 minutes): the details form, not a code nobody can use', async () => {
    sessionStorage.setItem('code_flow:register:email', JSON.stringify({ token: 'old', sentTo: 'player@example.com', sentAt: Date.now() - 11 * 60_000 }));
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: new QueryClient() }, createElement(RegisterForm, { method: 'email' }))));
    expect(document.querySelector('input[autocomplete="one-time-code"]')).toBeNull();
    expect(document.querySelector<HTMLInputElement>('input[type="email"]')).not.toBeNull();
  });

  it('a sign-in or sign-out in the tab ends the kept code step: the next visitor does not see the last one\'s address', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => Response.json({ email_token: 'flow-1' })));
    const qc = new QueryClient();
    const mount = async () => {
      root = createRoot(document.body.appendChild(document.createElement('div')));
      await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(RegisterForm, { method: 'email' }))));
    };
    await mount();
    const [password, repeat] = [...document.querySelectorAll<HTMLInputElement>('input[type="password"]')];
    await act(async () => type(document.querySelector<HTMLInputElement>('input[type="email"]')!, 'first.visitor@example.com'));
    await act(async () => type(password!, 'correct horse battery'));
    await act(async () => type(repeat!, 'correct horse battery'));
    await act(async () => [...document.querySelectorAll('button')].find((b) => b.textContent === 'Получить код')!.click());
    await settle();
    expect(document.body.textContent).toContain('first.visitor@example.com');
    await act(async () => root!.unmount());
    document.body.innerHTML = '';

    // The visitor signed in another way instead, and later out.
    startSession(qc, { access_token: 't', user: { id: 1 } } as never);
    endSession(qc);
    await mount();
    expect(document.body.textContent).not.toContain('first.visitor@example.com');
    expect(document.querySelector('input[autocomplete="one-time-code"]')).toBeNull();
  });
});
