// @vitest-environment happy-dom
import { createElement } from 'react';
import type { Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { answer, cleanup, mountWithQuery, settle } from '../../../test/dom';
import { SocialButtons } from './social-buttons';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const launch = vi.hoisted(() => ({ inTelegram: false }));
vi.mock('../../../lib/telegram', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../../lib/telegram')>();
  return { ...actual, isTelegramLaunch: () => launch.inTelegram };
});

const DISCORD = { client_id: '1', authorize_url: 'https://discord.com/oauth2/authorize?client_id=1&state=s' };

describe('«Войти через Telegram» and «Войти через Discord» on the sign-in page', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
  });

  async function mount() {
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        if (url === '/api/auth_config') return answer(200, { discord: DISCORD, telegram: { bot_username: 'adena_bot', bot_id: 123456789 } });
        return answer(401, { message: 'Нужно войти' });
      }),
    );
    root = (await mountWithQuery(() => createElement(SocialButtons))).root;
    await settle();
  }

  it('in a browser opens Telegram’s and Discord’s login pages', async () => {
    launch.inTelegram = false;
    await mount();
    const link = [...document.querySelectorAll('a')].find((a) => a.textContent === 'Войти через Telegram');
    expect(link?.getAttribute('href')).toMatch(/^https:\/\/oauth\.telegram\.org\/auth\?/);
    const discord = [...document.querySelectorAll('a')].find((a) => a.textContent === 'Войти через Discord');
    expect(discord?.getAttribute('href')).toBe(DISCORD.authorize_url);
    expect(document.body.textContent).not.toContain('Закройте и откройте приложение заново');
  });

  it('inside the mini app says the app signs in by itself on a new launch, and sends the mini app’s webview to no login page, Telegram’s or Discord’s', async () => {
    launch.inTelegram = true;
    await mount();
    expect(document.body.textContent).toContain('Закройте и откройте приложение заново — войдём через Telegram сами');
    expect(document.querySelector('a[href*="oauth.telegram.org"]')).toBeNull();
    expect(document.body.textContent).not.toContain('Войти через Telegram');
    expect(document.querySelector('a[href*="discord.com"]')).toBeNull();
  });
});
