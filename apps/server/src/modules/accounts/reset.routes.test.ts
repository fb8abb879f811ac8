import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD, newEmail, type AccountsWorld as World, useAccountsWorld } from '../../../test/accounts-app';
import { createUser, TEST_TOTP_SECRET } from '../../../test/factories';
import { waitFor } from '../../../test/fakes/wait-for';
import { DB_KINDS, holdLocks, lockWaits } from '../../../test/harness';
import { hashToken } from '../../lib/tokens';
import { KEYS_LOCK_SPACE } from '../seller/api-keys.repository';
import { sessionsRepository } from '../sessions/sessions.repository';

describe.each(DB_KINDS)('password reset on %s', (kind) => {
  const { world, post, get, me, registerByEmail, registerByPhone } = useAccountsWorld(kind);
  let smtp: World['smtp'];
  let sms: World['sms'];
  beforeAll(() => {
    ({ smtp, sms } = world);
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

    it("a reset after account theft leaves the thief's API key, passkey, chat and webhook dead; the owner's new session works", async () => {
      const { email, access_token: stolen } = await registerByEmail();
      const auth = { authorization: `Bearer ${stolen}` };
      const inject = (method: 'GET' | 'POST' | 'PUT', url: string, headers: Record<string, string>, payload?: object) =>
        world.t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
      // The thief, holding the session and the password, mints a seller key and adds a passkey of their own.
      const key = (await inject('POST', '/api/api_keys', auth, { name: 'чужой', password: PASSWORD })).json().key as string;
      const userId = (await me(stolen)).json().id as number;
      await world.db.kysely
        .insertInto('passkeys')
        .values({ user_id: userId, credential_id: `thief-${userId}`, public_key: new Uint8Array([1, 2, 3]), counter: 0, transports: [], name: 'вор' })
        .execute();
      expect((await inject('GET', '/api/v1/balance?gamesserver_id=1', { authorization: `Bearer ${key}` })).statusCode).not.toBe(401);
      // …and linked their own Telegram chat, which would go on hearing of the owner's balance and requests.
      await world.db.kysely.updateTable('users').set({ telegram_chat_id: 555000222n }).where('id', '=', userId).execute();
      // …and pointed the seller's webhook at their own server (the password again): its secret would stay theirs after the owner's next PUT.
      const hook = await inject('PUT', '/api/webhook', auth, { url: 'https://93.184.216.34/thief', events: ['code.activated', 'request.completed'], password: PASSWORD });
      expect(hook.statusCode).toBe(200);
      const waiting = await world.db.kysely
        .insertInto('webhook_deliveries')
        .values({ user_id: userId, type: 'code.activated', body: '{}', created_at: new Date(), next_attempt_at: new Date() })
        .returning('id')
        .executeTakeFirstOrThrow();

      // The owner resets the password from the mailbox.
      const start = await post('/api/email_reset_password_code_date', { email });
      const mail = await smtp.next(email, 2);
      const check = await post('/api/email_reset_password_code_check', { email_reset_password_token: start.json().email_reset_password_token, code: mail.code });
      const created = await post('/api/email_create_new_password', { password: 'owner back in', password_confirmation: 'owner back in' }, { token: check.json().new_password_token });
      expect(created.statusCode).toBe(200);

      expect((await inject('GET', '/api/v1/balance?gamesserver_id=1', { authorization: `Bearer ${key}` })).statusCode).toBe(401);
      const mine = { authorization: `Bearer ${created.json().access_token}` };
      expect((await inject('GET', '/api/api_keys', mine)).json()).toEqual([]);
      expect((await inject('GET', '/api/passkeys', mine)).json()).toEqual([]);
      expect((await inject('GET', '/api/telegram_link', mine)).json()).toMatchObject({ linked: false });
      expect((await inject('GET', '/api/webhook', mine)).json()).toBeNull();
      const left = await world.db.kysely.selectFrom('webhook_deliveries').select('status').where('id', '=', waiting.id).executeTakeFirstOrThrow();
      expect(left.status).toBe('failed');
      // The owner's own endpoint gets a secret of its own, not the thief's.
      const own = await inject('PUT', '/api/webhook', mine, { url: 'https://93.184.216.34/owner', events: ['code.activated'], password: 'owner back in' });
      expect(own.statusCode).toBe(200);
      expect(own.json().secret).not.toBe(hook.json().secret);
      expect((await me(stolen)).statusCode).toBe(401);
    });

    it("a Discord account the thief linked by the owner's verified email does not outlive the reset, nor link again", async () => {
      const { email, user } = await registerByEmail();
      const thief = { id: '777000777000777000', username: 'thief', email, verified: true };
      const discordSignIn = async (who: typeof thief) =>
        post('/api/discord_auth', world.discord.authorize(who, (await get('/api/auth_config')).json().discord.authorize_url));
      // While holding the mailbox, the thief verified the owner's address on their own Discord.
      const linked = await discordSignIn(thief);
      expect(linked.statusCode).toBe(200);
      expect(linked.json().user.id).toBe(user.id);

      // The owner has the mailbox back and resets the password.
      const start = await post('/api/email_reset_password_code_date', { email });
      const mail = await smtp.next(email, 2);
      const check = await post('/api/email_reset_password_code_check', { email_reset_password_token: start.json().email_reset_password_token, code: mail.code });
      const created = await post('/api/email_create_new_password', { password: 'owner back in', password_confirmation: 'owner back in' }, { token: check.json().new_password_token });
      expect(created.statusCode).toBe(200);

      // The thief's Discord no longer signs in to the account: not by the link, not by the email it still shows.
      const again = await discordSignIn(thief);
      expect(again.statusCode).toBe(409);
      expect(again.json().message).toMatch(/отвязан/);
      const elsewhere = await discordSignIn({ ...thief, email: 'thief@example.net' });
      expect(elsewhere.statusCode).toBe(200);
      expect(elsewhere.json().user.id).not.toBe(user.id);
      // The owner still signs in with the new password.
      expect((await post('/api/login', { email, password: 'owner back in' })).statusCode).toBe(200);
      const row = await world.db.kysely.selectFrom('users').select('discord_id').where('id', '=', user.id).executeTakeFirstOrThrow();
      expect(row.discord_id).toBeNull();
    });

    it("a thief's Discord verified on the owner's address but never linked yet is not linked by it after the owner's reset", async () => {
      const { email, user } = await registerByEmail();
      // The thief verified the owner's address on their Discord while holding the mailbox, and waits.
      const thief = { id: '777000777000777123', username: 'thief', email, verified: true };
      const discordSignIn = async (who: typeof thief) =>
        post('/api/discord_auth', world.discord.authorize(who, (await get('/api/auth_config')).json().discord.authorize_url));
      const start = await post('/api/email_reset_password_code_date', { email });
      const mail = await smtp.next(email, 2);
      const check = await post('/api/email_reset_password_code_check', { email_reset_password_token: start.json().email_reset_password_token, code: mail.code });
      expect((await post('/api/email_create_new_password', { password: 'owner back in', password_confirmation: 'owner back in' }, { token: check.json().new_password_token })).statusCode).toBe(200);

      const later = await discordSignIn(thief);
      expect(later.statusCode).toBe(409);
      expect(later.json().message).toBe('После восстановления доступа Discord к этому аккаунту по почте не привязывается. Войдите по почте или телефону');
      const row = await world.db.kysely.selectFrom('users').select(['discord_id']).where('id', '=', user.id).executeTakeFirstOrThrow();
      expect(row.discord_id).toBeNull();
      expect((await post('/api/login', { email, password: 'owner back in' })).statusCode).toBe(200);
    });

    it.runIf(kind === 'postgres')("a thief's Discord sign-in overlapping the owner's reset waits for it, and then neither links nor signs in", async () => {
      const { email, user } = await registerByEmail();
      const thief = { id: '777000777000777999', username: 'thief', email, verified: true };
      const body = world.discord.authorize(thief, (await get('/api/auth_config')).json().discord.authorize_url);
      // The owner's reset, caught with the user's row written and not yet committed (what the reset writes to it).
      const reset = await holdLocks(world.db.kysely, (trx) =>
        trx.updateTable('users').set({ password_hash: 'owner-reset-hash', discord_email_links_closed_at: new Date() }).where('id', '=', user.id).execute(),
      );
      const signIn = post('/api/discord_auth', body);
      await waitFor(async () => ((await lockWaits(world.db.kysely, '%"users"%')) > 0 ? true : undefined), 'the sign-in waiting on the reset');
      await reset.release();
      const res = await signIn;
      // Before, the unlocked read saw the row before the reset, and the link went through onto the recovered account.
      expect(res.statusCode).toBe(409);
      expect(res.json().access_token).toBeUndefined();
      const row = await world.db.kysely.selectFrom('users').select(['discord_id']).where('id', '=', user.id).executeTakeFirstOrThrow();
      expect(row.discord_id).toBeNull();
      expect(await world.db.kysely.selectFrom('tokens').select('id').where('user_id', '=', user.id).where('method', '=', 'discord').execute()).toEqual([]);
    });

    it('an account Discord made keeps its own Discord through a reset: only links made by the email are cut', async () => {
      const email = newEmail();
      const own = { id: '888000888000888000', username: 'owner', email, verified: true };
      const discordSignIn = async () => post('/api/discord_auth', world.discord.authorize(own, (await get('/api/auth_config')).json().discord.authorize_url));
      const made = await discordSignIn();
      expect(made.statusCode).toBe(200);
      const start = await post('/api/email_reset_password_code_date', { email });
      const mail = await smtp.next(email);
      const check = await post('/api/email_reset_password_code_check', { email_reset_password_token: start.json().email_reset_password_token, code: mail.code });
      expect((await post('/api/email_create_new_password', { password: 'a password now', password_confirmation: 'a password now' }, { token: check.json().new_password_token })).statusCode).toBe(200);
      const again = await discordSignIn();
      expect(again.statusCode).toBe(200);
      expect(again.json().user.id).toBe(made.json().user.id);
    });

    it.runIf(kind === 'postgres')("a key the thief's session mints while the owner's reset runs does not outlive the reset", async () => {
      const { email, access_token: stolen } = await registerByEmail();
      const userId = (await me(stolen)).json().id as number;
      const start = await post('/api/email_reset_password_code_date', { email });
      const mail = await smtp.next(email, 2);
      const check = await post('/api/email_reset_password_code_check', { email_reset_password_token: start.json().email_reset_password_token, code: mail.code });
      const npt = check.json().new_password_token as string;

      // The thief holds the password too (without it the key is refused at once). The key's transaction
      // is held just before its insert (on the per-user lock of the keys' cap); the owner's reset runs
      // meanwhile. It must either wait for the key and revoke it, or end the session first so that the
      // key is refused; without the user row held, the reset finished and the key was written afterwards, live.
      const hold = await holdLocks(world.db.kysely, (trx) => sql`SELECT pg_advisory_xact_lock(${KEYS_LOCK_SPACE}::int, ${userId}::int)`.execute(trx));
      const minted = world.t.app.inject({ method: 'POST', url: '/api/api_keys', headers: { authorization: `Bearer ${stolen}` }, payload: { name: 'вор', password: PASSWORD } });
      await waitFor(async () => ((await lockWaits(world.db.kysely)) > 0 ? true : undefined), 'the key to wait on the cap lock');
      let resetDone = false;
      const reset = post('/api/email_create_new_password', { password: 'owner back in', password_confirmation: 'owner back in' }, { token: npt }).then((r) => {
        resetDone = true;
        return r;
      });
      // The reset gets as far as it can: done, or waiting on the user's row (it takes that row first).
      await waitFor(async () => (resetDone || (await lockWaits(world.db.kysely, '%"users"%')) > 0 ? true : undefined), 'the reset to finish or wait');
      await hold.release();
      const [key, done] = await Promise.all([minted, reset]);
      expect(done.statusCode).toBe(200);
      expect([200, 401]).toContain(key.statusCode);
      const live = await world.db.kysely.selectFrom('api_keys').select('id').where('user_id', '=', userId).where('revoked_at', 'is', null).execute();
      expect(live).toEqual([]);
      if (key.statusCode === 200) {
        const used = await world.t.app.inject({ method: 'GET', url: '/api/v1/balance?gamesserver_id=1', headers: { authorization: `Bearer ${key.json().key}` } });
        expect(used.statusCode).toBe(401);
      }
    });

    it('a reset code seen before an operator blocks the account opens nothing after the unblock', async () => {
      const { email, access_token } = await registerByEmail();
      const userId = (await me(access_token)).json().id as number;
      const start = await post('/api/email_reset_password_code_date', { email });
      const code = (await smtp.next(email, 2)).code;
      const admin = await createUser(world.db.kysely, { admin: true });
      const act = (what: 'block' | 'unblock') =>
        world.t.app.inject({ method: 'POST', url: `/api/admin/users/${userId}/${what}`, headers: admin.auth, payload: what === 'block' ? { reason: 'кража' } : {} });
      expect((await act('block')).statusCode).toBe(200);
      expect((await act('unblock')).statusCode).toBe(200);
      const late = await post('/api/email_reset_password_code_check', { email_reset_password_token: start.json().email_reset_password_token, code });
      expect(late.statusCode).toBe(422);
      expect((await post('/api/login', { email, password: PASSWORD })).statusCode).toBe(200);
    });

    it("an operator's block refuses the user's API keys while it lasts", async () => {
      const { access_token } = await registerByEmail();
      const auth = { authorization: `Bearer ${access_token}` };
      const key = (await world.t.app.inject({ method: 'POST', url: '/api/api_keys', headers: auth, payload: { name: 'k', password: PASSWORD } })).json().key as string;
      const userId = (await me(access_token)).json().id as number;
      const balance = () => world.t.app.inject({ method: 'GET', url: '/api/v1/balance?gamesserver_id=1', headers: { authorization: `Bearer ${key}` } });
      expect((await balance()).statusCode).toBe(200);
      const admin = await createUser(world.db.kysely, { admin: true });
      const blocked = await world.t.app.inject({ method: 'POST', url: `/api/admin/users/${userId}/block`, headers: admin.auth, payload: { reason: 'кража' } });
      expect(blocked.statusCode).toBe(200);
      expect((await balance()).statusCode).toBe(401);
      const issued = await world.t.app.inject({
        method: 'POST',
        url: '/api/v1/codes',
        headers: { authorization: `Bearer ${key}`, 'idempotency-key': 'b1' },
        payload: { gamesserver_id: 1, nominal: 1000, count: 1 },
      });
      expect(issued.statusCode).toBe(401);
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

  describe("a reset's new password and another writer of the same account at the same moment", () => {
    // Stress review finding: step 3 deleted its token before it took the user's row, while every other writer
    // takes that row and then deletes the user's tokens: each waited for the other's lock, and one side answered 503.
    let seq = 0;
    /** A new-password token of the user (what step 2 gives) and a reset of theirs still open (its code not checked yet). */
    const pendingReset = async (userId: number, email: string) => {
      const token = `new-password-${userId}-${++seq}-${Date.now()}`;
      const expiresAt = new Date(Date.now() + 10 * 60_000);
      await sessionsRepository.insertToken(world.db.kysely, userId, 'new_password', hashToken(token), expiresAt);
      const flow = await world.db.kysely
        .insertInto('auth_flows')
        .values({
          token_hash: hashToken(`flow-${token}`),
          purpose: 'reset',
          channel: 'email',
          address: email,
          user_id: userId,
          code_hash: null,
          password_hash: null,
          name: null,
          expires_at: expiresAt,
          last_sent_at: new Date(),
          browser_hash: null,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return { token, flowId: flow.id };
    };
    const newPassword = (token: string, password: string) => post('/api/email_create_new_password', { password, password_confirmation: password }, { token });
    /**
     * The writer first: it takes the user's row and waits to close the user's open reset (its row held here).
     * Then step 3, until it waits too; then both go on. Answers both answers, the writer's first.
     */
    const race = async (flowId: number, writer: () => ReturnType<typeof post>, reset: () => ReturnType<typeof post>) => {
      const db = world.db.kysely;
      const hold = await holdLocks(db, (trx) => trx.selectFrom('auth_flows').select('id').where('id', '=', flowId).forUpdate().execute());
      const writing = writer();
      await waitFor(async () => ((await lockWaits(db, '%auth_flows%')) === 1 ? true : undefined), 'the writer to wait on the open reset');
      const resetting = reset();
      await waitFor(async () => ((await lockWaits(db)) === 2 ? true : undefined), 'step 3 to wait as well');
      await hold.release();
      return Promise.all([writing, resetting]);
    };
    const passwordOf = async (userId: number) =>
      (await world.db.kysely.selectFrom('users').select('password_hash').where('id', '=', userId).executeTakeFirstOrThrow()).password_hash;

    it.runIf(kind === 'postgres').each([
      ['TOTP off', false],
      ['TOTP on', true],
    ])("a reset's new password and an operator's block of that player at the same moment (%s): the block holds, the reset is refused", async (_name, totp) => {
      const { email, user } = await registerByEmail();
      if (totp) await world.db.kysely.updateTable('users').set({ totp_secret: TEST_TOTP_SECRET }).where('id', '=', user.id).execute();
      const { token, flowId } = await pendingReset(user.id, email);
      const hashBefore = await passwordOf(user.id);
      const admin = await createUser(world.db.kysely, { admin: true });
      const block = () => world.t.app.inject({ method: 'POST', url: `/api/admin/users/${user.id}/block`, headers: admin.auth, payload: { reason: 'кража' } });
      const [blocked, reset] = await race(flowId, block, () => newPassword(token, 'a brand new pass'));
      expect([blocked.statusCode, reset.statusCode]).toEqual([200, 401]);
      expect(reset.json().message).toMatch(/Ссылка для смены пароля недействительна/);
      expect(await passwordOf(user.id)).toBe(hashBefore);
      expect(await world.db.kysely.selectFrom('two_factor_challenges').select('user_id').where('user_id', '=', user.id).execute()).toEqual([]);
      expect(await world.db.kysely.selectFrom('tokens').select('kind').where('user_id', '=', user.id).execute()).toEqual([]);
    });

    it.runIf(kind === 'postgres')("a reset's new password while the owner changes the password in a session: the change holds, the reset is refused", async () => {
      const { email, user, access_token } = await registerByEmail();
      const { token, flowId } = await pendingReset(user.id, email);
      const change = () =>
        post('/api/change_password', { password: PASSWORD, new_password: 'changed in session', new_password_confirmation: 'changed in session' }, { token: access_token });
      const [changed, reset] = await race(flowId, change, () => newPassword(token, 'a brand new pass'));
      expect([changed.statusCode, reset.statusCode]).toEqual([200, 401]);
      expect((await post('/api/login', { email, password: 'changed in session' })).statusCode).toBe(200);
      expect((await post('/api/login', { email, password: 'a brand new pass' })).statusCode).toBe(401);
    });

    it.runIf(kind === 'postgres')('two resets of one account finishing at once: the first sets the password, the second is refused', async () => {
      const { email, user } = await registerByEmail();
      const first = await pendingReset(user.id, email);
      const second = await pendingReset(user.id, email);
      const [done, late] = await race(first.flowId, () => newPassword(first.token, 'the first reset'), () => newPassword(second.token, 'the second reset'));
      expect([done.statusCode, late.statusCode]).toEqual([200, 401]);
      expect((await me(done.json().access_token)).statusCode).toBe(200);
      expect((await post('/api/login', { email, password: 'the first reset' })).statusCode).toBe(200);
      expect((await post('/api/login', { email, password: 'the second reset' })).statusCode).toBe(401);
    });
  });
});
