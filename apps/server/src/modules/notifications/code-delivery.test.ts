import { CODE_TTL_MS } from '@adena/contract';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmsGateway } from '../../../test/fakes/sms-gateway';
import { startSmtp } from '../../../test/fakes/smtp';
import { createTestApp, DB_KINDS, type TestApp } from '../../../test/harness';
import { createCodeDelivery, MESSAGE_JOB } from './code-delivery';
import { createSmsRuGateway } from './sms';

const SMS_KEY = 'sms-ru-test-key';
const PASSWORD = 'correct horse 1';

/** The app's clock: moves only when told, so back-off and expiry are stepped through, never waited for. */
function testClock(start = Date.now()) {
  let t = start;
  return {
    now: () => new Date(t),
    advance: (ms: number) => {
      t += ms;
    },
  };
}

describe.each(DB_KINDS)('mail and SMS codes through the job queue on %s', (kind) => {
  let t: TestApp;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let sms: Awaited<ReturnType<typeof startSmsGateway>>;
  const clock = testClock();
  let seq = 0;
  const email = () => `queued${++seq}.${Date.now()}@example.com`;
  const phone = () => `+7990${String(Date.now() % 1000).padStart(3, '0')}${String(++seq).padStart(4, '0')}`;
  const post = (url: string, payload: object) => t.app.inject({ method: 'POST', url, payload, remoteAddress: `10.77.0.${++seq % 250}` });

  beforeAll(async () => {
    [smtp, sms] = await Promise.all([startSmtp(), startSmsGateway(SMS_KEY)]);
    // The worker is not started: each test runs due jobs itself with runDue().
    t = await createTestApp(kind, {
      now: clock.now,
      env: { SMTP_URL: smtp.url, MAIL_FROM: 'Тест <no-reply@adena.test>', BRAND_NAME: 'Кошелёк Тест', SMS_API_URL: sms.url, SMS_API_KEY: SMS_KEY },
    });
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all([smtp?.close(), sms?.close()]);
  });

  const runDue = () => t.app.deps.jobs.runDue();
  /** The message jobs, with every text column of each row joined (what a copy of the table would show). */
  const rows = () =>
    t.db.kysely
      .selectFrom('jobs')
      .select(['id', 'state', 'attempts', 'last_error', sql<string>`concat_ws(' ', kind, key, payload::text, last_error)`.as('row'), sql<string>`payload->>'box'`.as('box')])
      .where('kind', '=', MESSAGE_JOB)
      .orderBy('id')
      .execute();
  /**
   * Whether `text` shows `secret` standing alone: a sealed box is base64url, in which any six
   * digits turn up by chance now and then, but there they sit between other base64url characters.
   */
  const shows = (text: string, secret: string) => new RegExp(`(?<![A-Za-z0-9_-])${secret.replace(/[^\w]/g, '\\$&')}(?![A-Za-z0-9_-])`).test(text);
  const mailsTo = (to: string) => smtp.messages.filter((m) => m.to === to);
  const smsTo = (to: string) => sms.messages.filter((m) => m.to === to);

  it('the check for a code in clear sees one', () => {
    expect(shows('{"text": "Ваш код подтверждения: 042917\\nОн действует"}', '042917')).toBe(true);
    expect(shows('{"box": "v1.abc042917xyz.q"}', '042917')).toBe(false);
  });

  it('a mail refused with 421 is sent again after the back-off and arrives exactly once; the row never holds the code', async () => {
    const to = email();
    smtp.refuseNext(421);
    const start = await post('/api/email_register', { email: to, password: PASSWORD, password_confirmation: PASSWORD });
    expect(start.statusCode).toBe(200);
    const seen: string[] = [];
    const [queued] = await rows();
    seen.push(queued!.row);

    expect(await runDue()).toBe(1);
    expect(mailsTo(to)).toEqual([]);
    const [waiting] = await rows();
    expect(waiting).toMatchObject({ state: 'pending', attempts: 1, last_error: expect.stringContaining('421') });
    seen.push(waiting!.row);
    expect(await runDue()).toBe(0); // not before its back-off

    clock.advance(1000);
    expect(await runDue()).toBe(1);
    const mail = await smtp.next(to);
    expect(mail.code).toMatch(/^\d{6}$/);
    expect(await rows()).toEqual([]);
    const done = await post('/api/code_verification_email_register', { email_token: start.json().email_token, code: mail.code });
    expect(done.statusCode).toBe(200);
    clock.advance(60 * 60_000);
    expect(await runDue()).toBe(0);
    expect(mailsTo(to)).toHaveLength(1);
    for (const row of seen) {
      expect(shows(row, mail.code!)).toBe(false);
      expect(row).not.toContain(to);
    }
  });

  it('a resend withdraws the first code while it waits for a retry: only the new code arrives, and it works', async () => {
    const to = email();
    smtp.refuseNext(421);
    const start = await post('/api/email_register', { email: to, password: PASSWORD, password_confirmation: PASSWORD });
    expect(await runDue()).toBe(1);
    expect((await rows())[0]).toMatchObject({ state: 'pending', attempts: 1 });
    // A minute later the player asks again; the first message is still waiting for its retry.
    clock.advance(61_000);
    const resend = await post('/api/new_token_email_register', { email_token: start.json().email_token });
    expect(resend.statusCode).toBe(200);
    clock.advance(5_000);
    while ((await runDue()) > 0);
    const mails = mailsTo(to);
    expect(mails).toHaveLength(1);
    const done = await post('/api/code_verification_email_register', { email_token: resend.json().email_token, code: mails[0]!.code });
    expect(done.statusCode).toBe(200);
  });

  it('an SMS the gateway answers with 503 is sent again and arrives exactly once', async () => {
    const to = phone();
    sms.failNextWith(503);
    const start = await post('/api/phone_register', { phone: to, password: PASSWORD, password_confirmation: PASSWORD });
    expect(start.statusCode).toBe(200);
    const [queued] = await rows();
    expect(await runDue()).toBe(1);
    expect(smsTo(to)).toEqual([]);
    expect((await rows())[0]).toMatchObject({ state: 'pending', attempts: 1, last_error: expect.stringContaining('503') });

    clock.advance(1000);
    expect(await runDue()).toBe(1);
    const msg = await sms.next(to);
    expect(await rows()).toEqual([]);
    const done = await post('/api/code_verification_phone_register', { phone_token: start.json().phone_token, code: msg.code });
    expect(done.statusCode).toBe(200);
    clock.advance(60 * 60_000);
    expect(await runDue()).toBe(0);
    expect(smsTo(to)).toHaveLength(1);
    expect(shows(queued!.row, msg.code!)).toBe(false);
    expect(shows(queued!.row, to.slice(1))).toBe(false);
  });

  it('a code that has expired before its job runs is dropped, not sent', async () => {
    const to = email();
    smtp.refuseNext(421);
    expect((await post('/api/email_register', { email: to, password: PASSWORD, password_confirmation: PASSWORD })).statusCode).toBe(200);
    expect(await runDue()).toBe(1); // refused once: now waiting for its retry
    clock.advance(CODE_TTL_MS);
    expect(await runDue()).toBe(1);
    expect(await rows()).toEqual([]);
    expect(mailsTo(to)).toEqual([]);

    const late = email();
    expect((await post('/api/email_register', { email: late, password: PASSWORD, password_confirmation: PASSWORD })).statusCode).toBe(200);
    clock.advance(CODE_TTL_MS + 1);
    expect(await runDue()).toBe(1);
    expect(await rows()).toEqual([]);
    expect(mailsTo(late)).toEqual([]);
  });

  it('a permanent refusal (SMTP 550, a number the gateway will not serve) fails the job at once and clears its payload', async () => {
    const to = email();
    smtp.refuseNext(550);
    expect((await post('/api/email_register', { email: to, password: PASSWORD, password_confirmation: PASSWORD })).statusCode).toBe(200);
    const num = phone();
    sms.refuseNext();
    expect((await post('/api/phone_register', { phone: num, password: PASSWORD, password_confirmation: PASSWORD })).statusCode).toBe(200);
    expect(await runDue()).toBe(2);
    const failed = await t.db.kysely
      .selectFrom('jobs')
      .select(['state', 'attempts', 'payload', 'last_error'])
      .where('kind', '=', MESSAGE_JOB)
      .orderBy('id')
      .execute();
    expect(failed).toEqual([
      { state: 'failed', attempts: 1, payload: {}, last_error: expect.stringContaining('550') },
      { state: 'failed', attempts: 1, payload: {}, last_error: expect.stringContaining('207') },
    ]);
    expect(mailsTo(to)).toEqual([]);
    expect(smsTo(num)).toEqual([]);
    await t.db.kysely.deleteFrom('jobs').where('kind', '=', MESSAGE_JOB).execute();
  });

  it('another process on the database sends what this one enqueued (the key made once is shared); another SECRET_KEY cannot open it', async () => {
    const env = { SMTP_URL: smtp.url, MAIL_FROM: 'Тест <no-reply@adena.test>', BRAND_NAME: 'Кошелёк Тест' };
    const other = await createTestApp(kind, { db: t.db, seed: false, now: clock.now, env });
    const keyed = await createTestApp(kind, { db: t.db, seed: false, now: clock.now, env: { ...env, SECRET_KEY: 'x'.repeat(40) } });
    try {
      const to = email();
      expect((await post('/api/email_register', { email: to, password: PASSWORD, password_confirmation: PASSWORD })).statusCode).toBe(200);
      expect(await other.app.deps.jobs.runDue()).toBe(1);
      expect((await smtp.next(to)).code).toMatch(/^\d{6}$/);
      expect(await t.db.kysely.selectFrom('secret_keys').select('name').execute()).toEqual([{ name: 'messages' }]);

      const lost = email();
      const res = await keyed.app.inject({ method: 'POST', url: '/api/email_register', payload: { email: lost, password: PASSWORD, password_confirmation: PASSWORD }, remoteAddress: '10.78.0.1' });
      expect(res.statusCode).toBe(200);
      expect(await runDue()).toBe(1);
      expect(await t.db.kysely.selectFrom('jobs').select(['state', 'payload', 'last_error']).where('kind', '=', MESSAGE_JOB).execute()).toEqual([
        { state: 'failed', payload: {}, last_error: expect.stringContaining('SECRET_KEY') },
      ]);
      expect(mailsTo(lost)).toEqual([]);
    } finally {
      await t.db.kysely.deleteFrom('jobs').where('kind', '=', MESSAGE_JOB).execute();
      await keyed.close();
      await other.close();
    }
  });

  it('a reset of a known and of an unknown address each enqueue one job of the same size; only the known one is sent', async () => {
    const known = email();
    const start = await post('/api/email_register', { email: known, password: PASSWORD, password_confirmation: PASSWORD });
    await runDue();
    const { code } = await smtp.next(known);
    expect((await post('/api/code_verification_email_register', { email_token: start.json().email_token, code })).statusCode).toBe(200);

    const unknown = email();
    expect((await post('/api/email_reset_password_code_date', { email: known })).statusCode).toBe(200);
    expect((await post('/api/email_reset_password_code_date', { email: unknown })).statusCode).toBe(200);
    const queued = await rows();
    expect(queued).toHaveLength(2);
    expect(queued[0]!.box.length).toBe(queued[1]!.box.length);
    expect(await runDue()).toBe(2);
    expect(await rows()).toEqual([]);
    expect(mailsTo(known)).toHaveLength(2);
    expect(mailsTo(known)[1]!.text).toMatch(/восстановления пароля: \d{6}/);
    expect(mailsTo(unknown)).toEqual([]);
  });

  it('an SMS job to a premium-rate or satellite number (one queued before the number rule) fails unsent; a mobile\'s goes out', async () => {
    // Queued as this process's own delivery would (the same stored key), not through a call that now refuses such a number.
    const queuer = createCodeDelivery({
      mail: null,
      sms: createSmsRuGateway({ url: sms.url, apiKey: SMS_KEY }),
      outbox: { write: async () => {} },
      log: t.app.log,
      jobs: t.app.deps.jobs,
      db: t.db.kysely,
      secretKey: undefined,
      now: clock.now,
    });
    const premium = '+78091234567';
    const satellite = '+881212345678';
    const mobile = phone();
    for (const to of [premium, satellite, mobile]) {
      const message = { to, channel: 'sms' as const, subject: 'Код подтверждения', text: 'Кошелёк Тест: код подтверждения 123456. Действует 10 минут.', code: '123456' };
      await queuer.deliver({ channel: 'sms', message, expiresAt: new Date(clock.now().getTime() + CODE_TTL_MS) });
    }
    expect(await runDue()).toBe(3);
    await sms.next(mobile);
    expect(sms.messages.filter((m) => m.to === premium || m.to === satellite)).toEqual([]);
    const failed = await rows();
    expect(failed).toEqual([
      expect.objectContaining({ state: 'failed', last_error: 'not sent: the number is no mobile of any country' }),
      expect.objectContaining({ state: 'failed', last_error: 'not sent: the number is no mobile of any country' }),
    ]);
    await t.db.kysely.deleteFrom('jobs').where('kind', '=', MESSAGE_JOB).execute();
  });
});
