import { beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD, type AccountsWorld as World, useAccountsWorld } from '../../../test/accounts-app';
import { DB_KINDS } from '../../../test/harness';
import { totpCode } from './totp';

const SECOND = 1000;
const codeAt = (secret: string, offsetS = 0) => totpCode(secret, new Date(Date.now() + offsetS * SECOND));
/** Past the edge of a 30-second step when under 2 s of it is left: a code of the step before must still be one step old when the server checks it. */
async function clearOfStepEdge() {
  const left = 30 * SECOND - (Date.now() % (30 * SECOND));
  if (left < 2 * SECOND) await new Promise((r) => setTimeout(r, left + 50));
}

describe.each(DB_KINDS)('TOTP on %s', (kind) => {
  const { world, post, get, me, registerByEmail } = useAccountsWorld(kind);
  let db: World['db'];
  beforeAll(() => {
    ({ db } = world);
  });

  /** Lets the next code of the same 30-second step count as new (a test cannot wait for the next step). */
  const forgetLastStep = (userId: number) => db.kysely.updateTable('users').set({ totp_last_step: null }).where('id', '=', userId).execute();

  /** A player with TOTP on: their secret, recovery codes and a session. */
  async function withTotp() {
    const player = await registerByEmail();
    const setup = await post('/api/2fa/setup', {}, { token: player.access_token });
    expect(setup.statusCode).toBe(200);
    const { secret, otpauth_url } = setup.json();
    expect(otpauth_url).toMatch(/^otpauth:\/\/totp\/.*secret=/);
    expect(otpauth_url).toContain('algorithm=SHA1');
    const enablingCode = codeAt(secret);
    const enable = await post('/api/2fa/enable', { code: enablingCode, password: PASSWORD }, { token: player.access_token });
    expect(enable.statusCode).toBe(200);
    expect(enable.json().enabled).toBe(true);
    const recovery: string[] = enable.json().recovery_codes;
    return { ...player, secret, recovery, enablingCode };
  }

  it('turns on with a code from the app: ten recovery codes once, stored hashed, and the user object says so', async () => {
    const p = await withTotp();
    expect(p.recovery).toHaveLength(10);
    expect(new Set(p.recovery).size).toBe(10);
    expect((await me(p.access_token)).json().two_factor).toBe(true);
    const rows = await db.kysely.selectFrom('recovery_codes').select('code_hash').where('user_id', '=', p.user.id).execute();
    expect(rows).toHaveLength(10);
    for (const r of rows) expect(p.recovery.some((c) => r.code_hash.includes(c.replace('-', '')))).toBe(false);
    // A second setup while it is on is refused; the secret is never answered again.
    const again = await post('/api/2fa/setup', {}, { token: p.access_token });
    expect(again.statusCode).toBe(409);
    expect(JSON.stringify((await me(p.access_token)).json())).not.toContain(p.secret);
  });

  it('a stolen session alone cannot turn TOTP on: the password is asked, guesses stop at five, and the owner still signs in without a code', async () => {
    const owner = await registerByEmail();
    const thief = { token: owner.access_token };
    const { secret } = (await post('/api/2fa/setup', {}, thief)).json();
    const without = await post('/api/2fa/enable', { code: codeAt(secret) }, thief);
    expect(without.statusCode).toBe(422);
    expect(without.json().errors.password).toEqual(['Введите текущий пароль']);
    for (let i = 0; i < 5; i++) {
      const guess = await post('/api/2fa/enable', { code: codeAt(secret), password: `guess-${i}-password` }, thief);
      expect(guess.statusCode).toBe(422);
      expect(guess.json().errors.password).toEqual(['Неверный текущий пароль']);
    }
    // The allowance is shared with the password change: no more guesses there either.
    expect((await post('/api/2fa/enable', { code: codeAt(secret), password: PASSWORD }, thief)).statusCode).toBe(429);
    expect(
      (await post('/api/change_password', { password: PASSWORD, new_password: 'another strong one 7', new_password_confirmation: 'another strong one 7' }, thief)).statusCode,
    ).toBe(429);
    expect((await me(owner.access_token)).json().two_factor).toBe(false);
    const login = await post('/api/login', { email: owner.email, password: PASSWORD });
    expect(login.statusCode).toBe(200);
    expect(login.json().access_token).toEqual(expect.any(String));
  });

  it('refuses a wrong code, letters, and enable without setup, with Russian 422/409', async () => {
    const player = await registerByEmail();
    const noSetup = await post('/api/2fa/enable', { code: '123456', password: PASSWORD }, { token: player.access_token });
    expect(noSetup.statusCode).toBe(409);
    const { secret } = (await post('/api/2fa/setup', {}, { token: player.access_token })).json();
    const letters = await post('/api/2fa/enable', { code: 'abcdef', password: PASSWORD }, { token: player.access_token });
    expect(letters.statusCode).toBe(422);
    expect(letters.json().errors.code).toEqual(['Код из приложения — 6 цифр']);
    const wrong = await post('/api/2fa/enable', { code: codeAt(secret, 120), password: PASSWORD }, { token: player.access_token });
    expect(wrong.statusCode).toBe(422);
    expect(wrong.json().errors.code[0]).toMatch(/Неверный код/);
    expect((await me(player.access_token)).json().two_factor).toBe(false);
    expect((await post('/api/2fa/setup', {}, {})).statusCode).toBe(401);
  });

  it('a Discord account with the owner\u2019s verified email is linked only by the code: without it the account keeps no trace', async () => {
    const p = await withTotp();
    const profile = { id: '555000555000555000', username: 'same-mail', email: p.email, verified: true };
    const viaDiscord = async () =>
      post('/api/discord_auth', world.discord.authorize(profile, (await get('/api/auth_config')).json().discord.authorize_url));
    const linked = async () =>
      (await db.kysely.selectFrom('users').select('discord_id').where('id', '=', p.user.id).executeTakeFirstOrThrow()).discord_id;

    const stranger = await viaDiscord();
    expect(stranger.json()).toEqual({ two_factor_required: true, two_factor_token: expect.any(String) });
    expect(await linked()).toBeNull();
    const guess = await post('/api/2fa/verify', { two_factor_token: stranger.json().two_factor_token, code: codeAt(p.secret, 300) });
    expect(guess.statusCode).toBe(422);
    expect(await linked()).toBeNull();

    // The owner, with the code: linked and signed in; the next Discord sign-in finds the account by its id and still asks.
    const owner = await viaDiscord();
    const ok = await post('/api/2fa/verify', { two_factor_token: owner.json().two_factor_token, code: codeAt(p.secret, 30) });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().user.id).toBe(p.user.id);
    expect(await linked()).toBe(profile.id);
    expect((await viaDiscord()).json()).toEqual({ two_factor_required: true, two_factor_token: expect.any(String) });
  });

  it('a password sign-in asks for the code; /2fa/verify finishes it once, and a used code is refused', async () => {
    const p = await withTotp();
    const login = await post('/api/login', { email: p.email, password: PASSWORD });
    expect(login.statusCode).toBe(200);
    expect(login.json()).toEqual({ two_factor_required: true, two_factor_token: expect.any(String) });
    const token = login.json().two_factor_token;
    // The enabling code again is refused (its step is taken), whichever step the clock is at now.
    const reused = await post('/api/2fa/verify', { two_factor_token: token, code: p.enablingCode });
    expect(reused.statusCode).toBe(422);
    const next = codeAt(p.secret, 30);
    const ok = await post('/api/2fa/verify', { two_factor_token: token, code: next });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().user.id).toBe(p.user.id);
    expect((await me(ok.json().access_token)).statusCode).toBe(200);
    // The pending sign-in is used up; a second sign-in cannot take the same code either.
    expect((await post('/api/2fa/verify', { two_factor_token: token, code: next })).statusCode).toBe(401);
    const second = (await post('/api/login', { email: p.email, password: PASSWORD })).json().two_factor_token;
    expect((await post('/api/2fa/verify', { two_factor_token: second, code: next })).statusCode).toBe(422);
  });

  it('accepts one step of drift either way and no more', async () => {
    const p = await withTotp();
    const token = (await post('/api/login', { email: p.email, password: PASSWORD })).json().two_factor_token;
    expect((await post('/api/2fa/verify', { two_factor_token: token, code: codeAt(p.secret, -90) })).statusCode).toBe(422);
    expect((await post('/api/2fa/verify', { two_factor_token: token, code: codeAt(p.secret, 90) })).statusCode).toBe(422);
    await forgetLastStep(p.user.id);
    await clearOfStepEdge();
    expect((await post('/api/2fa/verify', { two_factor_token: token, code: codeAt(p.secret, -30) })).statusCode).toBe(200);
    const later = (await post('/api/login', { email: p.email, password: PASSWORD })).json().two_factor_token;
    expect((await post('/api/2fa/verify', { two_factor_token: later, code: codeAt(p.secret, 30) })).statusCode).toBe(200);
  });

  it('a recovery code signs in once, in any case and without the dash', async () => {
    const p = await withTotp();
    const t1 = (await post('/api/login', { email: p.email, password: PASSWORD })).json().two_factor_token;
    const code = p.recovery[0]!;
    const ok = await post('/api/2fa/verify', { two_factor_token: t1, code: code.toUpperCase().replace('-', '') });
    expect(ok.statusCode).toBe(200);
    const t2 = (await post('/api/login', { email: p.email, password: PASSWORD })).json().two_factor_token;
    const again = await post('/api/2fa/verify', { two_factor_token: t2, code });
    expect(again.statusCode).toBe(422);
    // Another user's recovery code is just a wrong code.
    const other = await withTotp();
    expect((await post('/api/2fa/verify', { two_factor_token: t2, code: other.recovery[0] })).statusCode).toBe(422);
    expect((await post('/api/2fa/verify', { two_factor_token: t2, code: p.recovery[1] })).statusCode).toBe(200);
  });

  it('five wrong codes per pending sign-in, then 429 even for the right one; expired and unknown tokens are 401', async () => {
    const p = await withTotp();
    const token = (await post('/api/login', { email: p.email, password: PASSWORD })).json().two_factor_token;
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => post('/api/2fa/verify', { two_factor_token: token, code: String(100000 + i) })));
    const statuses = answers.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 422)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(3);
    const right = await post('/api/2fa/verify', { two_factor_token: token, code: codeAt(p.secret, 30) });
    expect(right.statusCode).toBe(429);
    expect(right.json().message).toBe('Слишком много неверных кодов. Войдите снова');
    // Every 429 says when to try again (PRODUCT.md section 3): this call answers the same until the pending sign-in
    // expires (10 minutes from the sign-in), then 401; signing in again may start another at once.
    expect(Number(right.headers['retry-after'])).toBeGreaterThan(9 * 60);
    expect(Number(right.headers['retry-after'])).toBeLessThanOrEqual(10 * 60);

    const fresh = (await post('/api/login', { email: p.email, password: PASSWORD })).json().two_factor_token;
    await db.kysely.updateTable('two_factor_challenges').set({ expires_at: new Date(Date.now() - 1000) }).where('user_id', '=', p.user.id).execute();
    const expired = await post('/api/2fa/verify', { two_factor_token: fresh, code: codeAt(p.secret, 30) });
    expect(expired.statusCode).toBe(401);
    expect(expired.json().message).toBe('Время на ввод кода истекло. Войдите снова');
    expect((await post('/api/2fa/verify', { two_factor_token: 'made-up', code: '123456' })).statusCode).toBe(401);
    const bad = await post('/api/2fa/verify', { two_factor_token: fresh, code: 'кодкод' });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors.code).toBeDefined();
  });

  it("a pending sign-in is bound to its user: another player's code does not finish it", async () => {
    const victim = await withTotp();
    const attacker = await withTotp();
    const token = (await post('/api/login', { email: victim.email, password: PASSWORD })).json().two_factor_token;
    const res = await post('/api/2fa/verify', { two_factor_token: token, code: codeAt(attacker.secret, 30) });
    // Unless both secrets give the same code (one in a million), the attacker's code is wrong here.
    if (codeAt(attacker.secret, 30) !== codeAt(victim.secret, 30)) expect(res.statusCode).toBe(422);
    expect(await db.kysely.selectFrom('tokens').select('id').where('user_id', '=', victim.user.id).where('kind', '=', 'access').execute()).toHaveLength(1);
  });

  it('a reset asks for the code too, so a mailbox alone does not open the account', async () => {
    const p = await withTotp();
    const start = await post('/api/email_reset_password_code_date', { email: p.email });
    const mail = await world.smtp.next(p.email, 2);
    const check = await post('/api/email_reset_password_code_check', { email_reset_password_token: start.json().email_reset_password_token, code: mail.code });
    const done = await post('/api/email_create_new_password', { password: 'new password 1', password_confirmation: 'new password 1' }, { token: check.json().new_password_token });
    expect(done.statusCode).toBe(200);
    expect(done.json().two_factor_required).toBe(true);
    expect(done.json().access_token).toBeUndefined();
    // Someone holding only the mailbox got this far: the owner's account is as it was.
    expect((await me(p.access_token)).statusCode).toBe(200);
    expect((await post('/api/login', { email: p.email, password: PASSWORD })).json().two_factor_required).toBe(true);
    expect((await post('/api/login', { email: p.email, password: 'new password 1' })).statusCode).toBe(401);
    // With the code, the reset happens: the new password, every old session ended, a new one.
    const verified = await post('/api/2fa/verify', { two_factor_token: done.json().two_factor_token, code: codeAt(p.secret, 30) });
    expect(verified.statusCode).toBe(200);
    expect(verified.json().access_token).toEqual(expect.any(String));
    expect((await me(p.access_token)).statusCode).toBe(401);
    expect((await me(verified.json().access_token)).statusCode).toBe(200);
    expect((await post('/api/login', { email: p.email, password: 'new password 1' })).json().two_factor_required).toBe(true);
    expect((await post('/api/login', { email: p.email, password: PASSWORD })).statusCode).toBe(401);
  });

  it('a reset waiting for its code that is spent or expired says to start the reset again, not to sign in: the new password was never saved', async () => {
    const p = await withTotp();
    const start = await post('/api/email_reset_password_code_date', { email: p.email });
    const mail = await world.smtp.next(p.email, 2);
    const check = await post('/api/email_reset_password_code_check', { email_reset_password_token: start.json().email_reset_password_token, code: mail.code });
    const done = await post('/api/email_create_new_password', { password: 'new password 2', password_confirmation: 'new password 2' }, { token: check.json().new_password_token });
    const token = done.json().two_factor_token;
    const right = codeAt(p.secret, 30);
    for (let i = 0; i < 5; i++) await post('/api/2fa/verify', { two_factor_token: token, code: String(100000 + i) === right ? '099999' : String(100000 + i) });
    const spent = await post('/api/2fa/verify', { two_factor_token: token, code: right });
    expect(spent.statusCode).toBe(429);
    expect(spent.json().message).toBe('Слишком много неверных кодов, новый пароль не сохранён. Начните восстановление пароля заново');
    expect(Number(spent.headers['retry-after'])).toBeGreaterThan(9 * 60);

    await db.kysely.updateTable('two_factor_challenges').set({ expires_at: new Date(Date.now() - 1000) }).where('user_id', '=', p.user.id).execute();
    const expired = await post('/api/2fa/verify', { two_factor_token: token, code: right });
    expect(expired.statusCode).toBe(401);
    expect(expired.json().message).toBe('Время на ввод кода истекло, новый пароль не сохранён. Начните восстановление пароля заново');
    // Indeed: the new password does not sign in, the old one still does.
    expect((await post('/api/login', { email: p.email, password: 'new password 2' })).statusCode).toBe(401);
    expect((await post('/api/login', { email: p.email, password: PASSWORD })).json().two_factor_required).toBe(true);
  });

  it('a sign-in waiting for its code ends when the owner changes the password, ends other sessions or resets it', async () => {
    const p = await withTotp();
    const finish = (token: string, code: string) => post('/api/2fa/verify', { two_factor_token: token, code });
    const pendingOf = async (password: string) => (await post('/api/login', { email: p.email, password })).json().two_factor_token as string;
    const NEW = 'brand new pass 9';
    // Someone with the password and a recovery code stops at the code step; the owner changes the password.
    const beforeChange = await pendingOf(PASSWORD);
    const changed = await post('/api/change_password', { password: PASSWORD, new_password: NEW, new_password_confirmation: NEW }, { token: p.access_token });
    expect(changed.statusCode).toBe(200);
    expect((await finish(beforeChange, p.recovery[0]!)).statusCode).toBe(401);
    // The same after «Завершить другие сеансы».
    const beforeEndOthers = await pendingOf(NEW);
    expect((await post('/api/sessions/end_others', {}, { token: changed.json().access_token })).statusCode).toBe(200);
    expect((await finish(beforeEndOthers, p.recovery[1]!)).statusCode).toBe(401);
    // And after a reset finished with the code.
    const beforeReset = await pendingOf(NEW);
    const start = await post('/api/email_reset_password_code_date', { email: p.email });
    const mail = await world.smtp.next(p.email, 2);
    const check = await post('/api/email_reset_password_code_check', { email_reset_password_token: start.json().email_reset_password_token, code: mail.code });
    const asked = await post('/api/email_create_new_password', { password: 'newest pass 42', password_confirmation: 'newest pass 42' }, { token: check.json().new_password_token });
    expect((await finish(asked.json().two_factor_token, codeAt(p.secret, 30))).statusCode).toBe(200);
    expect((await finish(beforeReset, p.recovery[2]!)).statusCode).toBe(401);
    // The owner still signs in, with the same kind of code the others were refused.
    const owner = await finish(await pendingOf('newest pass 42'), p.recovery[3]!);
    expect(owner.statusCode).toBe(200);
    expect((await me(owner.json().access_token)).statusCode).toBe(200);
  });

  it('counts wrong codes per user before checking them: parallel guesses over many pending sign-ins check at most ten', async () => {
    const p = await withTotp();
    const tokens: string[] = [];
    for (let i = 0; i < 4; i++) tokens.push((await post('/api/login', { email: p.email, password: PASSWORD })).json().two_factor_token);
    const answers = await Promise.all(
      tokens.flatMap((token, t) => Array.from({ length: 5 }, (_, i) => post('/api/2fa/verify', { two_factor_token: token, code: String(100000 + t * 10 + i) }))),
    );
    const statuses = answers.map((r) => r.statusCode);
    expect(statuses.every((s) => s === 422 || s === 429)).toBe(true);
    expect(statuses.filter((s) => s === 422).length).toBeLessThanOrEqual(10);
  });

  it("presses refused by the account's wrong-code limit (429, wait) check no code and spend none of the pending sign-in's 5 tries", async () => {
    const p = await withTotp();
    for (let round = 0; round < 2; round++) {
      const token = (await post('/api/login', { email: p.email, password: PASSWORD })).json().two_factor_token;
      for (let i = 0; i < 5; i++) expect((await post('/api/2fa/verify', { two_factor_token: token, code: String(300000 + round * 10 + i) })).statusCode).toBe(422);
    }
    const token = (await post('/api/login', { email: p.email, password: PASSWORD })).json().two_factor_token;
    for (let i = 0; i < 5; i++) {
      const waiting = await post('/api/2fa/verify', { two_factor_token: token, code: codeAt(p.secret) });
      expect(waiting.statusCode).toBe(429);
      expect(waiting.json().message).not.toBe('Слишком много неверных кодов. Войдите снова');
    }
    // The wait is over: the same pending sign-in takes the right code.
    await db.kysely.deleteFrom('rate_limits').execute();
    await forgetLastStep(p.user.id);
    const signedIn = await post('/api/2fa/verify', { two_factor_token: token, code: codeAt(p.secret) });
    expect(signedIn.statusCode).toBe(200);
    expect(signedIn.json().access_token).toEqual(expect.any(String));
  });

  it("someone holding the password who spends the wrong-code allowance locks the owner out of nothing in the owner's own browser", async () => {
    const p = await withTotp();
    // The thief knows the password and guesses from a browser of their own: ten wrong codes, then 429.
    const thief = { ip: '203.0.113.77', browser: 'thief-browser-key-0000000000000001' };
    const statuses: number[] = [];
    for (let round = 0; round < 3; round++) {
      const token = (await post('/api/login', { email: p.email, password: PASSWORD }, thief)).json().two_factor_token;
      for (let i = 0; i < 4; i++) statuses.push((await post('/api/2fa/verify', { two_factor_token: token, code: String(200000 + round * 10 + i) }, thief)).statusCode);
    }
    expect(statuses.filter((s) => s === 422)).toHaveLength(10);
    expect(statuses.slice(10)).toEqual([429, 429]);
    // A stolen token in a browser the owner never used shares that allowance: its step-up is refused with 429 too.
    // (The code that turned TOTP on counted as this session's step-up; ten minutes have passed.)
    await db.kysely.updateTable('tokens').set({ stepped_up_at: null }).where('user_id', '=', p.user.id).execute();
    await forgetLastStep(p.user.id);
    const stolen = await get('/api/my_codes', { token: p.access_token, browser: 'thief-browser-key-0000000000000002', headers: { 'x-two-factor-code': codeAt(p.secret) } });
    expect(stolen.statusCode).toBe(429);

    // The owner, in the browser they signed up in: signs in with the code, and steps up.
    await forgetLastStep(p.user.id);
    const login = await post('/api/login', { email: p.email, password: PASSWORD });
    const verified = await post('/api/2fa/verify', { two_factor_token: login.json().two_factor_token, code: codeAt(p.secret) });
    expect(verified.statusCode).toBe(200);
    await forgetLastStep(p.user.id);
    const list = await get('/api/my_codes', { token: verified.json().access_token, headers: { 'x-two-factor-code': codeAt(p.secret) } });
    expect(list.statusCode).toBe(200);
  });

  it('new recovery codes for a code: the old ones stop working, the new sign in once; a wrong code or TOTP off changes nothing', async () => {
    const p = await withTotp();
    const codesOf = async () => (await db.kysely.selectFrom('recovery_codes').select('code_hash').where('user_id', '=', p.user.id).execute()).map((r) => r.code_hash).sort();
    const before = await codesOf();
    const wrong = await post('/api/2fa/recovery_codes', { code: codeAt(p.secret, 120) }, { token: p.access_token });
    expect(wrong.statusCode).toBe(422);
    expect(wrong.json().errors.code).toEqual(['Неверный код. Возьмите новый код из приложения']);
    expect(await codesOf()).toEqual(before);
    expect((await post('/api/2fa/recovery_codes', {}, { token: p.access_token })).statusCode).toBe(422);
    expect((await post('/api/2fa/recovery_codes', { code: codeAt(p.secret) })).statusCode).toBe(401);

    // A recovery code itself may ask for the new list (the player used most of them); it is spent with the old ones.
    const renewed = await post('/api/2fa/recovery_codes', { code: p.recovery[0] }, { token: p.access_token });
    expect(renewed.statusCode).toBe(200);
    const fresh: string[] = renewed.json().recovery_codes;
    expect(fresh).toHaveLength(10);
    expect(new Set(fresh).size).toBe(10);
    expect(fresh.some((c) => p.recovery.includes(c))).toBe(false);
    const after = await codesOf();
    expect(after).toHaveLength(10);
    expect(after.some((h) => before.includes(h))).toBe(false);

    const signIn = async (code: string) => {
      const token = (await post('/api/login', { email: p.email, password: PASSWORD })).json().two_factor_token;
      return (await post('/api/2fa/verify', { two_factor_token: token, code })).statusCode;
    };
    expect(await signIn(p.recovery[1]!)).toBe(422);
    expect(await signIn(fresh[0]!)).toBe(200);
    expect(await signIn(fresh[0]!)).toBe(422);
    // The same code from the app does not ask twice (one use per step).
    await forgetLastStep(p.user.id);
    const code = codeAt(p.secret);
    expect((await post('/api/2fa/recovery_codes', { code }, { token: p.access_token })).statusCode).toBe(200);
    expect((await post('/api/2fa/recovery_codes', { code }, { token: p.access_token })).statusCode).toBe(422);

    const other = await withTotp();
    expect((await post('/api/2fa/recovery_codes', { code: other.recovery[0] }, { token: p.access_token })).statusCode).toBe(422);
    expect((await post('/api/2fa/disable', { code: other.recovery[1] }, { token: other.access_token })).statusCode).toBe(200);
    const off = await post('/api/2fa/recovery_codes', { code: other.recovery[2] }, { token: other.access_token });
    expect(off.statusCode).toBe(409);
    expect(off.json().message).toBe('Вход с кодом не включён');
  });

  it('turns off with a code or a recovery code; a wrong one changes nothing', async () => {
    const p = await withTotp();
    const wrong = await post('/api/2fa/disable', { code: codeAt(p.secret, 120) }, { token: p.access_token });
    expect(wrong.statusCode).toBe(422);
    expect((await me(p.access_token)).json().two_factor).toBe(true);
    const off = await post('/api/2fa/disable', { code: p.recovery[3] }, { token: p.access_token });
    expect(off.statusCode).toBe(200);
    expect(off.json()).toEqual({ enabled: false });
    expect((await me(p.access_token)).json().two_factor).toBe(false);
    expect(await db.kysely.selectFrom('recovery_codes').select('id').where('user_id', '=', p.user.id).execute()).toHaveLength(0);
    const login = await post('/api/login', { email: p.email, password: PASSWORD });
    expect(login.json().access_token).toEqual(expect.any(String));
    expect((await post('/api/2fa/disable', { code: '123456' }, { token: p.access_token })).statusCode).toBe(409);
  });
});
