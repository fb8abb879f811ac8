import { isIP } from 'node:net';
import { isSupportedCountry } from 'libphonenumber-js/max';
import { z } from 'zod';

const optionalString = z
  .string()
  .trim()
  .transform((v) => (v === '' ? undefined : v))
  .optional();
/** An http(s) address: `localhost:3000` or `javascript:…` pass a bare URL check and fail only at run time (passkeys, Discord's redirect). */
const httpUrl = () => z.url({ protocol: /^https?$/, error: 'нужен адрес вида http:// или https://' });
const optionalUrl = optionalString.pipe(httpUrl().optional());
const boolish = z.enum(['1', '0', 'true', 'false', 'yes', 'no']).transform((v) => v === '1' || v === 'true' || v === 'yes');

/** The service's name the web app's page and manifest are built with (apps/web/index.html, vite.config.ts). */
export const BUILT_BRAND = 'Адена Кошелёк';

/**
 * SMS_COUNTRIES' default: the countries of the CIS and around it whose players come to Russian-language
 * Lineage 2 servers. Sign-up codes go by SMS to mobiles of these countries only (toll fraud: README "Security").
 */
export const DEFAULT_SMS_COUNTRIES = ['RU', 'KZ', 'BY', 'UA', 'AM', 'AZ', 'GE', 'KG', 'MD', 'TJ', 'UZ', 'TM'] as const;
/**
 * ISO 3166 codes, comma- or space-separated, any case (`ru, kz`), each one libphonenumber knows; `*`: any
 * country (mobiles only all the same). A set, or null for `*`.
 */
const smsCountries = z
  .string()
  .trim()
  .transform((v, ctx): ReadonlySet<string> | null => {
    if (v === '*') return null;
    const codes = v.toUpperCase().split(/[\s,]+/).filter(Boolean);
    const unknown = codes.find((c) => !isSupportedCountry(c));
    if (codes.length === 0 || unknown) {
      ctx.addIssue({ code: 'custom', message: `ожидаются коды стран ISO через запятую (RU,KZ,BY) или *${unknown ? `; неизвестный код ${unknown}` : ''}` });
      return z.NEVER;
    }
    return new Set(codes);
  });

/** An address, or a CIDR whose prefix fits its family: Fastify's proxy check would throw on anything else, later and with a stack. */
function isCidr(text: string) {
  const [address = '', prefix, ...rest] = text.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
}
/**
 * Which peers may speak for the client in X-Forwarded-*: off, a hop count (how many proxies stand
 * in front; `true` means one), or proxies' addresses and CIDRs, comma-separated.
 */
const trustProxy = z
  .string()
  .trim()
  .transform((v, ctx): false | number | string[] => {
    const low = v.toLowerCase();
    if (low === '' || low === 'false' || low === 'no' || low === '0') return false;
    if (low === 'true' || low === 'yes') return 1;
    if (/^\d+$/.test(low)) return Number(low);
    const list = low.split(',').map((x) => x.trim()).filter(Boolean);
    if (list.every(isCidr)) return list;
    ctx.addIssue({ code: 'custom', message: 'ожидается число прокси или список адресов/CIDR через запятую' });
    return z.NEVER;
  });

