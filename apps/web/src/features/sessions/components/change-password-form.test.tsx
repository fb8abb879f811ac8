// @vitest-environment happy-dom
import { act, createElement } from 'react';
import type { Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useUi } from '../../../lib/ui-store';
import { answer, cleanup, mountWithQuery, playerUser, settle, type } from '../../../test/dom';
import { ChangePasswordForm } from './change-password-form';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

describe('focus after «Сменить пароль», for a keyboard or screen-reader user', () => {
  // Chromium walk: the button is disabled while the change is on its way, Chromium drops focus from it to <body>, and
  // after the answer the next Tab started from the page's top.
  let root: Root | null = null;
  let dropping: MutationObserver | null = null;
  afterEach(async () => {
    dropping?.disconnect();
    dropping = null;
    useUi.getState().closeSnackbar();
    await cleanup(root);
    root = null;
  });

  async function mount(respond: () => Response) {
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        if (url === '/api/change_password') return respond();
        if (url === '/api/user') return answer(200, playerUser(false));
        return answer(200, { data: [] });
      }),
    );
    // A focused button that becomes disabled loses focus to <body>, as in Chromium.
    dropping = new MutationObserver(() => {
      if ((document.activeElement as HTMLButtonElement | null)?.disabled) document.body.focus();
    });
    dropping.observe(document.body, { subtree: true, attributes: true, attributeFilter: ['disabled'] });
    ({ root } = await mountWithQuery(() => createElement(ChangePasswordForm)));
    await settle();
    const input = (label: string) => {
      const l = [...document.querySelectorAll('label')].find((x) => x.textContent?.startsWith(label))!;
      return document.getElementById(l.htmlFor) as HTMLInputElement;
    };
    await act(async () => type(input('Текущий пароль'), 'old-password-1'));
    await act(async () => type(input('Новый пароль'), 'new-password-2'));
    await act(async () => type(input('Новый пароль ещё раз'), 'new-password-2'));
    const submit = [...document.querySelectorAll('button')].find((b) => b.textContent === 'Сменить пароль')!;
    await act(async () => {
      submit.focus();
      submit.click();
    });
    await settle();
    return { submit, input };
  }

  it('a change done leaves focus on «Сменить пароль», not on <body>', async () => {
    const { submit, input } = await mount(() => answer(200, { access_token: 'token-2', user: playerUser(false) }));
    expect(input('Текущий пароль').value).toBe('');
    expect(useUi.getState().snackbar.text).toContain('Пароль изменён');
    expect(document.activeElement).toBe(submit);
  });

  it('a change refused moves focus to the field that says why, so a screen reader reads the error (Chromium walk)', async () => {
    const { input } = await mount(() => answer(422, { message: 'Проверьте поля', errors: { password: ['Неверный пароль'] } }));
    expect(document.body.textContent).toContain('Неверный пароль');
    expect(document.activeElement).toBe(input('Текущий пароль'));
  });
});
