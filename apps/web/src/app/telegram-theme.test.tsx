// @vitest-environment happy-dom
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { launchTheme } from '../lib/telegram';
import { cleanup } from '../test/dom';
import { TelegramProvider, useTelegram } from './telegram';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

// A Telegram launch whose SDK is still downloading (a slow phone): loadTelegram never resolves here.
vi.mock('../lib/telegram', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../lib/telegram')>();
  return { ...actual, isTelegramLaunch: () => true, loadTelegram: () => new Promise(() => {}) };
});

// Telegram Desktop's night theme and iOS's day theme, as the launch hash carries them.
const NIGHT = { bg_color: '#17212b', secondary_bg_color: '#131415', section_bg_color: '#17212b', text_color: '#f5f5f5', button_color: '#5288c1' };
const DAY = { bg_color: '#ffffff', secondary_bg_color: '#efeff3', text_color: '#000000' };
const launchHash = (theme: object) => `#${new URLSearchParams({ tgWebAppData: 'auth_date=1&hash=abc', tgWebAppVersion: '8.0', tgWebAppPlatform: 'tdesktop', tgWebAppThemeParams: JSON.stringify(theme) })}`;

let root: Root | null = null;
afterEach(async () => {
  await cleanup(root);
  root = null;
  window.location.hash = '';
  document.documentElement.removeAttribute('data-theme');
  document.documentElement.removeAttribute('data-tg');
  document.documentElement.removeAttribute('style');
  delete (window as { TelegramWebviewProxy?: unknown }).TelegramWebviewProxy;
});

describe('inside Telegram the first render already has Telegram’s colour scheme', () => {
  it('TelegramProvider’s first render has the launch hash’s dark theme, before the SDK has loaded', async () => {
    window.location.hash = launchHash(NIGHT);
    const seen: Array<boolean | undefined> = [];
    function Probe() {
      seen.push(useTelegram().theme?.isDark);
      return null;
    }
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(TelegramProvider, null, createElement(Probe))));
    expect(seen[0]).toBe(true);
    expect(seen.every((d) => d === true)).toBe(true);
  });

  it('reads the SDK’s copy kept in this session (a reload after a route change lost the hash; it follows Telegram’s theme changes), then the launch parameters it kept', () => {
    sessionStorage.setItem('tapps/themeParams', JSON.stringify(NIGHT));
    window.location.hash = launchHash(DAY);
    expect(launchTheme()).toMatchObject({ isDark: true, bg: '#131415', paper: '#17212b', text: '#f5f5f5', primary: '#5288c1' });
    sessionStorage.clear();
    expect(launchTheme()).toMatchObject({ isDark: false, bg: '#efeff3', paper: '#ffffff' });
    window.location.hash = '';
    sessionStorage.setItem('tapps/launchParams', JSON.stringify(launchHash(NIGHT).slice(1)));
    expect(launchTheme()?.isDark).toBe(true);
    sessionStorage.clear();
    expect(launchTheme()).toBeNull();
  });

  it('index.html’s inline script paints Telegram’s scheme and page colour from the first paint, over a saved choice', () => {
    const html = readFileSync(join(import.meta.dirname, '../../index.html'), 'utf8');
    const script = /<script>([\s\S]*?)<\/script>/.exec(html)![1]!;
    const run = () => new Function(script)();
    const el = document.documentElement;
    localStorage.setItem('theme', 'light');
    window.location.hash = launchHash(NIGHT);
    run();
    expect(el.dataset.theme).toBe('dark');
    expect(el.style.getPropertyValue('--boot-bg')).toBe('#131415');
    expect(el.style.getPropertyValue('--boot-text')).toBe('#f5f5f5');
    // The SDK's copy of this session wins over the hash, as in launchTheme.
    sessionStorage.setItem('tapps/themeParams', JSON.stringify(DAY));
    run();
    expect(el.dataset.theme).toBe('light');
    expect(el.style.getPropertyValue('--boot-bg')).toBe('#efeff3');
    // Outside Telegram the saved choice, as before.
    sessionStorage.clear();
    window.location.hash = '';
    el.removeAttribute('style');
    localStorage.setItem('theme', 'dark');
    run();
    expect(el.dataset.theme).toBe('dark');
    expect(el.style.getPropertyValue('--boot-bg')).toBe('');
  });

  it('index.html’s first paint inside Telegram has no bar of the app’s own (the app renders none there), so nothing jumps when React mounts', () => {
    const html = readFileSync(join(import.meta.dirname, '../../index.html'), 'utf8');
    const script = /<script>([\s\S]*?)<\/script>/.exec(html)![1]!;
    const run = () => new Function(script)();
    const el = document.documentElement;
    expect(html).toMatch(/html\[data-tg\] \.boot-bar \{ display: none; \}/);
    // The server writes BRAND_NAME over the bar's text everywhere in the page: never inside the hashed script.
    expect(script).not.toContain('Адена Кошелёк');
    // Launch data in a Telegram client (its bridge injected).
    (window as unknown as { TelegramWebviewProxy: unknown }).TelegramWebviewProxy = { postEvent() {} };
    window.location.hash = launchHash(NIGHT);
    run();
    expect(el.dataset.tg).toBe('1');
    // A reload inside the mini app: the hash is gone, the SDK's copy of the launch parameters is kept.
    el.removeAttribute('data-tg');
    window.location.hash = '';
    sessionStorage.setItem('tapps/launchParams', JSON.stringify(launchHash(NIGHT).slice(1)));
    run();
    expect(el.dataset.tg).toBe('1');
    // Launch data pasted into an ordinary tab (no bridge) is no Telegram launch, as for isTelegramLaunch: the bar stays.
    el.removeAttribute('data-tg');
    sessionStorage.clear();
    delete (window as { TelegramWebviewProxy?: unknown }).TelegramWebviewProxy;
    window.location.hash = launchHash(NIGHT);
    run();
    expect(el.dataset.tg).toBeUndefined();
  });
});
