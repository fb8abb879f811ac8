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

/** Telegram Desktop's night theme. */
export const TG_THEME = {
  bg_color: '#17212b',
  secondary_bg_color: '#232e3c',
  section_bg_color: '#17212b',
  text_color: '#f5f5f5',
  hint_color: '#708499',
  link_color: '#6ab3f3',
  button_color: '#5288c1',
  button_text_color: '#ffffff',
};

/** Telegram for iOS, day and night: the settings screens' grey (black) page under white (dark grey) sections. */
export const TG_IOS_LIGHT = {
  bg_color: '#ffffff',
  secondary_bg_color: '#efeff3',
  section_bg_color: '#ffffff',
  header_bg_color: '#efeff3',
  text_color: '#000000',
  hint_color: '#999999',
  link_color: '#2481cc',
  button_color: '#2481cc',
  button_text_color: '#ffffff',
};
export const TG_IOS_DARK = {
  bg_color: '#000000',
  secondary_bg_color: '#1c1c1d',
  section_bg_color: '#2c2c2e',
  header_bg_color: '#1a1a1a',
  text_color: '#ffffff',
  hint_color: '#98989e',
  link_color: '#1a71ed',
  button_color: '#1a71ed',
  button_text_color: '#ffffff',
};

/** The URL hash a Telegram client opens the mini app with. */
export function launchHash(initData: string, platform = 'ios', theme: Record<string, string> = TG_THEME) {
  const p = new URLSearchParams({
    tgWebAppData: initData,
    tgWebAppVersion: '8.0',
    tgWebAppPlatform: platform,
    tgWebAppThemeParams: JSON.stringify(theme),
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

export interface Insets {
  top: number;
  right: number;
  bottom: number;
  left: number;
}

/**
 * NATIVE_BRIDGE that also answers as a Bot API 8.0 client does: the safe areas (the device's, and
 * the room Telegram's own controls take in full screen) and the viewport, when the app asks.
 */
export function nativeBridge(safeArea: Insets, contentSafeArea: Insets) {
  return `
  window.__tgEvents = [];
  const answer = (type, data) => setTimeout(() => window.Telegram.WebView.receiveEvent(type, data), 10);
  window.TelegramWebviewProxy = {
    postEvent(type, data) {
      window.__tgEvents.push({ type, data: data ? JSON.parse(data) : null });
      if (type === 'web_app_request_safe_area') answer('safe_area_changed', ${JSON.stringify(safeArea)});
      if (type === 'web_app_request_content_safe_area') answer('content_safe_area_changed', ${JSON.stringify(contentSafeArea)});
      if (type === 'web_app_request_viewport') answer('viewport_changed', { height: innerHeight, width: innerWidth, is_expanded: true, is_state_stable: true });
    },
  };
`;
}
