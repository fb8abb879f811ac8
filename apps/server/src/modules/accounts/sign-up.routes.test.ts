import { beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD, nextIp, newEmail, newPhone, type AccountsWorld as World, useAccountsWorld } from '../../../test/accounts-app';
import { readOutbox } from '../../../test/fakes/outbox';
import { waitFor } from '../../../test/fakes/wait-for';
import { DB_KINDS } from '../../../test/harness';
import { hashToken } from '../../lib/tokens';

describe.each(DB_KINDS)('sign-up on %s', (kind) => {
  const { world, post, me, ageFlows, registerByEmail, registerByPhone } = useAccountsWorld(kind);
  let db: World['db'];
  let bare: World['bare'];
  let smtp: World['smtp'];
  let sms: World['sms'];
  beforeAll(() => {
    ({ db, bare, smtp, sms } = world);
  });

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
      // Signed with BRAND_NAME, never a hard-coded English name.
      expect(mail.subject).toContain('Кошелёк Тест');
      expect(mail.text).not.toMatch(/Adena Wallet/);
      expect(mail.text).toMatch(/действует 10 минут/);
      expect(mail.text).toContain('не регистрировались в «Кошелёк Тест»');
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
      expect(msg.text).toMatch(/^Кошелёк Тест: код подтверждения \d{6}/);
      const res = await post('/api/code_verification_phone_register', { phone_token: start.json().phone_token, code: msg.code });
      expect(res.statusCode).toBe(200);
      expect(res.json().user).toMatchObject({ phone, email: null, name: `Игрок ${phone.slice(-4)}` });
    });

    it('reads a phone as a Russian player types it: «8 9XX …» signs up, «+7 (9XX) …» signs in, «9XX…» resets, all the one E.164 number', async () => {
      const phone = newPhone(); // +79XXXXXXXXX
      const national = phone.slice(2); // 9XXXXXXXXX
      const eight = `8 ${national.slice(0, 3)} ${national.slice(3, 6)}-${national.slice(6, 8)}-${national.slice(8)}`;
      const start = await post('/api/phone_register', { phone: eight, password: PASSWORD, password_confirmation: PASSWORD });
      expect(start.statusCode).toBe(200);
      const msg = await sms.next(phone);
      const res = await post('/api/code_verification_phone_register', { phone_token: start.json().phone_token, code: msg.code });
      expect(res.json().user.phone).toBe(phone);
      const bracketed = `+7 (${national.slice(0, 3)}) ${national.slice(3, 6)}-${national.slice(6)}`;
      const signIn = await post('/api/phone_login', { phone: bracketed, password: PASSWORD });
      expect(signIn.statusCode).toBe(200);
      expect(signIn.json().user.id).toBe(res.json().user.id);
      const reset = await post('/api/phone_reset_password', { phone: national });
      expect(reset.statusCode).toBe(200);
      expect((await sms.next(phone, 2)).text).toMatch(/восстановления пароля \d{6}/);
      // The same number typed another way is the same account: no second sign-up.
      const twice = await post('/api/phone_register', { phone: `8${national}`, password: PASSWORD, password_confirmation: PASSWORD });
      expect([200, 429]).toContain(twice.statusCode);
      expect(await db.kysely.selectFrom('users').select('id').where('phone', '=', phone).execute()).toHaveLength(1);
    });

    it('gets a new code no sooner than a minute later; the new token and code replace the old ones', async () => {
      const email = newEmail();
      const startedAt = Date.now();
      const start = await post('/api/email_register', { email, password: PASSWORD, password_confirmation: PASSWORD });
      const first = await smtp.next(email);
      const token1 = start.json().email_token;

      const early = await post('/api/new_token_email_register', { email_token: token1 });
      expect(early.statusCode).toBe(429);
      // The minute less what has passed since the first code (the mail's way through the queue and SMTP included).
      expect(Number(early.headers['retry-after'])).toBeGreaterThanOrEqual(60 - Math.ceil((Date.now() - startedAt) / 1000));
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

    it('after five wrong codes the resend the refusal asks for («Запросите новый код») sends a new code once the minute is over, and it signs up', async () => {
      const email = newEmail();
      const start = await post('/api/email_register', { email, password: PASSWORD, password_confirmation: PASSWORD });
      const { code } = await smtp.next(email);
      const token = start.json().email_token;
      const wrong = code === '000000' ? '000001' : '000000';
      for (let i = 0; i < 5; i++) await post('/api/code_verification_email_register', { email_token: token, code: wrong });
      const dead = await post('/api/code_verification_email_register', { email_token: token, code: wrong });
      expect(dead.statusCode).toBe(429);
      expect(dead.json().message).toBe('Слишком много неверных попыток. Запросите новый код');

      // Within the minute of the last code the resend waits, as any resend does.
      const early = await post('/api/new_token_email_register', { email_token: token });
      expect(early.statusCode).toBe(429);
      expect(early.json().message).toMatch(/^Код уже отправлен. Новый можно запросить через \d+ с$/);

      await ageFlows(email);
      const resent = await post('/api/new_token_email_register', { email_token: token });
      expect(resent.statusCode).toBe(200);
      const fresh = resent.json().email_token;
      const mail = await smtp.next(email, 2);
      // The dead token stays dead; the new one has its 5 tries and its code signs up.
      expect((await post('/api/code_verification_email_register', { email_token: token, code: mail.code })).statusCode).toBe(422);
      const bad = await post('/api/code_verification_email_register', { email_token: fresh, code: mail.code === '000000' ? '000001' : '000000' });
      expect(bad.json().errors.code).toEqual(['Неверный код. Осталось попыток: 4']);
      const ok = await post('/api/code_verification_email_register', { email_token: fresh, code: mail.code });
      expect(ok.statusCode).toBe(200);
      expect(ok.json().user.email).toBe(email);
    });

    it('a dead flow still meets the cap of 5 resends', async () => {
      const email = newEmail();
      const start = await post('/api/email_register', { email, password: PASSWORD, password_confirmation: PASSWORD });
      await smtp.next(email);
      await db.kysely.updateTable('auth_flows').set({ tries: 5, resends: 5 }).where('address', '=', email).execute();
      await ageFlows(email);
      const resend = await post('/api/new_token_email_register', { email_token: start.json().email_token });
      expect(resend.statusCode).toBe(429);
      expect(resend.json().message).toBe('Слишком много повторных отправок. Начните заново');
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
          email: ['Введите корректный адрес почты'],
          password: ['Пароль должен быть не короче 8 символов'],
          password_confirmation: ['Пароли не совпадают'],
        },
      });
      const mismatch = await post('/api/email_register', { email: newEmail(), password: PASSWORD, password_confirmation: 'другой пароль' });
      expect(mismatch.json().errors).toEqual({ password_confirmation: ['Пароли не совпадают'] });
      const phone = await post('/api/phone_register', { phone: '8900', password: PASSWORD, password_confirmation: PASSWORD });
      for (const bad of ['+7 000 111-22-33', 'телефон', '8 900 123-45-67-89-00']) {
        const r = await post('/api/phone_register', { phone: bad, password: PASSWORD, password_confirmation: PASSWORD });
        expect(r.statusCode).toBe(422);
      }
      expect(phone.json().errors.phone[0]).toMatch(/Введите номер телефона/);
      const code = await post('/api/code_verification_email_register', { email_token: 'x', code: '12a456' });
      expect(code.statusCode).toBe(422);
      expect(code.json().errors.code).toEqual(['Код состоит из 6 цифр']);
      const missing = await post('/api/login', {});
      expect(missing.statusCode).toBe(422);
      expect(missing.json().errors).toMatchObject({ email: ['Обязательное поле'], password: ['Обязательное поле'] });
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
});
