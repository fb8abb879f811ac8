import { sql } from 'kysely';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { PASSWORD, type AccountsWorld as World, useAccountsWorld } from '../../../test/accounts-app';
import { TEST_TOTP_SECRET } from '../../../test/factories';
import { DB_KINDS, gate, holdLocks, lockWaits } from '../../../test/harness';
import { hashToken } from '../../lib/tokens';
import { totpCode } from '../two-factor/totp';

/**
 * A thief who knows the old password signs in again and again; the owner resets or changes it. A
 * sign-in whose password was checked before the change and whose session would start after it must
 * start none: the change is the owner's way out. The test holds such a sign-in right after its
 * password check, lets the owner's change finish, then lets the sign-in go on.
 */
const pause = vi.hoisted(() => ({ next: null as null | { reached: () => void; until: Promise<void> } }));
vi.mock('../../lib/password', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../lib/password')>();
  return {
    ...real,
    async verifyPassword(hash: string | null, password: string) {
      const ok = await real.verifyPassword(hash, password);
      const p = pause.next;
      if (ok && p) {
        pause.next = null;
        p.reached();
        await p.until;
      }
      return ok;
    },
  };
});

/** A TOTP second step can be held right after it has taken its pending challenge, inside its transaction. */
const challengePause = vi.hoisted(() => ({
  next: null as null | { reached: () => void; until: Promise<void> },
  /** Every step that takes its challenge waits here while set (counted in `arrived`). */
  all: null as null | Promise<void>,
  arrived: 0,
}));
vi.mock('../two-factor/two-factor.repository', async (importOriginal) => {
  const real = await importOriginal<typeof import('../two-factor/two-factor.repository')>();
  const repo = real.twoFactorRepository;
  return {
    ...real,
    twoFactorRepository: {
      ...repo,
      async takeChallenge(...args: Parameters<typeof repo.takeChallenge>) {
        const taken = await repo.takeChallenge(...args);
        if (taken && challengePause.all) {
          challengePause.arrived += 1;
          await challengePause.all;
        }
        const p = challengePause.next;
        if (taken && p) {
          challengePause.next = null;
          p.reached();
          await p.until;
        }
        return taken;
      },
    },
  };
});

/** The next password that checks out waits there until `go()`; `atGate` resolves when one does. */
function holdNextGoodPassword() {
  let go!: () => void;
  let reached!: () => void;
  const until = new Promise<void>((r) => {
    go = r;
  });
  const atGate = new Promise<void>((r) => {
    reached = r;
  });
  pause.next = { reached, until };
  return { atGate, go };
}

const OVERTAKEN = 'Пароль или доступ к аккаунту изменились, пока шёл вход. Войдите снова';

