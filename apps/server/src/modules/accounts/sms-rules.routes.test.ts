import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { nextIp, newEmail, newPhone, PASSWORD, useAccountsWorld } from '../../../test/accounts-app';
import { startSmsGateway } from '../../../test/fakes/sms-gateway';
import { createTestApp, createTestDb, DB_KINDS, type TestApp, type TestDb } from '../../../test/harness';

const SMS_KEY = 'sms-ru-test-key';
const SIGN_UP_REFUSED = 'На этот номер мы не отправляем SMS: нужен мобильный номер России или стран СНГ';
const RESET_REFUSED = 'На этот номер мы не отправляем SMS: нужен мобильный номер';
const digits = (n: number) => String(Math.floor(Math.random() * 10 ** n)).padStart(n, '0');
const body = (phone: string) => ({ phone, password: PASSWORD, password_confirmation: PASSWORD });

/** Toll fraud (SMS pumping): a scripted sign-up to numbers the attacker earns from must not run up our SMS bill. */
describe.each(DB_KINDS)('SMS toll fraud on %s', (kind) => {
  describe('the numbers an SMS goes to', () => {
    const { world, post, ageFlows } = useAccountsWorld(kind);
    /** Another process on the same database that still allows every country: a flow opened before the setting narrowed. */
    let wide: TestApp;
    beforeAll(async () => {
      wide = await createTestApp(kind, { db: world.db, seed: false, env: { SMS_COUNTRIES: '*', SMS_API_URL: world.sms.url, SMS_API_KEY: SMS_KEY } });
    });
    afterAll(async () => {
      await wide?.close();
    });
    const flowsTo = (address: string) => world.db.kysely.selectFrom('auth_flows').select('id').where('address', '=', address).execute();

    it('premium-rate, toll-free, international-network, satellite and landline numbers are refused with 422 under phone and get no SMS', async () => {
      const refused = {
        [`+7 809 ${digits(7)}`]: 'premium rate (Russia)',
        '8 800 555-35-35': 'toll free',
        '+882 16 0123456': 'international network +882',
        '+881 2 1234 5678': 'satellite +881',
        '+7 495 123-45-67': 'landline (Moscow)',
      };
      const e164: string[] = [];
      for (const typed of Object.keys(refused)) {
        const res = await post('/api/phone_register', body(typed));
        expect([typed, res.statusCode]).toEqual([typed, 422]);
        expect(res.json().errors).toEqual({ phone: [SIGN_UP_REFUSED] });
        const number = `+${typed.replace(/^8/, '7').replace(/\D/g, '')}`;
        e164.push(number);
        // No flow: nothing is queued for it.
        expect(await flowsTo(number)).toEqual([]);
      }
      // A mobile's code, asked for after them, arrives; none of theirs ever does.
      const mobile = newPhone();
      expect((await post('/api/phone_register', body(mobile))).statusCode).toBe(200);
      await world.sms.next(mobile);
      expect(world.sms.messages.filter((m) => e164.includes(m.to))).toEqual([]);
    });

    it('a mobile of Kazakhstan or Belarus gets its code and signs up; a mobile of Germany (outside SMS_COUNTRIES) is refused', async () => {
      for (const phone of [`+7701${digits(7)}`, `+375291${digits(6)}`]) {
        const start = await post('/api/phone_register', body(phone));
        expect([phone, start.statusCode]).toEqual([phone, 200]);
        const msg = await world.sms.next(phone);
        const done = await post('/api/code_verification_phone_register', { phone_token: start.json().phone_token, code: msg.code });
        expect(done.statusCode).toBe(200);
        expect(done.json().user.phone).toBe(phone);
      }
      const german = `+49151${digits(8)}`;
      const res = await post('/api/phone_register', body(german));
      expect(res.statusCode).toBe(422);
      expect(res.json().errors).toEqual({ phone: [SIGN_UP_REFUSED] });
      expect(await flowsTo(german)).toEqual([]);
    });

    it('a sign-up flow opened for a number the setting no longer allows is not resent: 422 under phone, no second SMS', async () => {
      const german = `+49151${digits(8)}`;
      const start = await wide.app.inject({ method: 'POST', url: '/api/phone_register', payload: body(german), remoteAddress: nextIp() });
      expect(start.statusCode).toBe(200);
      await world.sms.next(german);
      await ageFlows(german);
      const resend = await post('/api/new_token_phone_register', { phone_token: start.json().phone_token });
      expect(resend.statusCode).toBe(422);
      expect(resend.json().errors).toEqual({ phone: [SIGN_UP_REFUSED] });
      // A mobile's code asked for after the resend arrives; the refused number got its first SMS only.
      const mobile = newPhone();
      await post('/api/phone_register', body(mobile));
      await world.sms.next(mobile);
      expect(world.sms.messages.filter((m) => m.to === german)).toHaveLength(1);
    });

    it("reset: a premium number is refused alike whether an account holds it or not; an old account's foreign mobile still gets its code", async () => {
      // Accounts made before the rule, with numbers sign-up now refuses.
      const premium = `+7809${digits(7)}`;
      const german = `+49151${digits(8)}`;
      await world.db.kysely
        .insertInto('users')
        .values([
          { phone: premium, name: 'Старый номер 1' },
          { phone: german, name: 'Старый номер 2' },
        ])
        .execute();
      const held = await post('/api/phone_reset_password', { phone: premium });
      const unknown = await post('/api/phone_reset_password', { phone: `+7809${digits(7)}` });
      expect(held.statusCode).toBe(422);
      expect(held.json()).toEqual({ message: expect.any(String), errors: { phone: [RESET_REFUSED] } });
      expect([unknown.statusCode, unknown.json()]).toEqual([held.statusCode, held.json()]);
      expect(await flowsTo(premium)).toEqual([]);

      const abroad = await post('/api/phone_reset_password', { phone: german });
      expect(abroad.statusCode).toBe(200);
      const msg = await world.sms.next(german);
      expect(msg.text).toMatch(/восстановления пароля \d{6}/);
      const check = await post('/api/phone_reset_password_code_check', { phone_reset_token: abroad.json().phone_reset_token, code: msg.code });
      expect(check.statusCode).toBe(200);
      expect(world.sms.messages.filter((m) => m.to === premium)).toEqual([]);
    });
  });

  describe('the sign-up SMS budget, shared by two processes on one database', () => {
    const PER_HOUR = 3;
    let db: TestDb;
    let sms: Awaited<ReturnType<typeof startSmsGateway>>;
    let a: TestApp;
    let b: TestApp;
    beforeAll(async () => {
      [db, sms] = await Promise.all([createTestDb(kind), startSmsGateway(SMS_KEY)]);
      const env = { SMS_API_URL: sms.url, SMS_API_KEY: SMS_KEY, SMS_SIGNUP_PER_HOUR: String(PER_HOUR) };
      a = await createTestApp(kind, { db, env });
      b = await createTestApp(kind, { db, env, seed: false });
      await a.app.deps.jobs.start();
    });
    afterAll(async () => {
      await b?.close();
      await a?.close();
      await db?.close();
      await sms?.close();
    });
    const post = (app: TestApp, url: string, payload: object) => app.app.inject({ method: 'POST', url, payload, remoteAddress: nextIp() });
    const ageFlows = (address: string) =>
      db.kysely
        .updateTable('auth_flows')
        .set({ last_sent_at: new Date(Date.now() - 61_000) })
        .where('address', '=', address)
        .execute();

    it('once 3 sign-up SMS went out the next sign-up by phone gets 429 pointing to email, a registered number alike, while the owner’s reset still gets its code; one warning', async () => {
      const warnings = [vi.spyOn(a.app.log, 'warn'), vi.spyOn(b.app.log, 'warn')];
      // 1: the owner signs up through one process.
      const owner = newPhone();
      const own = await post(a, '/api/phone_register', body(owner));
      expect(own.statusCode).toBe(200);
      const ownCode = await sms.next(owner);
      expect((await post(a, '/api/code_verification_phone_register', { phone_token: own.json().phone_token, code: ownCode.code })).statusCode).toBe(200);
      // 2 and 3: a sign-up through the other process, and its resend.
      const second = newPhone();
      const start = await post(b, '/api/phone_register', body(second));
      expect(start.statusCode).toBe(200);
      await sms.next(second);
      await ageFlows(second);
      const resent = await post(a, '/api/new_token_phone_register', { phone_token: start.json().phone_token });
      expect(resent.statusCode).toBe(200);
      await sms.next(second, 2);

      // Spent: a new number, a resend and the registered number all get the same 429, from either process.
      const pumped = newPhone();
      const refused = await post(b, '/api/phone_register', body(pumped));
      expect(refused.statusCode).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(Object.keys(refused.json())).toEqual(['message']);
      expect(refused.json().message).toMatch(/^Сейчас мы не можем отправить SMS для регистрации\. Зарегистрируйтесь по почте или попробуйте через (\d+ мин|1 ч)$/);
      await ageFlows(second);
      const resendRefused = await post(b, '/api/new_token_phone_register', { phone_token: resent.json().phone_token });
      expect([resendRefused.statusCode, resendRefused.json().message]).toEqual([429, refused.json().message]);
      await ageFlows(owner);
      const registered = await post(a, '/api/phone_register', body(owner));
      expect([registered.statusCode, registered.json()]).toEqual([429, refused.json()]);
      // Sign-up by email goes on.
      expect((await post(a, '/api/email_register', { email: newEmail(), password: PASSWORD, password_confirmation: PASSWORD })).statusCode).toBe(200);

      // The victim: the owner's reset by phone is never held back by the budget.
      const reset = await post(b, '/api/phone_reset_password', { phone: owner });
      expect(reset.statusCode).toBe(200);
      const resetCode = await sms.next(owner, 2);
      expect(resetCode.text).toMatch(/восстановления пароля \d{6}/);
      const check = await post(a, '/api/phone_reset_password_code_check', { phone_reset_token: reset.json().phone_reset_token, code: resetCode.code });
      expect(check.statusCode).toBe(200);
      expect(sms.messages.filter((m) => m.to === pumped)).toEqual([]);

      // One warning over both processes and three refusals, with no number in it.
      const said = warnings.flatMap((w) => w.mock.calls).filter((c) => JSON.stringify(c).includes('SMS budget'));
      expect(said).toHaveLength(1);
      expect(JSON.stringify(said)).not.toMatch(/\d{7}/);
      for (const w of warnings) w.mockRestore();
    });
  });

  describe('a spent budget, the players behind one address and the operators', () => {
    let sms: Awaited<ReturnType<typeof startSmsGateway>>;
    let t: TestApp;
    let at = Date.now();
    beforeAll(async () => {
      sms = await startSmsGateway(SMS_KEY);
      t = await createTestApp(kind, { env: { SMS_API_URL: sms.url, SMS_API_KEY: SMS_KEY, SMS_SIGNUP_PER_HOUR: '1' }, now: () => new Date(at) });
      await t.app.deps.jobs.start();
    });
    afterAll(async () => {
      await t?.close();
      await sms?.close();
    });
    const post = (url: string, payload: object, remoteAddress = nextIp()) => t.app.inject({ method: 'POST', url, payload, remoteAddress });

    it('sign-ups the spent budget refuses use none of the address’s sends: email sign-up and the owner’s reset from it go on', async () => {
      const owner = newPhone();
      const own = await post('/api/phone_register', body(owner));
      expect(own.statusCode).toBe(200);
      const code = await sms.next(owner);
      expect((await post('/api/code_verification_phone_register', { phone_token: own.json().phone_token, code: code.code })).statusCode).toBe(200);
      // A carrier's address: 20 players try phone sign-up while the budget is spent (20 = its sends an hour).
      const shared = nextIp();
      for (let i = 0; i < 20; i++) expect((await post('/api/phone_register', body(newPhone()), shared)).statusCode).toBe(429);
      const reset = await post('/api/phone_reset_password', { phone: owner }, shared);
      expect(reset.statusCode).toBe(200);
      await sms.next(owner, 2);
      expect((await post('/api/email_register', { email: newEmail(), password: PASSWORD, password_confirmation: PASSWORD }, shared)).statusCode).toBe(200);
    });

    it('the warning is said once for each window whose budget is spent, also when the next one is spent soon after', async () => {
      const warn = vi.spyOn(t.app.log, 'warn');
      const warnings = () => warn.mock.calls.filter((c) => JSON.stringify(c).includes('SMS budget')).length;
      // A new hour: its one SMS; the first refusal late in it; just after it, the next hour's SMS and refusals.
      at += 61 * 60_000;
      expect((await post('/api/phone_register', body(newPhone()))).statusCode).toBe(200);
      at += 58 * 60_000;
      expect((await post('/api/phone_register', body(newPhone()))).statusCode).toBe(429);
      expect(warnings()).toBe(1);
      at += 3 * 60_000;
      expect((await post('/api/phone_register', body(newPhone()))).statusCode).toBe(200);
      expect((await post('/api/phone_register', body(newPhone()))).statusCode).toBe(429);
      expect(warnings()).toBe(2);
      at += 30 * 60_000;
      expect((await post('/api/phone_register', body(newPhone()))).statusCode).toBe(429);
      expect(warnings()).toBe(2);
      warn.mockRestore();
    });
  });
});
