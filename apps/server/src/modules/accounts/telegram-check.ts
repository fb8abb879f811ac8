import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** Both Telegram checks refuse data signed longer ago than TELEGRAM_AUTH_MAX_AGE_S (PRODUCT.md section 8). */
export const TELEGRAM_MAX_AGE_S = 3600;
// A client clock a little ahead of ours is normal; a date far in the future is not.
const FUTURE_SKEW_S = 5 * 60;

export interface TelegramIdentity {
  /** Telegram user ids exceed 2^31; kept as a decimal string until the database. */
  id: string;
  firstName: string;
  lastName?: string;
  username?: string;
  authDate: number;
}

export type TelegramCheck = { ok: true; identity: TelegramIdentity; hash: string } | { ok: false; reason: 'bad_hash' | 'stale' | 'malformed' };

/** Sorted by key in code-unit order (what Telegram calls alphabetical), `key=value` lines. */
function dataCheckString(entries: Array<[string, string]>) {
  return entries
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('\n');
}

function hashMatches(secret: Buffer, checkString: string, hash: string) {
  if (!/^[0-9a-f]{64}$/i.test(hash)) return false;
  const expected = createHmac('sha256', secret).update(checkString).digest();
  return timingSafeEqual(expected, Buffer.from(hash, 'hex'));
}

function checkDate(authDate: number, nowS: number, maxAgeS: number): boolean {
  return authDate <= nowS + FUTURE_SKEW_S && nowS - authDate <= maxAgeS;
}

const nowSeconds = (now: Date) => Math.floor(now.getTime() / 1000);

/**
 * The Login Widget (/api/telegram_auth). The secret is SHA-256 of the bot token, and every
 * received field but `hash` is signed, so fields we do not use still go into the check string.
 */
export function checkLoginWidget(fields: Record<string, unknown>, botToken: string, now = new Date(), maxAgeS = TELEGRAM_MAX_AGE_S): TelegramCheck {
  const hash = fields.hash;
  if (typeof hash !== 'string') return { ok: false, reason: 'malformed' };
  const entries: Array<[string, string]> = [];
  for (const [k, v] of Object.entries(fields)) {
    if (k === 'hash' || v === undefined || v === null) continue;
    if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') return { ok: false, reason: 'malformed' };
    entries.push([k, String(v)]);
  }
  const secret = createHash('sha256').update(botToken).digest();
  if (!hashMatches(secret, dataCheckString(entries), hash)) return { ok: false, reason: 'bad_hash' };
  // Only signed data is read from here on.
  const id = String(fields.id ?? '');
  const authDate = Number(fields.auth_date);
  // Telegram ids stay below 2^52; anything that would not fit PostgreSQL's bigint is refused, not stored.
  if (!/^\d{1,18}$/.test(id) || !Number.isSafeInteger(authDate)) return { ok: false, reason: 'malformed' };
  if (!checkDate(authDate, nowSeconds(now), maxAgeS)) return { ok: false, reason: 'stale' };
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  return {
    ok: true,
    hash: hash.toLowerCase(),
    identity: { id, firstName: String(fields.first_name ?? ''), lastName: str(fields.last_name), username: str(fields.username), authDate },
  };
}

/** HMAC-SHA-256 of the bot token keyed with "WebAppData": the mini app's secret, not the widget's. */
export const webAppSecret = (botToken: string) => createHmac('sha256', 'WebAppData').update(botToken).digest();

/**
 * The mini app's initData (/api/web_app): the raw query string Telegram gave the page. It is
 * parsed as form data; only `hash` leaves the check string (the newer `signature`, meant for
 * third parties, stays in), and the `user` JSON is checked as the exact text received, never
 * re-serialised (key order and escapes would change and break the hash).
 */
export function checkInitData(initData: string, botToken: string, now = new Date(), maxAgeS = TELEGRAM_MAX_AGE_S): TelegramCheck {
  const params = new URLSearchParams(initData);
  const entries: Array<[string, string]> = [];
  const seen = new Set<string>();
  let hash: string | undefined;
  for (const [k, v] of params) {
    // Telegram never repeats a key; a repeated one would make "which value was signed" ambiguous.
    if (seen.has(k)) return { ok: false, reason: 'malformed' };
    seen.add(k);
    if (k === 'hash') hash = v;
    else entries.push([k, v]);
  }
  if (!hash) return { ok: false, reason: 'malformed' };
  if (!hashMatches(webAppSecret(botToken), dataCheckString(entries), hash)) return { ok: false, reason: 'bad_hash' };
  const authDate = Number(params.get('auth_date'));
  if (!Number.isSafeInteger(authDate) || authDate <= 0) return { ok: false, reason: 'malformed' };
  if (!checkDate(authDate, nowSeconds(now), maxAgeS)) return { ok: false, reason: 'stale' };
  const userJson = params.get('user');
  if (!userJson) return { ok: false, reason: 'malformed' };
  let user: unknown;
  try {
    user = JSON.parse(userJson);
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  if (!user || typeof user !== 'object') return { ok: false, reason: 'malformed' };
  const u = user as Record<string, unknown>;
  // JSON numbers lose precision past 2^53; Telegram ids stay below 2^52, so this is exact.
  const id = typeof u.id === 'number' && Number.isSafeInteger(u.id) && u.id > 0 ? String(u.id) : null;
  if (!id) return { ok: false, reason: 'malformed' };
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  return {
    ok: true,
    hash: hash.toLowerCase(),
    identity: { id, firstName: str(u.first_name) ?? '', lastName: str(u.last_name), username: str(u.username), authDate },
  };
}

/** The bot id is the numeric part of the token before the colon (what the widget's URL wants). */
export function botIdOf(botToken: string): number | null {
  const m = /^(\d+):/.exec(botToken);
  return m ? Number(m[1]) : null;
}