describe.each(DB_KINDS)('sign-ins racing a password change on %s', (kind) => {
  const { world, post, me, ageFlows, registerByEmail } = useAccountsWorld(kind);
  let smtp: World['smtp'];
  beforeAll(() => {
    ({ smtp } = world);
  });
  const sessionsOf = async (userId: number) =>
    (await world.db.kysely.selectFrom('tokens').select('id').where('user_id', '=', userId).where('kind', '=', 'access').execute()).length;

  async function reset(email: string, nth: number, password: string) {
    const start = await post('/api/email_reset_password_code_date', { email });
    expect(start.statusCode).toBe(200);
    const mail = await smtp.next(email, nth);
    const check = await post('/api/email_reset_password_code_check', { email_reset_password_token: start.json().email_reset_password_token, code: mail.code });
    expect(check.statusCode).toBe(200);
    const created = await post('/api/email_create_new_password', { password, password_confirmation: password }, { token: check.json().new_password_token });
    expect(created.statusCode).toBe(200);
    return created.json().access_token as string;
  }

  it("a sign-in with the old password under way while the owner resets it starts no session; the owner's new one works", async () => {
    const { email, user } = await registerByEmail();
    const held = holdNextGoodPassword();
    const thief = post('/api/login', { email, password: PASSWORD });
    await held.atGate;
    const owner = await reset(email, 2, 'owner took it back');
    held.go();
    const late = await thief;
    expect(late.statusCode).toBe(401);
    expect(late.json().message).toBe(OVERTAKEN);
    expect(late.json()).not.toHaveProperty('access_token');
    expect(await sessionsOf(user.id)).toBe(1);
    expect((await me(owner)).statusCode).toBe(200);
  });

  it('a sign-in with the old password under way while the owner changes it starts no session; the owner stays signed in', async () => {
    const { email, user, access_token } = await registerByEmail();
    const held = holdNextGoodPassword();
    const thief = post('/api/login', { email, password: PASSWORD });
    await held.atGate;
    const changed = await post('/api/change_password', { password: PASSWORD, new_password: 'owner changed it', new_password_confirmation: 'owner changed it' }, { token: access_token });
    expect(changed.statusCode).toBe(200);
    held.go();
    const late = await thief;
    expect(late.statusCode).toBe(401);
    expect(late.json().message).toBe(OVERTAKEN);
    expect(await sessionsOf(user.id)).toBe(1);
    expect((await me(changed.json().access_token)).statusCode).toBe(200);
    expect((await post('/api/login', { email, password: 'owner changed it' })).statusCode).toBe(200);
  });

  it('with TOTP on, a sign-in under way while the owner resets the password gets no pending second step either', async () => {
    const { email, user } = await registerByEmail();
    await world.db.kysely.updateTable('users').set({ totp_secret: TEST_TOTP_SECRET }).where('id', '=', user.id).execute();
    const held = holdNextGoodPassword();
    const thief = post('/api/login', { email, password: PASSWORD });
    await held.atGate;
    // The owner's reset waits for the code from the authenticator, then happens.
    const start = await post('/api/email_reset_password_code_date', { email });
    const check = await post('/api/email_reset_password_code_check', { email_reset_password_token: start.json().email_reset_password_token, code: (await smtp.next(email, 2)).code });
    const asked = await post('/api/email_create_new_password', { password: 'owner took it back', password_confirmation: 'owner took it back' }, { token: check.json().new_password_token });
    expect(asked.json().two_factor_required).toBe(true);
    const owner = await post('/api/2fa/verify', { two_factor_token: asked.json().two_factor_token, code: totpCode(TEST_TOTP_SECRET, new Date()) });
    expect(owner.statusCode).toBe(200);
    held.go();
    const late = await thief;
    expect(late.statusCode).toBe(401);
    expect(late.json()).not.toHaveProperty('two_factor_token');
    expect(await world.db.kysely.selectFrom('two_factor_challenges').select('token_hash').where('user_id', '=', user.id).execute()).toEqual([]);
    expect((await me(owner.json().access_token)).statusCode).toBe(200);
  });

  it("a reset code someone else saw opens nothing once the owner's own reset is done", async () => {
    const { email } = await registerByEmail();
    // Someone glimpses the code of a reset they asked for (a mailbox left open, an SMS preview)…
    const seen = await post('/api/email_reset_password_code_date', { email });
    const seenCode = (await smtp.next(email, 2)).code;
    await ageFlows(email);
    // …and the owner resets the password with a code of their own.
    const owner = await reset(email, 3, 'owner took it back');
    const late = await post('/api/email_reset_password_code_check', { email_reset_password_token: seen.json().email_reset_password_token, code: seenCode });
    expect(late.statusCode).toBe(422);
    expect(late.json().errors.code).toEqual(['Код устарел или уже использован. Запросите новый код']);
    expect((await me(owner)).statusCode).toBe(200);
    expect((await post('/api/login', { email, password: 'owner took it back' })).statusCode).toBe(200);
  });

  it("a reset's last step still to come opens nothing once the owner has changed the password", async () => {
    const { email, access_token } = await registerByEmail();
    const start = await post('/api/email_reset_password_code_date', { email });
    const check = await post('/api/email_reset_password_code_check', { email_reset_password_token: start.json().email_reset_password_token, code: (await smtp.next(email, 2)).code });
    const newPasswordToken = check.json().new_password_token as string;
    // An open flow not yet checked is closed too.
    await ageFlows(email);
    const other = await post('/api/email_reset_password_code_date', { email });
    const otherCode = (await smtp.next(email, 3)).code;
    const changed = await post('/api/change_password', { password: PASSWORD, new_password: 'owner changed it', new_password_confirmation: 'owner changed it' }, { token: access_token });
    expect(changed.statusCode).toBe(200);
    const late = await post('/api/email_create_new_password', { password: 'someone else now', password_confirmation: 'someone else now' }, { token: newPasswordToken });
    expect(late.statusCode).toBe(401);
    const lateCheck = await post('/api/email_reset_password_code_check', { email_reset_password_token: other.json().email_reset_password_token, code: otherCode });
    expect(lateCheck.statusCode).toBe(422);
    expect((await me(changed.json().access_token)).statusCode).toBe(200);
    expect((await post('/api/login', { email, password: 'owner changed it' })).statusCode).toBe(200);
  });

  // PGlite runs one transaction at a time: a code check cannot run inside the owner's change there.
  it.skipIf(kind === 'pglite')("a reset code checked while the owner's password change is under way gives nothing that sets a password", async () => {
    const { email, access_token: owner, user } = await registerByEmail();
    await post('/api/login', { email, password: PASSWORD }, { browser: 'second-browser-key-0123456789abcdef' });
    // Someone else asked for a reset and saw its code.
    const start = await post('/api/email_reset_password_code_date', { email }, { browser: null });
    const code = (await smtp.next(email, 2)).code;
    // The owner's change is held inside its transaction (at forgetting the other browsers)…
    const held = await holdLocks(world.db.kysely, (trx) => sql`SELECT 1 FROM known_browsers WHERE user_id = ${user.id} FOR UPDATE`.execute(trx));
    const change = post('/api/change_password', { password: PASSWORD, new_password: 'owner changed it 1', new_password_confirmation: 'owner changed it 1' }, { token: owner });
    await expect.poll(() => lockWaits(world.db.kysely, '%known_browsers%')).toBeGreaterThan(0);
    // …while the other person checks the code: it either ends before the change goes on or waits for it.
    let checked = false;
    const check = post('/api/email_reset_password_code_check', { email_reset_password_token: start.json().email_reset_password_token, code }).finally(() => {
      checked = true;
    });
    await expect.poll(async () => checked || (await lockWaits(world.db.kysely, '%auth_flows%')) > 0).toBe(true);
    await held.release();
    const changed = await change;
    expect(changed.statusCode).toBe(200);
    const late = await check;
    if (late.statusCode === 200) {
      const created = await post('/api/email_create_new_password', { password: 'someone else now', password_confirmation: 'someone else now' }, { token: late.json().new_password_token });
      expect(created.statusCode).toBe(401);
    } else {
      expect(late.statusCode).toBe(422);
    }
    expect((await me(changed.json().access_token)).statusCode).toBe(200);
    expect((await post('/api/login', { email, password: 'owner changed it 1' })).statusCode).toBe(200);
  });

  // PGlite runs one transaction at a time: the two transactions below cannot interleave there.
  it.skipIf(kind === 'pglite')("a second step under way when an operator blocks the account does not deadlock with the block (no 503 for either)", async () => {
    const { email, user } = await registerByEmail();
    await world.db.kysely.updateTable('users').set({ totp_secret: TEST_TOTP_SECRET }).where('id', '=', user.id).execute();
    const token = (await post('/api/login', { email, password: PASSWORD })).json().two_factor_token;
    const held = gate();
    const goOn = gate();
    challengePause.next = { reached: held.open, until: goOn.opened };
    const verifying = post('/api/2fa/verify', { two_factor_token: token, code: totpCode(TEST_TOTP_SECRET, new Date()) });
    await held.opened;
    // The block, in its order: the user's row, then every session and pending second step of the user.
    const blocking = world.db.kysely.transaction().execute(async (trx) => {
      await sql`UPDATE users SET blocked_at = now() WHERE id = ${user.id}`.execute(trx);
      await trx.deleteFrom('two_factor_challenges').where('user_id', '=', user.id).execute();
      await trx.deleteFrom('tokens').where('user_id', '=', user.id).execute();
    });
    while ((await lockWaits(world.db.kysely)) === 0) await new Promise((r) => setTimeout(r, 20));
    goOn.open();
    const [verified, blocked] = await Promise.allSettled([verifying, blocking]);
    expect(blocked.status).toBe('fulfilled');
    expect(verified.status === 'fulfilled' && verified.value.statusCode).not.toBe(503);
    // Whichever went first, the blocked account keeps no session.
    expect(await sessionsOf(user.id)).toBe(0);
  });

  // PGlite runs one transaction at a time: the two steps cannot overlap there.
  it.skipIf(kind === 'pglite')('two second steps of one user that link a Discord account take turns instead of deadlocking', async () => {
    const { email, user, access_token } = await registerByEmail();
    const secret = (await post('/api/2fa/setup', {}, { token: access_token })).json().secret as string;
    const enabled = await post('/api/2fa/enable', { code: totpCode(secret, new Date()), password: PASSWORD }, { token: access_token });
    const recovery = enabled.json().recovery_codes as string[];
    const tokens = [(await post('/api/login', { email, password: PASSWORD })).json().two_factor_token as string, (await post('/api/login', { email, password: PASSWORD })).json().two_factor_token as string];
    // Each pending sign-in carries a Discord account to link once it is finished (a Discord sign-in that found this account by email).
    for (const [i, token] of tokens.entries()) {
      await world.db.kysely.updateTable('two_factor_challenges').set({ link_discord_id: `77700${i}` }).where('token_hash', '=', hashToken(token)).execute();
    }
    const release = gate();
    challengePause.arrived = 0;
    challengePause.all = release.opened;
    const steps = tokens.map((token, i) => post('/api/2fa/verify', { two_factor_token: token, code: recovery[i] }));
    // The first holds the user's row; the second waits for it (or, without that, both get here).
    await expect.poll(() => challengePause.arrived).toBeGreaterThanOrEqual(1);
    for (const until = Date.now() + 3_000; challengePause.arrived < 2 && (await lockWaits(world.db.kysely, '%users%')) === 0 && Date.now() < until; ) {
      await new Promise((r) => setTimeout(r, 20));
    }
    challengePause.all = null;
    release.open();
    const codes = (await Promise.all(steps)).map((r) => r.statusCode);
    expect(codes).toEqual([200, 200]);
    expect((await world.db.kysely.selectFrom('users').select('discord_id').where('id', '=', user.id).executeTakeFirstOrThrow()).discord_id).toMatch(/^77700[01]$/);
  });
});
