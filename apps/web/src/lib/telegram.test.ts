// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { downloadOrOpen, loadTelegram, SAFE_AREA_VARS, telegramTheme } from './telegram';

// Theme parameters as Telegram's clients send them (iOS light and dark, Android dark).
const IOS_LIGHT = { bgColor: '#ffffff', secondaryBgColor: '#efeff3', sectionBgColor: '#ffffff' };
const IOS_DARK = { bgColor: '#000000', secondaryBgColor: '#1c1c1d', sectionBgColor: '#2c2c2e' };
const ANDROID_DARK = { bgColor: '#18222d', secondaryBgColor: '#131415', sectionBgColor: '#18222d' };

describe('Telegram theme parameters laid out as Telegram lays out its own settings screens', () => {
  it('the page is secondary_bg_color and cards are section_bg_color, in light and dark themes', () => {
    expect(telegramTheme(false, IOS_LIGHT)).toMatchObject({ isDark: false, bg: '#efeff3', paper: '#ffffff' });
    expect(telegramTheme(true, IOS_DARK)).toMatchObject({ isDark: true, bg: '#1c1c1d', paper: '#2c2c2e' });
    expect(telegramTheme(true, ANDROID_DARK)).toMatchObject({ bg: '#131415', paper: '#18222d' });
  });

  it('passes the text, hint and button colours on', () => {
    expect(telegramTheme(false, { ...IOS_LIGHT, textColor: '#000000', hintColor: '#999999', buttonColor: '#2481cc', buttonTextColor: '#ffffff' })).toEqual({
      isDark: false,
      bg: '#efeff3',
      paper: '#ffffff',
      text: '#000000',
      hint: '#999999',
      primary: '#2481cc',
      primaryText: '#ffffff',
    });
  });

  it('a theme without some backgrounds falls back to bg_color, and cards still differ from the page where Telegram gave another colour', () => {
    // Before Bot API 6.10: no section_bg_color.
    expect(telegramTheme(false, { bgColor: '#ffffff', secondaryBgColor: '#efeff4' })).toMatchObject({ bg: '#efeff4', paper: '#ffffff' });
    // No secondary_bg_color: the page is bg_color.
    expect(telegramTheme(true, { bgColor: '#17212b', sectionBgColor: '#232e3c' })).toMatchObject({ bg: '#17212b', paper: '#232e3c' });
    // A section colour equal to the page's (any case): bg_color for cards.
    expect(telegramTheme(false, { bgColor: '#ffffff', secondaryBgColor: '#EFEFF4', sectionBgColor: '#efeff4' })).toMatchObject({ bg: '#EFEFF4', paper: '#ffffff' });
    // Only bg_color: nothing else to use.
    expect(telegramTheme(false, { bgColor: '#ffffff' })).toMatchObject({ bg: '#ffffff', paper: '#ffffff' });
    // Nothing at all: the app's own colours.
    expect(telegramTheme(false, {})).toMatchObject({ bg: undefined, paper: undefined });
  });
});

describe('a Telegram launch', () => {
  afterEach(() => {
    delete (window as { TelegramWebviewProxy?: unknown }).TelegramWebviewProxy;
    window.location.hash = '';
    sessionStorage.clear();
  });

  it('puts the safe areas Telegram reports in CSS variables and Telegram’s header in the page’s colour', async () => {
    const events: Array<{ type: string; data: unknown }> = [];
    const answer = (type: string, data: unknown) =>
      setTimeout(() => (window as unknown as { Telegram: { WebView: { receiveEvent(t: string, d: unknown): void } } }).Telegram.WebView.receiveEvent(type, data), 5);
    // Telegram's mobile clients: events go through TelegramWebviewProxy, answers come back through Telegram.WebView.receiveEvent.
    (window as unknown as { TelegramWebviewProxy: unknown }).TelegramWebviewProxy = {
      postEvent(type: string, data?: string) {
        events.push({ type, data: data ? JSON.parse(data) : null });
        if (type === 'web_app_request_safe_area') answer('safe_area_changed', { top: 47, bottom: 34, left: 0, right: 0 });
        if (type === 'web_app_request_content_safe_area') answer('content_safe_area_changed', { top: 46, bottom: 0, left: 0, right: 0 });
        if (type === 'web_app_request_viewport') answer('viewport_changed', { height: 800, width: 390, is_expanded: true, is_state_stable: true });
      },
    };
    const user = JSON.stringify({ id: 777000111, first_name: 'Ася' });
    const initData = new URLSearchParams({ auth_date: '1800000000', query_id: 'AAH', user, signature: 'c2ln', hash: 'abc' }).toString();
    window.location.hash = new URLSearchParams({
      tgWebAppData: initData,
      tgWebAppVersion: '8.0',
      tgWebAppPlatform: 'ios',
      tgWebAppThemeParams: JSON.stringify({ bg_color: '#ffffff', secondary_bg_color: '#efeff3', section_bg_color: '#ffffff', text_color: '#000000' }),
    }).toString();

    const env = await loadTelegram();
    expect(env?.theme).toMatchObject({ isDark: false, bg: '#efeff3', paper: '#ffffff' });
    const cssVar = (name: string) => document.documentElement.style.getPropertyValue(name);
    await expect.poll(() => cssVar(SAFE_AREA_VARS.contentSafeAreaInsetTop)).toBe('46px');
    expect(cssVar(SAFE_AREA_VARS.safeAreaInsetTop)).toBe('47px');
    expect(cssVar(SAFE_AREA_VARS.safeAreaInsetBottom)).toBe('34px');
    expect(cssVar(SAFE_AREA_VARS.contentSafeAreaInsetBottom)).toBe('0px');
    // Only the insets: no variable that would change as the sheet is dragged.
    expect(cssVar('--tg-viewport-height')).toBe('');
    expect(events).toContainEqual({ type: 'web_app_set_header_color', data: { color_key: 'secondary_bg_color' } });
    expect(events).toContainEqual({ type: 'web_app_set_background_color', data: { color: '#efeff3' } });
  });
});

