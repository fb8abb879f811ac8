import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, createTestDb, DB_KINDS, type TestApp, type TestDb } from '../../../test/harness';
import { hashToken } from '../../lib/tokens';
import {
  readOutbox,
  signInitData,
  signWidget,
  startDiscord,
  startSmsGateway,
  startSmtp,
  waitFor,
} from './test-servers';

const BOT_TOKEN = '7000000123:AAFakeBotTokenForTests_0123456789ab';
const DISCORD = { id: '1100223344556677889', secret: 'discord-test-secret' };
const SMS_KEY = 'sms-ru-test-key';

let ipSeq = 0;
/** Each request from its own address unless a test says otherwise, so per-IP limits stay out of the way. */
const nextIp = () => `10.${Math.floor(++ipSeq / 65536) % 256}.${Math.floor(ipSeq / 256) % 256}.${ipSeq % 256}`;
let addrSeq = 0;
const newEmail = () => `player${++addrSeq}.${Date.now()}@example.com`;
const PHONE_BASE = 10 + Math.floor(Math.random() * 89);
const newPhone = () => `+79${PHONE_BASE}${String(++addrSeq).padStart(7, '0')}`;
const PASSWORD = 'correct horse 1';

describe.each(DB_KINDS)('accounts and sessions on %s', (kind) => {
  let db: TestDb;
  /** SMTP, SMS gateway, Discord and Telegram all configured. */
  let t: TestApp;
  /** Nothing configured: every message goes to the outbox. */
  let bare: TestApp;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let sms: Awaited<ReturnType<typeof startSmsGateway>>;
  let discord: Awaited<ReturnType<typeof startDiscord>>;

  beforeAll(async () => {
    [smtp, sms, discord, db] = await Promise.all([startSmtp(), startSmsGateway(SMS_KEY), startDiscord(DISCORD), createTestDb(kind)]);
    t = await createTestApp(kind, {
      db,
      env: {
        SMTP_URL: smtp.url,
        MAIL_FROM: 'Adena Wallet <no-reply@adena.test>',
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
    bare = await createTestApp(kind, { db, seed: false });
  });
  afterAll(async () => {
    await bare?.close();
    await t?.close();
    await db?.close();
    await Promise.all([smtp?.close(), sms?.close(), discord?.close()]);
  });

  type Opts = { ip?: string; token?: string; app?: TestApp };
  const post = (url: string, payload: unknown, o: Opts = {}) =>
    (o.app ?? t).app.inject({
      method: 'POST',
      url,
      payload: payload as object,
      remoteAddress: o.ip ?? nextIp(),
      headers: o.token ? { authorization: `Bearer ${o.token}` } : {},
    });
  const get = (url: string, o: Opts = {}) =>
    (o.app ?? t).app.inject({ method: 'GET', url, remoteAddress: o.ip ?? nextIp(), headers: o.token ? { authorization: `Bearer ${o.token}` } : {} });
  const me = (token: string) => get('/api/user', { token });

  /** Lets the database believe the last code went out more than a minute ago. */
  const ageFlows = (address: string, seconds = 61) =>
    db.kysely
      .updateTable('auth_flows')
      .set({ last_sent_at: sql<Date>`last_sent_at - make_interval(secs => ${seconds})` })
      .where('address', '=', address)
      .execute();

  async function registerByEmail(email = newEmail(), extra: { name?: string } = {}) {
    const start = await post('/api/email_register', { email, password: PASSWORD, password_confirmation: PASSWORD, ...extra });
    expect(start.statusCode).toBe(200);
    const mail = await smtp.next(email);
    const res = await post('/api/code_verification_email_register', { email_token: start.json().email_token, code: mail.code });
    expect(res.statusCode).toBe(200);
    return { email, ...(res.json() as { access_token: string; user: { id: number; email: string; name: string } }) };
  }

  async function registerByPhone(phone = newPhone()) {
    const start = await post('/api/phone_register', { phone, password: PASSWORD, password_confirmation: PASSWORD });
    expect(start.statusCode).toBe(200);
    const msg = await sms.next(phone);
    const res = await post('/api/code_verification_phone_register', { phone_token: start.json().phone_token, code: msg.code });
    expect(res.statusCode).toBe(200);
    return { phone, ...(res.json() as { access_token: string; user: { id: number; phone: string } }) };
  }

  describe('sign-up', () => {
    it('signs up by email with the code from a real SMTP mail, and is signed in', async () => {
      const email = newEmail();
      const start = await post('/api/email_register', {
        email: `  ${email.toUpperCase()} `,
        password: PASSWORD,
        password_confirmation: PASSWORD,
        name: 'Ронин',
      });
      expect(start.statusCode).toBe(200);
      expect(Object.keys(start.json())).toEqual(['email_token']);
      const mail = await smtp.next(email);
      expect(mail.subject).toMatch(/Код подтверждения/);
      expect(mail.text).toMatch(/действует 10 минут/);
      expect(mail.code).toMatch(/^\d{6}$/);
      // No account exists before the code is checked.
      expect(await db.kysely.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst()).toBeUndefined();

      const res = await post('/api/code_verification_email_register', { email_token: start.json().email_token, code: mail.code });
      expect(res.statusCode).toBe(200);
      const { access_token, user } = res.json();
      expect(user).toMatchObject({ email, phone: null, name: 'Ронин', admin: false, vip: false, telegram_linked: false });
      expect((await me(access_token)).json()).toEqual(user);
      // The token is stored only as its hash.
      const stored = await db.kysely.selectFrom('tokens').select(['token_hash', 'kind']).where('user_id', '=', user.id).execute();
      expect(stored).toEqual([{ token_hash: hashToken(access_token), kind: 'access' }]);
      const row = await db.kysely.selectFrom('users').select('password_hash').where('id', '=', user.id).executeTakeFirstOrThrow();
      expect(row.password_hash).toMatch(/^\$argon2id\$/);
      // The flow is spent: the same code does not sign in twice.
      const again = await post('/api/code_verification_email_register', { email_token: start.json().email_token, code: mail.code });
      expect(again.statusCode).toBe(422);
    });

    it('signs up by phone with the code from the SMS gateway', async () => {
      const phone = newPhone();
      const spaced = `${phone.slice(0, 2)} (${phone.slice(2, 5)}) ${phone.slice(5, 8)}-${phone.slice(8)}`;
      const start = await post('/api/phone_register', { phone: spaced, password: PASSWORD, password_confirmation: PASSWORD });
      expect(start.statusCode).toBe(200);
      const msg = await sms.next(phone);
      expect(msg.text).toMatch(/код подтверждения \d{6}/);
      const res = await post('/api/code_verification_phone_register', { phone_token: start.json().phone_token, code: msg.code });
      expect(res.statusCode).toBe(200);
      expect(res.json().user).toMatchObject({ phone, email: null, name: `Игрок ${phone.slice(-4)}` });
    });

    it('gets a new code no sooner than a minute later; the new token and code replace the old ones', async () => {
      const email = newEmail();
      const start = await post('/api/email_register', { email, password: PASSWORD, password_confirmation: PASSWORD });
      const first = await smtp.next(email);
      const token1 = start.json().email_token;

      const early = await post('/api/new_token_email_register', { email_token: token1 });
      expect(early.statusCode).toBe(429);
      expect(Number(early.headers['retry-after'])).toBeGreaterThanOrEqual(55);
      expect(Number(early.headers['retry-after'])).toBeLessThanOrEqual(60);
      expect(early.json().message).toMatch(/через \d+ с/);

      await ageFlows(email);
      const resent = await post('/api/new_token_email_register', { email_token: token1 });
      expect(resent.statusCode).toBe(200);
      const token2 = resent.json().email_token;
      expect(token2).not.toBe(token1);
      const second = await smtp.next(email, 2);

      // The old token is gone, whatever code comes with it.
      expect((await post('/api/code_verification_email_register', { email_token: token1, code: first.code })).statusCode).toBe(422);
      if (first.code !== second.code) {
        expect((await post('/api/code_verification_email_register', { email_token: token2, code: first.code })).statusCode).toBe(422);
      }
      const ok = await post('/api/code_verification_email_register', { email_token: token2, code: second.code });
      expect(ok.statusCode).toBe(200);
    });

    it('two resends at once send one code: the other finds its token already replaced', async () => {
      const email = newEmail();
      const start = await post('/api/email_register', { email, password: PASSWORD, password_confirmation: PASSWORD });
      await smtp.next(email);
      await ageFlows(email);
      const both = await Promise.all([1, 2].map(() => post('/api/new_token_email_register', { email_token: start.json().email_token })));
      expect(both.map((r) => r.statusCode).sort()).toEqual([200, 422]);
      const winner = both.find((r) => r.statusCode === 200)!.json().email_token;
      const mail = await smtp.next(email, 2);
      expect((await post('/api/code_verification_email_register', { email_token: winner, code: mail.code })).statusCode).toBe(200);
      expect(smtp.messages.filter((m) => m.to === email)).toHaveLength(2);
    });

    it('a second sign-up of the same address within a minute is refused with 429 and Retry-After', async () => {
      const email = newEmail();
      await post('/api/email_register', { email, password: PASSWORD, password_confirmation: PASSWORD });
      const again = await post('/api/email_register', { email, password: PASSWORD, password_confirmation: PASSWORD });
      expect(again.statusCode).toBe(429);
      expect(again.headers['retry-after']).toBeDefined();
    });

    it('five wrong codes kill the token: even the right code is then refused', async () => {
      const email = newEmail();
      const ip = nextIp();
      const start = await post('/api/email_register', { email, password: PASSWORD, password_confirmation: PASSWORD });
      const { code } = await smtp.next(email);
      const token = start.json().email_token;
      const wrong = code === '000000' ? '000001' : '000000';
      const answers = [];
      for (let i = 0; i < 5; i++) answers.push(await post('/api/code_verification_email_register', { email_token: token, code: wrong }, { ip }));
      expect(answers.slice(0, 4).map((r) => r.statusCode)).toEqual([422, 422, 422, 422]);
      expect(answers[0]!.json().errors.code).toEqual(['Неверный код. Осталось попыток: 4']);
      expect(answers[3]!.json().errors.code).toEqual(['Неверный код. Осталось попыток: 1']);
      expect(answers[4]!.statusCode).toBe(429);
      expect(answers[4]!.json().errors.code[0]).toMatch(/Слишком много неверных попыток/);

      const right = await post('/api/code_verification_email_register', { email_token: token, code });
      expect(right.statusCode).toBe(429);
      expect(right.headers['retry-after']).toBeDefined();
      const resend = await post('/api/new_token_email_register', { email_token: token });
      expect(resend.statusCode).toBe(429);
      expect(await db.kysely.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst()).toBeUndefined();
    });

    it('five wrong codes sent in parallel are counted one by one', async () => {
      const email = newEmail();
      const start = await post('/api/email_register', { email, password: PASSWORD, password_confirmation: PASSWORD });
      const { code } = await smtp.next(email);
      const wrong = code === '111111' ? '222222' : '111111';
      await Promise.all(
        Array.from({ length: 8 }, () => post('/api/code_verification_email_register', { email_token: start.json().email_token, code: wrong })),
      );
      const flow = await db.kysely.selectFrom('auth_flows').select('tries').where('address', '=', email).executeTakeFirstOrThrow();
      expect(flow.tries).toBe(5);
      expect((await post('/api/code_verification_email_register', { email_token: start.json().email_token, code })).statusCode).toBe(429);
    });

    it('a code older than ten minutes is refused', async () => {
      const email = newEmail();
      const start = await post('/api/email_register', { email, password: PASSWORD, password_confirmation: PASSWORD });
      const { code } = await smtp.next(email);
      await db.kysely.updateTable('auth_flows').set({ expires_at: new Date(Date.now() - 1000) }).where('address', '=', email).execute();
      const res = await post('/api/code_verification_email_register', { email_token: start.json().email_token, code });
      expect(res.statusCode).toBe(422);
      expect(res.json().errors.code).toEqual(['Код устарел или уже использован. Запросите новый код']);
    });

    it('signing up with a registered email answers exactly like a new one; the owner is told instead of getting a code', async () => {
      const { email: taken } = await registerByEmail();
      await ageFlows(taken);
      const fresh = newEmail();
      const body = { password: PASSWORD, password_confirmation: PASSWORD };
      const a = await post('/api/email_register', { email: taken, ...body });
      const b = await post('/api/email_register', { email: fresh, ...body });
      expect(a.statusCode).toBe(b.statusCode);
      expect(Object.keys(a.json())).toEqual(Object.keys(b.json()));
      expect(a.json().email_token).toMatch(/^[\w-]{43}$/);
      expect(b.json().email_token).toMatch(/^[\w-]{43}$/);
      expect(a.headers['content-length']).toBe(b.headers['content-length']);

      const note = await smtp.next(taken, 2);
      expect(note.code).toBeNull();
      expect(note.subject).toMatch(/уже есть аккаунт/);
      expect(note.text).toMatch(/https:\/\/adena\.test\/auth\/reset\/email/);
      const real = await smtp.next(fresh);
      expect(real.code).toMatch(/^\d{6}$/);

      // Its token then behaves like a real one that never gets the right code.
      const guess = await post('/api/code_verification_email_register', { email_token: a.json().email_token, code: real.code });
      const wrongForFresh = await post('/api/code_verification_email_register', {
        email_token: b.json().email_token,
        code: real.code === '123456' ? '654321' : '123456',
      });
      expect(guess.statusCode).toBe(wrongForFresh.statusCode);
      expect(guess.json()).toEqual(wrongForFresh.json());
      // A resend a minute later answers the same way too.
      await ageFlows(taken);
      await ageFlows(fresh);
      const ra = await post('/api/new_token_email_register', { email_token: a.json().email_token });
      const rb = await post('/api/new_token_email_register', { email_token: b.json().email_token });
      expect([ra.statusCode, Object.keys(ra.json())]).toEqual([rb.statusCode, Object.keys(rb.json())]);
    });

    it('signing up with a registered phone answers like a new one, and the owner gets an SMS note', async () => {
      const { phone: taken } = await registerByPhone();
      await ageFlows(taken);
      const body = { password: PASSWORD, password_confirmation: PASSWORD };
      const a = await post('/api/phone_register', { phone: taken, ...body });
      const b = await post('/api/phone_register', { phone: newPhone(), ...body });
      expect([a.statusCode, Object.keys(a.json())]).toEqual([b.statusCode, Object.keys(b.json())]);
      const note = await sms.next(taken, 2);
      expect(note.code).toBeNull();
      expect(note.text).toMatch(/уже есть аккаунт/);
    });

    it('wrong input answers 422 with Russian messages per field', async () => {
      const res = await post('/api/email_register', { email: 'not-an-email', password: 'short', password_confirmation: 'other' });
      expect(res.statusCode).toBe(422);
      expect(res.json()).toEqual({
        message: 'Проверьте введённые данные',
        errors: {
          email: ['Введите корректный email'],
          password: ['Пароль должен быть не короче 8 символов'],
          password_confirmation: ['Пароли не совпадают'],
        },
      });
      const mismatch = await post('/api/email_register', { email: newEmail(), password: PASSWORD, password_confirmation: 'другой пароль' });
      expect(mismatch.json().errors).toEqual({ password_confirmation: ['Пароли не совпадают'] });
      const phone = await post('/api/phone_register', { phone: '8900', password: PASSWORD, password_confirmation: PASSWORD });
      expect(phone.json().errors.phone[0]).toMatch(/международном формате/);
      const code = await post('/api/code_verification_email_register', { email_token: 'x', code: '12a456' });
      expect(code.statusCode).toBe(422);
      expect(code.json().errors.code).toEqual(['Код состоит из 6 цифр']);
      const missing = await post('/api/login', {});
      expect(missing.statusCode).toBe(422);
      expect(missing.json().errors).toMatchObject({ email: ['Обязательное поле'], password: ['Обязательное поле'] });
    });
  });

  describe('sign-in and sessions', () => {
    it('signs in by email and by phone, each time with a new token', async () => {
      const { email, access_token: first } = await registerByEmail();
      const res = await post('/api/login', { email: email.toUpperCase(), password: PASSWORD });
      expect(res.statusCode).toBe(200);
      expect(res.json().access_token).not.toBe(first);
      expect(res.json().user.email).toBe(email);
      const { phone } = await registerByPhone();
      const byPhone = await post('/api/phone_login', { phone, password: PASSWORD });
      expect(byPhone.statusCode).toBe(200);
      expect(byPhone.json().user.phone).toBe(phone);
    });

    it('a wrong password and an unknown login answer alike', async () => {
      const { email } = await registerByEmail();
      const wrong = await post('/api/login', { email, password: 'wrong password' });
      const unknown = await post('/api/login', { email: newEmail(), password: 'wrong password' });
      expect(wrong.statusCode).toBe(401);
      expect(unknown.statusCode).toBe(401);
      expect(wrong.json()).toEqual(unknown.json());
      expect(wrong.json()).toEqual({ message: 'Неверный логин или пароль' });
      const phoneUnknown = await post('/api/phone_login', { phone: newPhone(), password: 'x' });
      expect(phoneUnknown.json()).toEqual(wrong.json());
    });

    it('ten failed sign-ins lock the account for a while, from any address, even with the right password', async () => {
      const { email } = await registerByEmail();
      for (let i = 0; i < 10; i++) expect((await post('/api/login', { email, password: `wrong ${i}` })).statusCode).toBe(401);
      const locked = await post('/api/login', { email, password: PASSWORD });
      expect(locked.statusCode).toBe(429);
      expect(locked.json().message).toBe('Слишком много попыток. Попробуйте позже');
      const retryAfter = Number(locked.headers['retry-after']);
      expect(retryAfter).toBeGreaterThan(14 * 60);
      expect(retryAfter).toBeLessThanOrEqual(15 * 60);
      // An unknown login is limited the same way, so the lock reveals nothing either.
      const ghost = newEmail();
      for (let i = 0; i < 10; i++) await post('/api/login', { email: ghost, password: 'x' });
      expect((await post('/api/login', { email: ghost, password: 'x' })).statusCode).toBe(429);
      // When the window has passed, the right password works again.
      await db.kysely.updateTable('rate_limits').set({ window_start: new Date(Date.now() - 16 * 60_000) }).where('key', '=', `login:acct:email:${email}`).execute();
      expect((await post('/api/login', { email, password: PASSWORD })).statusCode).toBe(200);
    });

    it('a burst of parallel wrong passwords gets no more than ten tries', async () => {
      const { email } = await registerByEmail();
      const answers = await Promise.all(Array.from({ length: 16 }, (_, i) => post('/api/login', { email, password: `burst ${i}` })));
      const statuses = answers.map((r) => r.statusCode);
      expect(statuses.filter((s) => s === 401).length).toBe(10);
      expect(statuses.filter((s) => s === 429).length).toBe(6);
    });

    it('one address cannot try passwords endlessly across accounts', async () => {
      const ip = nextIp();
      const statuses = [];
      for (let i = 0; i < 51; i++) statuses.push((await post('/api/login', { email: newEmail(), password: 'x' }, { ip })).statusCode);
      expect(statuses.slice(0, 50).every((s) => s === 401)).toBe(true);
      expect(statuses[50]).toBe(429);
    });

    it('a blocked player is refused sign-in with 403 and the Russian message', async () => {
      const { email, user } = await registerByEmail();
      await db.kysely.updateTable('users').set({ blocked_at: new Date() }).where('id', '=', user.id).execute();
      const res = await post('/api/login', { email, password: PASSWORD });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ message: 'Ваш аккаунт заблокирован. Обратитесь в поддержку' });
      // A wrong password still gets the plain 401: the block is shown only to the owner.
      expect((await post('/api/login', { email, password: 'wrong password' })).statusCode).toBe(401);
    });

    it('GET /user needs a live token', async () => {
      expect((await get('/api/user')).statusCode).toBe(401);
      const res = await get('/api/user', { token: 'made-up' });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ message: 'Необходимо выполнить вход' });
    });

    it('logout ends that token only', async () => {
      const { email, access_token: a } = await registerByEmail();
      const b = (await post('/api/login', { email, password: PASSWORD })).json().access_token;
      const out = await get('/api/logout', { token: a });
      expect(out.statusCode).toBe(200);
      expect(out.json()).toEqual({ logout: true });
      expect((await me(a)).statusCode).toBe(401);
      expect((await me(b)).statusCode).toBe(200);
      expect((await get('/api/logout', { token: a })).statusCode).toBe(401);
      expect((await get('/api/logout')).statusCode).toBe(401);
    });
  });

  describe('password reset', () => {
    it('resets the password by email; every old session ends and the old password stops working', async () => {
      const { email, access_token: s1 } = await registerByEmail();
      const s2 = (await post('/api/login', { email, password: PASSWORD })).json().access_token;
      const start = await post('/api/email_reset_password_code_date', { email });
      expect(start.statusCode).toBe(200);
      const mail = await smtp.next(email, 2);
      expect(mail.subject).toMatch(/Восстановление пароля/);
      const check = await post('/api/email_reset_password_code_check', {
        email_reset_password_token: start.json().email_reset_password_token,
        code: mail.code,
      });
      expect(check.statusCode).toBe(200);
      const npt = check.json().new_password_token;
      // Not a session token.
      expect((await me(npt)).statusCode).toBe(401);

      const created = await post('/api/email_create_new_password', { password: 'a brand new pass', password_confirmation: 'a brand new pass' }, { token: npt });
      expect(created.statusCode).toBe(200);
      expect(created.json().user.email).toBe(email);
      expect((await me(created.json().access_token)).statusCode).toBe(200);
      expect((await me(s1)).statusCode).toBe(401);
      expect((await me(s2)).statusCode).toBe(401);
      expect((await post('/api/login', { email, password: PASSWORD })).statusCode).toBe(401);
      expect((await post('/api/login', { email, password: 'a brand new pass' })).statusCode).toBe(200);
      // The new password token works once.
      const twice = await post('/api/email_create_new_password', { password: 'another one!', password_confirmation: 'another one!' }, { token: npt });
      expect(twice.statusCode).toBe(401);
    });

    it('resets the password by phone through the SMS gateway', async () => {
      const { phone, access_token: old } = await registerByPhone();
      const start = await post('/api/phone_reset_password', { phone });
      const msg = await sms.next(phone, 2);
      expect(msg.text).toMatch(/восстановления пароля \d{6}/);
      const check = await post('/api/phone_reset_password_code_check', { phone_reset_token: start.json().phone_reset_token, code: msg.code });
      expect(check.statusCode).toBe(200);
      const created = await post(
        '/api/phone_create_new_password',
        { password: 'phone new pass', password_confirmation: 'phone new pass' },
        { token: check.json().new_password_token },
      );
      expect(created.statusCode).toBe(200);
      expect((await me(old)).statusCode).toBe(401);
      expect((await post('/api/phone_login', { phone, password: 'phone new pass' })).statusCode).toBe(200);
    });

    it('reset of an unknown address answers like a known one and sends nothing', async () => {
      const { email: known } = await registerByEmail();
      const unknown = newEmail();
      const a = await post('/api/email_reset_password_code_date', { email: known });
      const b = await post('/api/email_reset_password_code_date', { email: unknown });
      expect(a.statusCode).toBe(200);
      expect([a.statusCode, Object.keys(a.json()), a.headers['content-length']]).toEqual([b.statusCode, Object.keys(b.json()), b.headers['content-length']]);
      await smtp.next(known, 2);
      // Give a stray message time to arrive, then make sure none did.
      await new Promise((r) => setTimeout(r, 200));
      expect(smtp.messages.filter((m) => m.to === unknown)).toEqual([]);
      // Guessing on the unknown address's token answers like a wrong code on a real one.
      const ga = await post('/api/email_reset_password_code_check', { email_reset_password_token: b.json().email_reset_password_token, code: '123456' });
      expect(ga.statusCode).toBe(422);
      expect(ga.json().errors.code).toEqual(['Неверный код. Осталось попыток: 4']);
      // And the minute rule holds for both.
      expect((await post('/api/email_reset_password_code_date', { email: unknown })).statusCode).toBe(429);
      expect((await post('/api/email_reset_password_code_date', { email: known })).statusCode).toBe(429);
    });

    it('one address gets at most 25 wrong codes a day, however many flows are started', async () => {
      const { email } = await registerByEmail();
      for (let flow = 0; flow < 5; flow++) {
        await ageFlows(email);
        const start = await post('/api/email_reset_password_code_date', { email });
        expect(start.statusCode).toBe(200);
        const token = start.json().email_reset_password_token;
        const { code } = await smtp.next(email, 2 + flow);
        const wrong = code === '000000' ? '000001' : '000000';
        for (let i = 0; i < 5; i++) await post('/api/email_reset_password_code_check', { email_reset_password_token: token, code: wrong });
      }
      await ageFlows(email);
      const sixth = await post('/api/email_reset_password_code_date', { email });
      const mail = await smtp.next(email, 7);
      const res = await post('/api/email_reset_password_code_check', { email_reset_password_token: sixth.json().email_reset_password_token, code: mail.code });
      expect(res.statusCode).toBe(429);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(23 * 3600);
    });

    it('refuses a new password without a new password token, and with a session token', async () => {
      const { access_token } = await registerByEmail();
      const body = { password: 'whatever pass', password_confirmation: 'whatever pass' };
      expect((await post('/api/email_create_new_password', body)).statusCode).toBe(401);
      expect((await post('/api/email_create_new_password', body, { token: access_token })).statusCode).toBe(401);
      expect((await post('/api/phone_create_new_password', body, { token: 'made-up' })).statusCode).toBe(401);
      const mismatch = await post('/api/email_create_new_password', { password: 'whatever pass', password_confirmation: 'x' }, { token: 'x' });
      expect(mismatch.statusCode).toBe(422);
    });

    it('flow tokens work only in their own flow', async () => {
      const { email } = await registerByEmail();
      const reg = await post('/api/email_register', { email: newEmail(), password: PASSWORD, password_confirmation: PASSWORD });
      const regToken = reg.json().email_token;
      const reset = await post('/api/email_reset_password_code_date', { email });
      const resetToken = reset.json().email_reset_password_token;
      const resetMail = await smtp.next(email, 2);

      // A reset token at sign-up, an email token at the phone calls, a sign-up token at reset.
      expect((await post('/api/code_verification_email_register', { email_token: resetToken, code: resetMail.code })).statusCode).toBe(422);
      expect((await post('/api/code_verification_phone_register', { phone_token: regToken, code: '123456' })).statusCode).toBe(422);
      expect((await post('/api/phone_reset_password_code_check', { phone_reset_token: resetToken, code: resetMail.code })).statusCode).toBe(422);
      expect((await post('/api/email_reset_password_code_check', { email_reset_password_token: regToken, code: '123456' })).statusCode).toBe(422);
      expect((await post('/api/new_token_phone_register', { phone_token: regToken })).statusCode).toBe(422);
      // The rightful owner's flow is unharmed by all that.
      const ok = await post('/api/email_reset_password_code_check', { email_reset_password_token: resetToken, code: resetMail.code });
      expect(ok.statusCode).toBe(200);
    });
  });

  describe('messages without SMTP or SMS gateway', () => {
    it('writes every message to the outbox as one JSON file, and sign-up works from it', async () => {
      const email = newEmail();
      const phone = newPhone();
      const start = await post('/api/email_register', { email, password: PASSWORD, password_confirmation: PASSWORD }, { app: bare });
      const file = await waitFor(() => readOutbox(bare.dataDir).find((m) => m.to === email), 'outbox mail');
      expect(file).toEqual({ to: email, channel: 'email', subject: expect.stringMatching(/Код подтверждения/), text: expect.stringContaining(file.code!), code: expect.stringMatching(/^\d{6}$/) });
      const res = await post('/api/code_verification_email_register', { email_token: start.json().email_token, code: file.code }, { app: bare });
      expect(res.statusCode).toBe(200);

      const p = await post('/api/phone_register', { phone, password: PASSWORD, password_confirmation: PASSWORD }, { app: bare });
      const sm = await waitFor(() => readOutbox(bare.dataDir).find((m) => m.to === phone), 'outbox SMS');
      expect(sm).toMatchObject({ to: phone, channel: 'sms', code: expect.stringMatching(/^\d{6}$/) });
      expect((await post('/api/code_verification_phone_register', { phone_token: p.json().phone_token, code: sm.code }, { app: bare })).statusCode).toBe(200);

      // The "already registered" note has no code.
      await ageFlows(email);
      await post('/api/email_register', { email, password: PASSWORD, password_confirmation: PASSWORD }, { app: bare });
      const note = await waitFor(() => readOutbox(bare.dataDir).filter((m) => m.to === email)[1], 'outbox note');
      expect(note.code).toBeNull();
      expect(sms.messages.find((m) => m.to === phone)).toBeUndefined();
      expect(smtp.messages.find((m) => m.to === email)).toBeUndefined();
    });

    it('still answers the same when the SMS gateway refuses a number', async () => {
      const phone = newPhone();
      sms.refuseNext();
      const res = await post('/api/phone_register', { phone, password: PASSWORD, password_confirmation: PASSWORD });
      expect(res.statusCode).toBe(200);
      expect(Object.keys(res.json())).toEqual(['phone_token']);
    });
  });

  describe('Discord', () => {
    it('offers Discord and Telegram in auth_config, each Discord link with its own state and S256 challenge', async () => {
      const a = (await get('/api/auth_config')).json();
      const b = (await get('/api/auth_config')).json();
      expect(a.telegram).toEqual({ bot_username: 'adena_test_bot', bot_id: 7000000123 });
      expect(a.discord.client_id).toBe(DISCORD.id);
      const q = new URL(a.discord.authorize_url).searchParams;
      expect(a.discord.authorize_url).toMatch(/^https:\/\/discord\.com\/oauth2\/authorize\?/);
      expect(Object.fromEntries(q)).toMatchObject({
        response_type: 'code',
        client_id: DISCORD.id,
        scope: 'identify email',
        redirect_uri: 'https://adena.test/auth/discord/callback',
        code_challenge_method: 'S256',
      });
      expect(q.get('code_challenge')).toMatch(/^[\w-]{43}$/);
      expect(q.get('state')).not.toBe(new URL(b.discord.authorize_url).searchParams.get('state'));
      // Stored hashed with its verifier, never in clear.
      const row = await db.kysely.selectFrom('oauth_states').selectAll().where('state_hash', '=', hashToken(q.get('state')!)).executeTakeFirstOrThrow();
      expect(row.code_verifier).not.toBe(q.get('code_challenge'));
      expect((await get('/api/auth_config', { app: bare })).json()).toEqual({ discord: null, telegram: null });
    });

    it('signs in with Discord: a new account the first time, the same one the next time', async () => {
      const who = { id: '987654321098765432', username: 'shadow', global_name: 'Тень', email: null, verified: false };
      const first = await post('/api/discord_auth', discord.authorize(who, (await get('/api/auth_config')).json().discord.authorize_url));
      expect(first.statusCode).toBe(200);
      expect(first.json().user).toMatchObject({ name: 'Тень', email: null });
      const row = await db.kysely.selectFrom('users').select('discord_id').where('id', '=', first.json().user.id).executeTakeFirstOrThrow();
      expect(row.discord_id).toBe('987654321098765432');
      const second = await post('/api/discord_auth', discord.authorize(who, (await get('/api/auth_config')).json().discord.authorize_url));
      expect(second.json().user.id).toBe(first.json().user.id);
    });

    it('links Discord to the account with the same verified email, and only a verified one', async () => {
      const { email, user } = await registerByEmail();
      const unverified = await post(
        '/api/discord_auth',
        discord.authorize({ id: '111000111000111000', username: 'sneaky', email, verified: false }, (await get('/api/auth_config')).json().discord.authorize_url),
      );
      expect(unverified.statusCode).toBe(200);
      expect(unverified.json().user.id).not.toBe(user.id);
      expect(unverified.json().user.email).toBeNull();

      const verified = await post(
        '/api/discord_auth',
        discord.authorize({ id: '222000222000222000', username: 'owner', email: email.toUpperCase(), verified: true }, (await get('/api/auth_config')).json().discord.authorize_url),
      );
      expect(verified.statusCode).toBe(200);
      expect(verified.json().user.id).toBe(user.id);
    });

    it('refuses an unknown or reused state, another redirect_uri, and a code Discord does not accept', async () => {
      const who = { id: '333000333000333000', username: 'x' };
      const grant = discord.authorize(who, (await get('/api/auth_config')).json().discord.authorize_url);
      const forged = await post('/api/discord_auth', { ...grant, state: 'made-up-state' });
      expect(forged.statusCode).toBe(422);
      expect(forged.json().errors.state[0]).toMatch(/устарел/);
      expect((await post('/api/discord_auth', grant)).statusCode).toBe(200);
      // The state was used up by the first sign-in.
      expect((await post('/api/discord_auth', grant)).statusCode).toBe(422);

      const other = discord.authorize(who, (await get('/api/auth_config')).json().discord.authorize_url);
      expect((await post('/api/discord_auth', { ...other, redirect_uri: 'https://evil.test/auth/discord/callback' })).statusCode).toBe(422);

      const badCode = discord.authorize(who, (await get('/api/auth_config')).json().discord.authorize_url);
      const refused = await post('/api/discord_auth', { ...badCode, code: 'not-a-code' });
      expect(refused.statusCode).toBe(401);
      expect(refused.json().message).toBe('Discord не подтвердил вход. Попробуйте ещё раз');
      // The exchange carried the PKCE verifier: Discord's side checked it against the challenge.
      expect(discord.exchanges.filter((e) => e.ok).length).toBeGreaterThan(0);
    });

    it('refuses a blocked player coming through Discord', async () => {
      const who = { id: '444000444000444000', username: 'banned' };
      const first = await post('/api/discord_auth', discord.authorize(who, (await get('/api/auth_config')).json().discord.authorize_url));
      await db.kysely.updateTable('users').set({ blocked_at: new Date() }).where('id', '=', first.json().user.id).execute();
      const again = await post('/api/discord_auth', discord.authorize(who, (await get('/api/auth_config')).json().discord.authorize_url));
      expect(again.statusCode).toBe(403);
    });

    it('answers 404 in Russian when Discord is not configured', async () => {
      const res = await post('/api/discord_auth', { code: 'c', state: 's', redirect_uri: 'https://adena.test/auth/discord/callback' }, { app: bare });
      expect(res.statusCode).toBe(404);
      expect(res.json().message).toBe('Вход через Discord не настроен');
    });
  });

  describe('Telegram', () => {
    const now = () => Math.floor(Date.now() / 1000);

    it('signs in with the Login Widget and finds the same player from the mini app', async () => {
      const widget = signWidget({ id: 5550001, first_name: 'Олег', last_name: 'Т', username: 'oleg', auth_date: now() }, BOT_TOKEN);
      const res = await post('/api/telegram_auth', widget);
      expect(res.statusCode).toBe(200);
      expect(res.json().user).toMatchObject({ name: 'Олег Т', telegram_linked: true, email: null });

      const initData = signInitData(
        [
          ['user', '{"id":5550001,"first_name":"Олег","last_name":"Т","username":"oleg","language_code":"ru","allows_write_to_pm":true}'],
          ['chat_instance', '-7001'],
          ['chat_type', 'private'],
          ['auth_date', String(now())],
          ['signature', 'c2lnbmF0dXJlLW9mLXRlbGVncmFt'],
        ],
        BOT_TOKEN,
      );
      const mini = await post('/api/web_app', { init_data: initData });
      expect(mini.statusCode).toBe(200);
      expect(mini.json().user.id).toBe(res.json().user.id);
      const row = await db.kysely.selectFrom('users').select('telegram_id').where('id', '=', res.json().user.id).executeTakeFirstOrThrow();
      expect(row.telegram_id).toBe(5550001n);
    });

    it('refuses forged and stale widget logins', async () => {
      const good = signWidget({ id: 5550002, first_name: 'A', auth_date: now() }, BOT_TOKEN);
      const forged = await post('/api/telegram_auth', { ...good, id: 5550003 });
      expect(forged.statusCode).toBe(401);
      expect(forged.json().message).toBe('Не удалось проверить данные Telegram. Попробуйте войти ещё раз');
      const otherBot = await post('/api/telegram_auth', signWidget({ id: 5550002, first_name: 'A', auth_date: now() }, '1:other'));
      expect(otherBot.statusCode).toBe(401);
      const stale = await post('/api/telegram_auth', signWidget({ id: 5550002, first_name: 'A', auth_date: now() - 86_401 }, BOT_TOKEN));
      expect(stale.statusCode).toBe(401);
      expect(stale.json().message).toBe('Данные входа Telegram устарели. Попробуйте войти ещё раз');
      const malformed = await post('/api/telegram_auth', { id: 'abc', first_name: 'A', auth_date: now(), hash: 'zz' });
      expect(malformed.statusCode).toBe(422);
      expect(await db.kysely.selectFrom('users').select('id').where('telegram_id', 'in', [5550002n, 5550003n]).execute()).toEqual([]);
    });

    it('refuses forged, stale and widget-signed mini app data', async () => {
      const pairs = (date: number): Array<[string, string]> => [
        ['auth_date', String(date)],
        ['user', '{"id":5550004,"first_name":"B"}'],
      ];
      const good = signInitData(pairs(now()), BOT_TOKEN);
      expect((await post('/api/web_app', { init_data: good.replace('5550004', '5550005') })).statusCode).toBe(401);
      expect((await post('/api/web_app', { init_data: signInitData(pairs(now() - 86_401), BOT_TOKEN) })).statusCode).toBe(401);
      expect((await post('/api/web_app', { init_data: signInitData(pairs(now()), '1:other') })).statusCode).toBe(401);
      expect((await post('/api/web_app', { init_data: 'garbage' })).statusCode).toBe(401);
      expect((await post('/api/web_app', { init_data: '' })).statusCode).toBe(422);
      // The Login Widget's key does not sign mini app data.
      const widgetSigned = signWidget({ auth_date: now(), user: '{"id":5550004,"first_name":"B"}' }, BOT_TOKEN);
      expect((await post('/api/web_app', { init_data: new URLSearchParams(widgetSigned as Record<string, string>).toString() })).statusCode).toBe(401);
      expect((await post('/api/web_app', { init_data: good })).statusCode).toBe(200);
    });

    it('refuses a blocked Telegram player and answers 404 when Telegram is not configured', async () => {
      const widget = signWidget({ id: 5550006, first_name: 'C', auth_date: now() }, BOT_TOKEN);
      const first = await post('/api/telegram_auth', widget);
      await db.kysely.updateTable('users').set({ blocked_at: new Date() }).where('id', '=', first.json().user.id).execute();
      expect((await post('/api/telegram_auth', widget)).statusCode).toBe(403);
      const off = await post('/api/web_app', { init_data: 'auth_date=1&hash=00' }, { app: bare });
      expect(off.statusCode).toBe(404);
      expect(off.json().message).toBe('Вход через Telegram не настроен');
    });
  });
});
