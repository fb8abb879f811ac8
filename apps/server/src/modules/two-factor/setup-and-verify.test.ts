import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../../test/fakes/wait-for';
import { createUser, TEST_TOTP_SECRET } from '../../../test/factories';
import { createTestApp, DB_KINDS, holdLocks, lockWaits, type TestApp } from '../../../test/harness';
import { hashToken, newToken } from '../../lib/tokens';
import { totpCode } from './totp';

/**
 * Two findings of the security review: a TOTP setup belongs to the session that started it (another
 * session's setup, a stolen one's, must not undo the owner's), and `/2fa/verify` spends a good code only
 * with the sign-in it finishes (a pending sign-in ended meanwhile leaves the code unused).
 */
describe.each(DB_KINDS)('TOTP setup per session and codes spent with the sign-in on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(() => t.close());

  const call = (method: 'GET' | 'POST', url: string, headers: Record<string, string>, payload?: object) =>
    t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });

  /** Another live session of the user (a thief's copy), signed in now by Telegram. */
  async function anotherSession(userId: number) {
    const token = newToken();
    await t.db.kysely.insertInto('tokens').values({ user_id: userId, kind: 'access', token_hash: hashToken(token), method: 'telegram' }).execute();
    return { authorization: `Bearer ${token}` };
  }

  const recoveryHash = (userId: number, code: string) => createHash('sha256').update(`${userId}:${code}`).digest('hex');

  /** A pending sign-in of the user (its two_factor_token), as a password sign-in leaves it. */
  async function challengeFor(userId: number) {
    const token = newToken();
    await t.db.kysely
      .insertInto('two_factor_challenges')
      .values({ user_id: userId, token_hash: hashToken(token), expires_at: new Date(Date.now() + 600_000) } as never)
      .execute();
    return token;
  }

  /** A user with TOTP on, a pending sign-in (its token) and one recovery code, `abcde-fghij`. */
  async function pendingSignIn() {
    const u = await createUser(t.db.kysely, { totp: true });
    await t.db.kysely.insertInto('recovery_codes').values({ user_id: u.id, code_hash: recoveryHash(u.id, 'abcdefghij') }).execute();
    return { u, token: await challengeFor(u.id) };
  }

  it("another session's setup neither replaces the owner's nor is turned on by the owner's code; TOTP on clears both", async () => {
    const owner = await createUser(t.db.kysely);
    const thief = await anotherSession(owner.id);
    const mine = (await call('POST', '/api/2fa/setup', owner.auth)).json().secret;
    const theirs = await call('POST', '/api/2fa/setup', thief);
    expect(theirs.statusCode).toBe(200);
    expect(theirs.json().secret).not.toBe(mine);
    // The owner's code does not fit the thief's setup, nor the thief's the owner's.
    expect((await call('POST', '/api/2fa/enable', thief, { code: totpCode(mine, new Date()) })).statusCode).toBe(422);
    const enable = await call('POST', '/api/2fa/enable', owner.auth, { code: totpCode(mine, new Date()) });
    expect(enable.statusCode).toBe(200);
    expect(enable.json().recovery_codes).toHaveLength(10);
    const user = await t.db.kysely.selectFrom('users').select('totp_secret').where('id', '=', owner.id).executeTakeFirstOrThrow();
    expect(user.totp_secret).toBe(mine);
    // Every session's unfinished setup is gone: the thief's cannot be turned on, nor a new one started.
    const pending = await t.db.kysely.selectFrom('tokens').select('totp_pending_secret').where('user_id', '=', owner.id).execute();
    expect(pending.map((r) => r.totp_pending_secret)).toEqual([null, null]);
    expect((await call('POST', '/api/2fa/enable', thief, { code: totpCode(theirs.json().secret, new Date(Date.now() + 30_000)) })).statusCode).toBe(409);
    expect((await call('POST', '/api/2fa/setup', thief)).statusCode).toBe(409);
  });

  it("a session's own new setup replaces its unfinished one; a session without a setup has none to turn on; an ended session's setup goes with it", async () => {
    const owner = await createUser(t.db.kysely);
    const first = (await call('POST', '/api/2fa/setup', owner.auth)).json().secret;
    const second = (await call('POST', '/api/2fa/setup', owner.auth)).json().secret;
    expect((await call('POST', '/api/2fa/enable', owner.auth, { code: totpCode(first, new Date()) })).statusCode).toBe(422);
    const other = await anotherSession(owner.id);
    expect((await call('POST', '/api/2fa/enable', other, { code: totpCode(second, new Date()) })).statusCode).toBe(409);
    await t.db.kysely.deleteFrom('tokens').where('token_hash', '=', hashToken(owner.token)).execute();
    expect((await call('POST', '/api/2fa/enable', owner.auth, { code: totpCode(second, new Date()) })).statusCode).toBe(401);
    const user = await t.db.kysely.selectFrom('users').select(['totp_secret', 'totp_pending_secret']).where('id', '=', owner.id).executeTakeFirstOrThrow();
    expect(user).toEqual({ totp_secret: null, totp_pending_secret: null });
  });

  it('a wrong code at /2fa/verify still counts and leaves the pending sign-in for the next try; a good one then signs in', async () => {
    const { u, token } = await pendingSignIn();
    const wrong = await call('POST', '/api/2fa/verify', {}, { two_factor_token: token, code: 'zzzzz-zzzzz' });
    expect(wrong.statusCode).toBe(422);
    const challenge = await t.db.kysely.selectFrom('two_factor_challenges').select('attempts').where('user_id', '=', u.id).executeTakeFirstOrThrow();
    expect(challenge.attempts).toBe(1);
    // Counted towards the user's wrong codes though its transaction rolled back.
    const limit = await t.db.kysely.selectFrom('rate_limits').select('hits').where('key', '=', `2fa:user:${u.id}`).executeTakeFirst();
    expect(limit?.hits).toBe(1);
    const good = await call('POST', '/api/2fa/verify', {}, { two_factor_token: token, code: 'abcde-fghij' });
    expect(good.statusCode).toBe(200);
    const row = await t.db.kysely.selectFrom('recovery_codes').select('used_at').where('user_id', '=', u.id).executeTakeFirstOrThrow();
    expect(row.used_at).not.toBeNull();
  });

  it.runIf(kind === 'postgres')('a good recovery code is not spent when the pending sign-in ends meanwhile', async () => {
    const { u, token } = await pendingSignIn();
    // «Завершить другие сеансы» (or a block, a rescue, a password change) holds the user's row, then ends the pending sign-ins.
    const hold = await holdLocks(
      t.db.kysely,
      (trx) => trx.selectFrom('users').select('id').where('id', '=', u.id).forNoKeyUpdate().execute(),
      (trx) => trx.deleteFrom('two_factor_challenges').where('user_id', '=', u.id).execute(),
    );
    const verify = call('POST', '/api/2fa/verify', {}, { two_factor_token: token, code: 'abcde-fghij' });
    await waitFor(async () => ((await lockWaits(t.db.kysely, '%FOR NO KEY UPDATE%')) === 1 ? true : undefined), 'verify waiting');
    await hold.release();
    expect((await verify).statusCode).toBe(401);
    const row = await t.db.kysely.selectFrom('recovery_codes').select('used_at').where('user_id', '=', u.id).executeTakeFirstOrThrow();
    expect(row.used_at).toBeNull();
  });

  it.runIf(kind === 'postgres')("a good TOTP code's step is not taken when the pending sign-in ends meanwhile: it still finishes the next one", async () => {
    const { u, token } = await pendingSignIn();
    const code = totpCode(TEST_TOTP_SECRET, new Date());
    const hold = await holdLocks(
      t.db.kysely,
      (trx) => trx.selectFrom('users').select('id').where('id', '=', u.id).forNoKeyUpdate().execute(),
      (trx) => trx.deleteFrom('two_factor_challenges').where('user_id', '=', u.id).execute(),
    );
    const verify = call('POST', '/api/2fa/verify', {}, { two_factor_token: token, code });
    // Waiting for the user's row (before the fix: to take the code's step, outside the transaction).
    await waitFor(async () => ((await lockWaits(t.db.kysely, '%users%')) === 1 ? true : undefined), 'verify waiting');
    await hold.release();
    expect((await verify).statusCode).toBe(401);
    const user = await t.db.kysely.selectFrom('users').select('totp_last_step').where('id', '=', u.id).executeTakeFirstOrThrow();
    expect(user.totp_last_step).toBeNull();
    expect((await call('POST', '/api/2fa/verify', {}, { two_factor_token: await challengeFor(u.id), code })).statusCode).toBe(200);
  });
});
