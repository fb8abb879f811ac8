/**
 * A user agent in Russian words: «Chrome на Android», «Safari на iPhone». A short table of the
 * browsers and systems our players use rather than a parser library: ua-parser-js 2 is AGPL, and
 * the session list needs only these names (decision record 0018).
 */
const BROWSERS: [RegExp, string][] = [
  [/YaBrowser\//, 'Яндекс Браузер'],
  [/Edg(A|iOS)?\//, 'Edge'],
  [/OPR\/|Opera/, 'Opera'],
  [/SamsungBrowser\//, 'Samsung Internet'],
  [/Telegram/i, 'Telegram'],
  [/Firefox\/|FxiOS\//, 'Firefox'],
  [/Chrome\/|CriOS\//, 'Chrome'],
  [/Safari\//, 'Safari'],
];

const SYSTEMS: [RegExp, string][] = [
  [/iPhone/, 'iPhone'],
  [/iPad/, 'iPad'],
  [/Android/, 'Android'],
  [/Windows/, 'Windows'],
  [/Mac OS X|Macintosh/, 'macOS'],
  [/CrOS/, 'ChromeOS'],
  [/Linux/, 'Linux'],
];

const find = (table: [RegExp, string][], ua: string) => table.find(([re]) => re.test(ua))?.[1];

export function deviceName(userAgent: string | null): string {
  if (!userAgent) return 'Неизвестное устройство';
  const browser = find(BROWSERS, userAgent);
  const system = find(SYSTEMS, userAgent);
  if (browser && system) return `${browser} на ${system}`;
  return browser ?? system ?? 'Неизвестное устройство';
}

/**
 * Every way the server starts a session (its `method`), as the end of «Вход …». A second step names
 * the session: `two_factor` is a TOTP or recovery code after a password or Discord (modules/two-factor).
 * `unknown`: a session older than the column.
 */
const METHODS: Record<string, string> = {
  email: 'по почте и паролю',
  phone: 'по телефону и паролю',
  discord: 'через Discord',
  telegram: 'через Telegram',
  telegram_app: 'в мини-приложении Telegram',
  passkey: 'по ключу доступа',
  two_factor: 'с кодом из приложения или резервным',
};

/** How a session was signed in, as a phrase: «Вход через Discord». */
export const methodText = (method: string) => `Вход ${METHODS[method] ?? 'неизвестным способом'}`;