describe('a change of Telegram’s theme while the mini app is open', () => {
  afterEach(() => {
    delete (window as { TelegramWebviewProxy?: unknown }).TelegramWebviewProxy;
    window.location.hash = '';
    sessionStorage.clear();
  });

  it('hands over the new theme at each change (night mode switched off, then on again), not the one before it', async () => {
    (window as unknown as { TelegramWebviewProxy: unknown }).TelegramWebviewProxy = { postEvent() {} };
    const initData = new URLSearchParams({ auth_date: '1800000000', query_id: 'AAH', user: JSON.stringify({ id: 777000111, first_name: 'Ася' }), signature: 'c2ln', hash: 'abc' }).toString();
    const NIGHT = { bg_color: '#000000', secondary_bg_color: '#1c1c1d', section_bg_color: '#2c2c2e', text_color: '#ffffff' };
    const DAY = { bg_color: '#ffffff', secondary_bg_color: '#efeff3', section_bg_color: '#ffffff', text_color: '#000000' };
    window.location.hash = new URLSearchParams({ tgWebAppData: initData, tgWebAppVersion: '8.0', tgWebAppPlatform: 'ios', tgWebAppThemeParams: JSON.stringify(NIGHT) }).toString();
    vi.resetModules();
    const { loadTelegram: load } = await import('./telegram');
    const env = await load();
    const seen: Array<{ isDark: boolean; bg?: string; text?: string }> = [];
    const off = env!.onThemeChange((t) => seen.push({ isDark: t.isDark, bg: t.bg, text: t.text }));
    // What Telegram's client sends as the player switches its theme.
    const themeChanged = (theme_params: object) =>
      (window as unknown as { Telegram: { WebView: { receiveEvent(t: string, d: unknown): void } } }).Telegram.WebView.receiveEvent('theme_changed', { theme_params });
    // A known theme to start from (the SDK, loaded once per test file, keeps the state an earlier test left).
    themeChanged({ bg_color: '#18222d', secondary_bg_color: '#131415', text_color: '#f5f5f5' });
    seen.length = 0;
    themeChanged(DAY);
    expect(seen).toEqual([{ isDark: false, bg: '#efeff3', text: '#000000' }]);
    themeChanged(NIGHT);
    expect(seen.at(-1)).toEqual({ isDark: true, bg: '#1c1c1d', text: '#ffffff' });
    off();
    themeChanged(DAY);
    expect(seen).toHaveLength(2);
  });
});

describe('launch data from an older Telegram client (no `signature`)', () => {
  afterEach(() => {
    delete (window as { TelegramWebviewProxy?: unknown }).TelegramWebviewProxy;
    window.location.hash = '';
    sessionStorage.clear();
  });

  it('is sent as Telegram signed it, also after a reload of the page (the hash then holds the copy made for the SDK)', async () => {
    (window as unknown as { TelegramWebviewProxy: unknown }).TelegramWebviewProxy = { postEvent() {} };
    const initData = new URLSearchParams({ auth_date: '1800000000', query_id: 'AAH', user: JSON.stringify({ id: 777000111, first_name: 'Ася' }), hash: 'abc' }).toString();
    window.location.hash = new URLSearchParams({ tgWebAppData: initData, tgWebAppVersion: '6.0', tgWebAppPlatform: 'android' }).toString();
    vi.resetModules();
    const opened = await import('./telegram');
    expect((await opened.loadTelegram())?.initDataRaw).toBe(initData);
    // The SDK's copy is in the hash now; a reload (pull to refresh, the app's chunk reload) starts from it.
    expect(new URLSearchParams(window.location.hash.slice(1)).get('tgWebAppData')).toBe(`${initData}&signature=`);
    vi.resetModules();
    const reloaded = await import('./telegram');
    expect((await reloaded.loadTelegram())?.initDataRaw).toBe(initData);
    expect(sessionStorage.getItem('aw/tgInitData')).toBe(initData);
  });
});

describe("the statement's download inside Telegram", () => {
  class Refused extends Error {}
  const settle = () => new Promise((r) => setTimeout(r, 0));

  it("the player's «Отмена» in Telegram's prompt opens nothing; a client that could not ask opens the link instead", async () => {
    const open = vi.fn();
    downloadOrOpen(() => Promise.reject(new Refused('User denied the action')), open, (e) => e instanceof Refused);
    await settle();
    expect(open).not.toHaveBeenCalled();
    downloadOrOpen(() => Promise.reject(new Error('timeout')), open, (e) => e instanceof Refused);
    await settle();
    expect(open).toHaveBeenCalledTimes(1);
    downloadOrOpen(() => undefined, open, (e) => e instanceof Refused);
    await settle();
    expect(open).toHaveBeenCalledTimes(1);
  });
});
