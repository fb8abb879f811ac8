// @vitest-environment happy-dom
import type { User } from '@adena/contract/lite';
import type { Root } from 'react-dom/client';
import { createElement } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { answer, cleanup, mountWithQuery, playerUser, settle } from '../../../test/dom';
import { SecuritySection } from './security-section';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

async function mountAs(user: User) {
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      if (String(url).endsWith('/api/user')) return answer(200, user);
      if (String(url).endsWith('/api/sessions')) return answer(200, []);
      return answer(404, { message: 'Не найдено' });
    }),
  );
  const mounted = await mountWithQuery(() => createElement(SecuritySection));
  for (let i = 0; i < 50 && !document.querySelector('#security-title'); i++) await settle();
  await settle();
  return mounted.root;
}

const passwordInputs = () => document.querySelectorAll('input[type="password"]');

describe('the profile\'s security section', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
  });

  it('an account with no password (made by Telegram or Discord sign-in) is told so, with no change form it could never pass', async () => {
    // Chromium walk of the mini app: «Смена пароля» asked a Telegram player for «Текущий пароль» and every
    // submit answered «У аккаунта нет пароля: вы входите через Discord или Telegram».
    root = await mountAs({ ...playerUser(false), email: null, telegram_linked: true, has_password: false });
    expect(document.querySelector('#change-password-title')).toBeNull();
    expect(passwordInputs()).toHaveLength(0);
    expect(document.querySelector('[data-testid="no-password"]')?.textContent).toBe('Вы входите через Telegram или Discord, пароля у аккаунта нет.');
  });

  it('an account with a password keeps the change form', async () => {
    root = await mountAs(playerUser(false));
    expect(document.querySelector('#change-password-title')?.textContent).toBe('Смена пароля');
    expect(passwordInputs()).toHaveLength(3);
    expect(document.querySelector('[data-testid="no-password"]')).toBeNull();
  });
});
