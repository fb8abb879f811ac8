import { sql } from 'kysely';
import { afterAll, beforeAll, expect } from 'vitest';
import type { DbKind } from '../src/db/client';
import { smsRefusal } from '../src/modules/notifications/sms-numbers';
import { startDiscord } from './fakes/discord';
import { startSmsGateway } from './fakes/sms-gateway';
import { startSmtp } from './fakes/smtp';
import { createTestApp, createTestDb, type TestApp, type TestDb } from './harness';

export const BOT_TOKEN = '7000000123:AAFakeBotTokenForTests_0123456789ab';
export const DISCORD = { id: '1100223344556677889', secret: 'discord-test-secret' };
const SMS_KEY = 'sms-ru-test-key';
export const PASSWORD = 'correct horse 1';

let ipSeq = 0;
/** Each request from its own address unless a test says otherwise, so per-IP limits stay out of the way. */
export const nextIp = () => `10.${Math.floor(++ipSeq / 65536) % 256}.${Math.floor(ipSeq / 256) % 256}.${ipSeq % 256}`;
let addrSeq = 0;
export const newEmail = () => `player${++addrSeq}.${Date.now()}@example.com`;
/**
 * A random +79XX block per file, one that SMS may reach: +7930… is no mobile range in libphonenumber's metadata, so
 * a file that drew 30 had every phone sign-up refused with 422 (a clean-clone run failed on it once in 89 draws).
 */
function mobileBase(): number {
  for (;;) {
    const base = 10 + Math.floor(Math.random() * 89);
    if (smsRefusal(`+79${base}0000001`, null) === null && smsRefusal(`+79${base}9999999`, null) === null) return base;
  }
}
const PHONE_BASE = mobileBase();
export const newPhone = () => `+79${PHONE_BASE}${String(++addrSeq).padStart(7, '0')}`;

export interface AccountsWorld {
  db: TestDb;
  /** SMTP, SMS gateway, Discord and Telegram all configured. */
  t: TestApp;
  /** Nothing configured: every message goes to the outbox. */
  bare: TestApp;
  smtp: Awaited<ReturnType<typeof startSmtp>>;
  sms: Awaited<ReturnType<typeof startSmsGateway>>;
  discord: Awaited<ReturnType<typeof startDiscord>>;
}

/** The browser key cookie (Discord's state is bound to it); every helper call is this browser unless told. */
export const BROWSER = 'test-browser-key-0123456789abcdef';
type Opts = { ip?: string; token?: string; app?: TestApp; browser?: string | null; headers?: Record<string, string> };
const headersOf = (o: Opts) => ({
  ...(o.token ? { authorization: `Bearer ${o.token}` } : {}),
  ...(o.browser === null ? {} : { cookie: `aw_browser=${o.browser ?? BROWSER}` }),
  ...o.headers,
});

/**
 * The accounts calls' test world, for one describe block: two apps on one database (one with every
 * outside service faked, one with none), started before its tests and closed after; `world` is
 * filled in by then. The helpers sign up the way a player does, through the faked mail and SMS.
 */
export function useAccountsWorld(kind: DbKind) {
  const world = {} as AccountsWorld;

  beforeAll(async () => {
    const [smtp, sms, discord, db] = await Promise.all([startSmtp(), startSmsGateway(SMS_KEY), startDiscord(DISCORD), createTestDb(kind)]);
    Object.assign(world, { smtp, sms, discord, db });
    world.t = await createTestApp(kind, {
      db,
      env: {
        SMTP_URL: smtp.url,
        MAIL_FROM: 'Кошелёк Тест <no-reply@adena.test>',
        BRAND_NAME: 'Кошелёк Тест',
        SMS_API_URL: sms.url,
        SMS_API_KEY: SMS_KEY,
        DISCORD_CLIENT_ID: DISCORD.id,
        DISCORD_CLIENT_SECRET: DISCORD.secret,
        DISCORD_API_URL: discord.url,
        TELEGRAM_BOT_TOKEN: BOT_TOKEN,
        TELEGRAM_BOT_USERNAME: 'adena_test_bot',
        PUBLIC_URL: 'https://adena.test',
      },
    });
    // Mail and SMS are jobs of the queue: the app that has them configured runs its worker.
    await world.t.app.deps.jobs.start();
    world.bare = await createTestApp(kind, { db, seed: false });
  });
  afterAll(async () => {
    await world.bare?.close();
    await world.t?.close();
    await world.db?.close();
    await Promise.all([world.smtp?.close(), world.sms?.close(), world.discord?.close()]);
  });

  const post = (url: string, payload: unknown, o: Opts = {}) =>
    (o.app ?? world.t).app.inject({
      method: 'POST',
      url,
      payload: payload as object,
      remoteAddress: o.ip ?? nextIp(),
      headers: headersOf(o),
    });
  const get = (url: string, o: Opts = {}) =>
    (o.app ?? world.t).app.inject({ method: 'GET', url, remoteAddress: o.ip ?? nextIp(), headers: headersOf(o) });
  const me = (token: string) => get('/api/user', { token });

  /** Lets the database believe the last code went out more than a minute ago. */
  const ageFlows = (address: string, seconds = 61) =>
    world.db.kysely
      .updateTable('auth_flows')
      .set({ last_sent_at: sql<Date>`last_sent_at - make_interval(secs => ${seconds})` })
      .where('address', '=', address)
      .execute();

  async function registerByEmail(email = newEmail(), extra: { name?: string } = {}) {
    const start = await post('/api/email_register', { email, password: PASSWORD, password_confirmation: PASSWORD, ...extra });
    expect(start.statusCode).toBe(200);
    const mail = await world.smtp.next(email);
    const res = await post('/api/code_verification_email_register', { email_token: start.json().email_token, code: mail.code });
    expect(res.statusCode).toBe(200);
    return { email, ...(res.json() as { access_token: string; user: { id: number; email: string; name: string } }) };
  }

  async function registerByPhone(phone = newPhone()) {
    const start = await post('/api/phone_register', { phone, password: PASSWORD, password_confirmation: PASSWORD });
    expect(start.statusCode).toBe(200);
    const msg = await world.sms.next(phone);
    const res = await post('/api/code_verification_phone_register', { phone_token: start.json().phone_token, code: msg.code });
    expect(res.statusCode).toBe(200);
    return { phone, ...(res.json() as { access_token: string; user: { id: number; phone: string } }) };
  }

  return { world, post, get, me, ageFlows, registerByEmail, registerByPhone };
}