export const ConfigSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('production'),
    HOST: z.string().default('0.0.0.0'),
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    TRUST_PROXY: trustProxy.default(false),
    // Multiplies every rate limit (benchmarks set it high to run the same checks without hitting them).
    RATE_LIMIT_SCALE: z.coerce.number().positive().max(1_000_000).default(1),
    TELEGRAM_AUTH_MAX_AGE_S: z.coerce.number().int().min(60).max(86_400).default(3600),
    PUBLIC_URL: optionalUrl,
    DATA_DIR: z.string().default('./data'),
    DATABASE_URL: optionalString.pipe(
      z
        .string()
        .regex(/^postgres(ql)?:\/\//, 'должен начинаться с postgres://')
        .optional(),
    ),
    // PostgreSQL only: connections this process keeps (one of them held by the realtime adapter); each process has its own.
    DATABASE_POOL_SIZE: z.coerce.number().int().min(2).max(200).default(8),
    WEB_DIST: z.string().optional(),
    DEMO_SERVERS: boolish.default(true),
    ADMIN_EMAIL: optionalString.pipe(z.email().optional()),
    ADMIN_PASSWORD: optionalString.pipe(z.string().min(8).max(128).optional()),
    SMTP_URL: optionalString.pipe(
      z
        .string()
        .regex(/^smtps?:\/\//, 'должен начинаться с smtp:// или smtps://')
        .optional(),
    ),
    // The service's name in mails, SMS and the web app; the support contacts on the contacts page.
    BRAND_NAME: z.string().trim().min(1).max(64).default(BUILT_BRAND),
    SUPPORT_EMAIL: optionalString.pipe(z.email().optional()),
    SUPPORT_TELEGRAM: optionalString.pipe(
      z
        .string()
        .transform((v) => v.replace(/^@|^https:\/\/t\.me\//, ''))
        .pipe(z.string().regex(/^[A-Za-z0-9_]{5,32}$/, 'имя пользователя Telegram, например @adena_support'))
        .optional(),
    ),
    /** Default: the brand with no-reply@adena.local. */
    MAIL_FROM: optionalString,
    // Seals mail and SMS jobs (their one-time codes) in the database; unset = a random key kept in
    // the database (decision record 0020). Any string of 32+ characters, e.g. `openssl rand -hex 32`.
    SECRET_KEY: optionalString.pipe(z.string().min(32, 'не короче 32 символов').optional()),
    SMS_API_URL: optionalUrl,
    SMS_API_KEY: optionalString,
    SMS_FROM: optionalString,
    // Toll fraud (README "Security"): sign-up codes go by SMS only to mobiles of these countries, and at most
    // this many an hour and a day over all processes (codes, their resends, the note to a registered number);
    // a reset to a number confirmed on an account is never held back by them. 0: no sign-up by phone.
    SMS_COUNTRIES: smsCountries.prefault(DEFAULT_SMS_COUNTRIES.join(',')),
    SMS_SIGNUP_PER_HOUR: z.coerce.number().int().min(0).max(1_000_000).default(60),
    SMS_SIGNUP_PER_DAY: z.coerce.number().int().min(0).max(10_000_000).default(300),
    DISCORD_CLIENT_ID: optionalString,
    DISCORD_CLIENT_SECRET: optionalString,
    DISCORD_API_URL: httpUrl().default('https://discord.com/api/v10'),
    DISCORD_AUTHORIZE_URL: httpUrl().default('https://discord.com/oauth2/authorize'),
    TELEGRAM_BOT_TOKEN: optionalString,
    TELEGRAM_BOT_USERNAME: optionalString,
    TELEGRAM_API_URL: httpUrl().default('https://api.telegram.org'),
    // The operators' shift (decision record 0023): a claim without activity lapses after this many
    // minutes; operators are alerted in Telegram about a request waiting unclaimed this long.
    CLAIM_TIMEOUT_MIN: z.coerce.number().int().min(1).max(1440).default(15),
    OPERATOR_ALERT_MIN: z.coerce.number().int().min(1).max(1440).default(10),
    // Seller webhooks (decision record 0022): the first retry's delay, and whether private addresses may be called.
    WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().min(1).max(3_600_000).default(5000),
    WEBHOOK_ALLOW_PRIVATE: boolish.default(false),
    WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(1000).max(120_000).default(10_000),
    // Sessions (PRODUCT.md section 7): an access token ends after this long without use, and this long after sign-in in any case.
    SESSION_IDLE_HOURS: z.coerce.number().int().min(1).max(24 * 365).default(24),
    SESSION_MAX_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
    // Admin calls need the admin's TOTP on (PRODUCT.md section 7); false only for a closed test setup.
    ADMIN_REQUIRE_2FA: boolish.default(true),
    // Prometheus metrics at GET /metrics on a listener of their own; unset = off (PRODUCT.md section 9).
    METRICS_PORT: optionalString.pipe(z.string().regex(/^\d+$/, 'должен быть числом').transform(Number).pipe(z.number().int().max(65535)).optional()),
    // After SIGTERM /api/ready answers 503 at once; the process keeps serving this long, then closes.
    SHUTDOWN_DELAY_MS: z.coerce.number().int().min(0).max(600_000).default(5000),
    // Where npm run backup / restore find pg_dump and pg_restore (default: Debian's newest, else PATH).
    PG_BIN_DIR: optionalString,
    // off: no job worker and nothing queued at start (a server on a restored copy of the database, which
    // would send its queued webhooks, Telegram notices, mail and SMS codes again, and move the bot's webhook).
    JOBS: z.enum(['on', 'off'], { error: 'ожидается on или off' }).default('on'),
  })
  .superRefine((c, ctx) => {
    if (Boolean(c.ADMIN_EMAIL) !== Boolean(c.ADMIN_PASSWORD)) {
      ctx.addIssue({
        code: 'custom',
        path: [c.ADMIN_EMAIL ? 'ADMIN_PASSWORD' : 'ADMIN_EMAIL'],
        message: 'ADMIN_EMAIL и ADMIN_PASSWORD задаются вместе',
      });
    }
    if (Boolean(c.SMS_API_URL) !== Boolean(c.SMS_API_KEY)) {
      ctx.addIssue({
        code: 'custom',
        path: [c.SMS_API_URL ? 'SMS_API_KEY' : 'SMS_API_URL'],
        message: 'SMS_API_URL и SMS_API_KEY задаются вместе',
      });
    }
  })
  .transform((c) => ({ ...c, MAIL_FROM: c.MAIL_FROM ?? `"${c.BRAND_NAME.replace(/["\\]/g, '')}" <no-reply@adena.local>` }));

export type Config = z.infer<typeof ConfigSchema>;

export class ConfigError extends Error {}

/** Settings whose value is a secret: a refusal names them but never shows the value (it reaches the logs). */
const SECRET_SETTINGS = new Set(['SECRET_KEY', 'ADMIN_PASSWORD', 'SMS_API_KEY', 'DISCORD_CLIENT_SECRET', 'TELEGRAM_BOT_TOKEN']);

/**
 * A refused value as the start-up error may show it: secrets hidden, a URL's credentials (all up to the
 * last `@`, after the scheme if there is one: a password may hold `/` or `@`, and a refused URL may lack its
 * scheme) and a `password=` of a key/value connection string masked.
 */
function shown(name: string, value: string) {
  if (SECRET_SETTINGS.has(name)) return `(hidden, ${value.length} characters)`;
  const masked = value
    .replace(/^([a-z][a-z0-9+.-]*:\/\/)?[\s\S]*@/i, (_all, scheme: string | undefined) => `${scheme ?? ''}***@`)
    .replace(/(password\s*=\s*)('[^']*'|\S+)/gi, '$1***');
  return JSON.stringify(masked);
}

/** Reads the environment once; nothing else in the server touches process.env. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // An empty setting is an unset one, for every setting (`ADMIN_REQUIRE_2FA=` in an env file, compose's
  // `${X:-}`): it read as false for the yes/no settings, turning the admins' second factor off, and as 0
  // for PORT and SHUTDOWN_DELAY_MS.
  const given = Object.fromEntries(Object.entries(env).filter(([, v]) => v === undefined || v.trim() !== ''));
  const result = ConfigSchema.safeParse(given);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const name = issue.path.join('.') || 'environment';
    throw new ConfigError(`Invalid setting ${name}=${shown(name, env[name] ?? '')}: ${issue.message}`);
  }
  return result.data;
}
