// @vitest-environment happy-dom
import { TWO_FACTOR_MESSAGES } from '@adena/contract';
import { routes } from '@adena/contract/lite';
import { act, createElement } from 'react';
import type { Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { request } from '../lib/api-client';
import { useStepUp, withStepUp } from '../lib/step-up';
import { answer, cleanup, mountWithQuery, settle, type } from '../test/dom';
import StepUpDialog from './step-up-dialog';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const field = () => document.querySelector('[data-testid="step-up-code"]') as HTMLInputElement;
const helper = () => document.querySelector('[data-testid="step-up-dialog"] .MuiFormHelperText-root');
const confirmButton = () => [...document.querySelectorAll('button')].find((b) => b.textContent === 'Подтвердить')!;

/**
 * The server asks for the code until one comes; fetch as a browser's: a header value outside Latin-1 throws
 * before anything is sent. The codes that reached the server, in order.
 */
function server() {
  const codes: Array<string | null> = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (_url: string, init: RequestInit) => {
      const headers = init.headers as Record<string, string>;
      if (Object.values(headers).some((v) => [...v].some((c) => c.charCodeAt(0) > 0xff))) throw new TypeError('String contains non ISO-8859-1 code point.');
      const code = new Headers(headers).get('X-Two-Factor-Code');
      codes.push(code);
      return code ? answer(200, { success: true }) : answer(403, { message: 'Подтвердите действие кодом из приложения-аутентификатора', two_factor_required: true });
    }),
  );
  return codes;
}

describe('the step-up prompt', () => {
  let root: Root | null = null;
  afterEach(async () => {
    useStepUp.setState({ prompt: null });
    await cleanup(root);
    root = null;
  });

  async function ask() {
    ({ root } = await mountWithQuery(() => createElement(StepUpDialog)));
    const done = withStepUp((twoFactorCode) => request(routes.getUser, { twoFactorCode })).then(
      () => 'done',
      (e: unknown) => e,
    );
    await settle();
    expect(field()).not.toBeNull();
    // In an object: an async function returning the promise itself would wait for it.
    return { done };
  }

  it('offers a text keypad (a recovery code has letters) and keeps the one-time-code autofill', async () => {
    server();
    const { done } = await ask();
    expect(field().getAttribute('inputmode')).toBe('text');
    expect(field().getAttribute('autocomplete')).toBe('one-time-code');
    await act(async () => useStepUp.getState().answer(null));
    await done;
  });

  it('a recovery code typed on the Russian layout reaches the server as the Latin one', async () => {
    // Review finding: «фисву-апршо» (for «abcde-fghij») made fetch throw, reported as «Нет связи с сервером».
    const codes = server();
    const { done } = await ask();
    await act(async () => type(field(), 'ФИСВУ-апршо'));
    await act(async () => confirmButton().click());
    await settle();
    expect(await done).toBe('done');
    expect(codes).toEqual([null, 'abcdefghij']);
  });

  it('a wrong code is asked for again as an error, the first ask as information', async () => {
    // Walk finding: «Неверный код» came in the same blue box as the first ask, with nothing red.
    server();
    const { done } = await ask();
    const alertBox = () => document.querySelector('[data-testid="step-up-dialog"] .MuiAlert-root') as HTMLElement;
    expect(alertBox().className).toMatch(/Info/);
    vi.stubGlobal('fetch', vi.fn(async () => answer(403, { message: 'Неверный код. Возьмите новый код из приложения', two_factor_required: true })));
    await act(async () => type(field(), '000000'));
    // A press moves focus to the button, as in a browser.
    await act(async () => {
      confirmButton().focus();
      confirmButton().click();
    });
    await settle();
    expect(alertBox().textContent).toBe('Неверный код. Возьмите новый код из приложения');
    expect(alertBox().className).toMatch(/Error/);
    expect(document.activeElement).toBe(field());
    await act(async () => useStepUp.getState().answer(null));
    await done;
  });

  it('an impossible code is said under the field in Russian, and nothing is sent', async () => {
    const codes = server();
    const { done } = await ask();
    await act(async () => type(field(), '12345€'));
    await act(async () => confirmButton().click());
    await settle();
    expect(helper()?.textContent).toBe(TWO_FACTOR_MESSAGES.code);
    expect(codes).toEqual([null]);
    expect(useStepUp.getState().prompt).not.toBeNull();
    // Typed again, the message goes and the right code is sent.
    await act(async () => type(field(), '123 456'));
    expect(helper()?.textContent).not.toBe(TWO_FACTOR_MESSAGES.code);
    await act(async () => confirmButton().click());
    await settle();
    expect(await done).toBe('done');
    expect(codes).toEqual([null, '123456']);
  });
});
