import { describe, expect, it } from 'vitest';
import { deviceName, methodText } from './device';

describe('deviceName', () => {
  it.each([
    ['Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36', 'Chrome на Android'],
    ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1', 'Safari на iPhone'],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.0.0', 'Edge на Windows'],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 YaBrowser/24.4.0.0 Safari/537.36', 'Яндекс Браузер на Windows'],
    ['Mozilla/5.0 (Macintosh; Intel Mac OS X 10.15; rv:127.0) Gecko/20100101 Firefox/127.0', 'Firefox на macOS'],
    ['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36', 'Chrome на Linux'],
    ['curl/8.5.0', 'Неизвестное устройство'],
  ])('%s → %s', (ua, name) => expect(deviceName(ua)).toBe(name));

  it('names an unknown agent and an unknown sign-in method plainly', () => {
    expect(deviceName(null)).toBe('Неизвестное устройство');
    expect(methodText('discord')).toBe('Вход через Discord');
    expect(methodText('something-new')).toBe('Вход неизвестным способом');
  });
});

describe('methodText', () => {
  // Every `method` the server writes to a session (grep `method:` and SessionMethod in apps/server/src).
  it.each([
    ['email', 'Вход по почте и паролю'],
    ['phone', 'Вход по телефону и паролю'],
    ['discord', 'Вход через Discord'],
    ['telegram', 'Вход через Telegram'],
    ['telegram_app', 'Вход в мини-приложении Telegram'],
    ['passkey', 'Вход по ключу доступа'],
    ['two_factor', 'Вход с кодом из приложения или резервным'],
  ])('%s → %s', (method, text) => expect(methodText(method)).toBe(text));
});
