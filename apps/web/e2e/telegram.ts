import { createHmac, randomBytes } from 'node:crypto';

/**
 * Signs mini app initData the way Telegram does (secret = HMAC-SHA256("WebAppData", bot token)).
 * Current clients also send `signature` (Ed25519, for third parties); it stays in the checked string.
 */
export function signInitData(botToken: string, input: Record<string, string>, opts: { signature?: boolean } = {}): string {
  // Older clients send no `signature`; `{ signature: false }` signs launch data as they do.
  const fields = opts.signature === false ? { ...input } : { signature: randomBytes(64).toString('base64url'), ...input };
  const dataCheckString = Object.entries(fields)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join('\n');
  const secret = createHmac('sha256', 'WebAppData').update(botToken).digest();
  const hash = createHmac('sha256', secret).update(dataCheckString).digest('hex');
  return new URLSearchParams({ ...fields, hash }).toString();
}

export const TG_THEME = {
  bg_color: '#17212b',
  secondary_bg_color: '#232e3c',
  text_color: '#f5f5f5',
  hint_color: '#708499',
  link_color: '#6ab3f3',
  button_color: '#5288c1',
  button_text_color: '#ffffff',
};

/** The URL hash a Telegram client opens the mini app with. */
export function launchHash(initData: string, platform = 'ios') {
  const p = new URLSearchParams({
    tgWebAppData: initData,
    tgWebAppVersion: '8.0',
    tgWebAppPlatform: platform,
    tgWebAppThemeParams: JSON.stringify(TG_THEME),
  });
  return `#${p.toString()}`;
}

/**
 * Telegram's mobile clients inject window.TelegramWebviewProxy; the app posts events through it
 * and Telegram answers by calling window.Telegram.WebView.receiveEvent. This records what the app posts.
 */
export const NATIVE_BRIDGE = `
  window.__tgEvents = [];
  window.TelegramWebviewProxy = {
    postEvent(type, data) { window.__tgEvents.push({ type, data: data ? JSON.parse(data) : null }); },
  };
`;
