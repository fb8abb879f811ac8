import { beforeAll, describe, expect, it } from 'vitest';
import { BOT_TOKEN, BROWSER, nextIp, newEmail, PASSWORD, type AccountsWorld as World, useAccountsWorld } from '../../../test/accounts-app';
import { signInitData, signWidget } from '../../../test/fakes/telegram';
import { DB_KINDS } from '../../../test/harness';
import { hashToken } from '../../lib/tokens';
import { totpCode } from '../two-factor/totp';

/** PRODUCT.md section 8, tried as an attacker would; each test asserts the victim's outcome. */
describe.each(DB_KINDS)('abuse of sign-in, reset and social sign-in on %s', (kind) => {
  const { world, post, get, me, ageFlows, registerByEmail } = useAccountsWorld(kind);
  let smtp: World['smtp'];
  let discord: World['discord'];
  beforeAll(() => {
    ({ smtp, discord } = world);
  });
  const now = () => Math.floor(Date.now() / 1000);

  it('a fresh reset code works after 25 wrong codes in other flows, a minute later', async () => {
    const { email } = await registerByEmail();
    const attacker = nextIp();
    const attackerBrowser = 'attacker-browser-key-000000000001';
    for (let flow = 0; flow < 5; flow++) {
      await ageFlows(email);
      const start = await post('/api/email_reset_password_code_date', { email }, { ip: attacker, browser: attackerBrowser });
      expect(start.statusCode).toBe(200);
      await smtp.next(email, 2 + flow);
      for (let i = 0; i < 5; i++) {
        const wrong = await post('/api/email_reset_password_code_check', { email_reset_password_token: start.json().email_reset_password_token, code: '000000' }, { ip: attacker, browser: attackerBrowser });
        expect([422, 429]).toContain(wrong.statusCode);
      }
    }
    // The owner asks for a new code a minute later, from their own address, and it works.
    await ageFlows(email);
    const start = await post('/api/email_reset_password_code_date', { email });
    expect(start.statusCode).toBe(200);
    const mail = await smtp.next(email, 7);
    const check = await post('/api/email_reset_password_code_check', { email_reset_password_token: start.json().email_reset_password_token, code: mail.code });
    expect(check.statusCode).toBe(200);
    const created = await post('/api/email_create_new_password', { password: 'owner is back 2', password_confirmation: 'owner is back 2' }, { token: check.json().new_password_token });
    expect(created.statusCode).toBe(200);
  });

  it("a stranger asking for the owner's reset code every minute does not keep the owner's own reset at 429 in a browser the owner signed in from", async () => {
    // The owner signed up (and so in) from this test's browser (BROWSER); the stranger has browsers of their own.
    const { email } = await registerByEmail();
    const stranger = { ip: nextIp(), browser: 'stranger-browser-key-000000000001' };
    const fromStranger = await post('/api/email_reset_password_code_date', { email }, stranger);
    expect(fromStranger.statusCode).toBe(200);
    await smtp.next(email, 2);
    // Strangers keep the once-a-minute rule per address, from any browser and address.
    expect((await post('/api/email_reset_password_code_date', { email }, stranger)).statusCode).toBe(429);
    expect((await post('/api/email_reset_password_code_date', { email }, { ip: nextIp(), browser: 'stranger-browser-key-000000000002' })).statusCode).toBe(429);
    // A browser that signed in to the stranger's own account is no key to the owner's.
    const strangersOwn = { ip: nextIp(), browser: 'stranger-browser-key-000000000003' };
    const strangerEmail = newEmail();
    const own = await post('/api/email_register', { email: strangerEmail, password: PASSWORD, password_confirmation: PASSWORD }, strangersOwn);
    const ownMail = await smtp.next(strangerEmail);
    expect((await post('/api/code_verification_email_register', { email_token: own.json().email_token, code: ownMail.code }, strangersOwn)).statusCode).toBe(200);
    expect((await post('/api/email_reset_password_code_date', { email }, strangersOwn)).statusCode).toBe(429);

    // The owner, in their own browser, within the same minute: a code of their own, and the reset goes through.
    const start = await post('/api/email_reset_password_code_date', { email });
    expect(start.statusCode).toBe(200);
    const mail = await smtp.next(email, 3);
    const check = await post('/api/email_reset_password_code_check', { email_reset_password_token: start.json().email_reset_password_token, code: mail.code });
    expect(check.statusCode).toBe(200);
    const created = await post('/api/email_create_new_password', { password: 'owner is back 3', password_confirmation: 'owner is back 3' }, { token: check.json().new_password_token });
    expect(created.statusCode).toBe(200);
    expect((await post('/api/login', { email, password: 'owner is back 3' }, { ip: nextIp() })).statusCode).toBe(200);
    // That browser has a minute of its own: it cannot flood the mailbox either.
    const again = await post('/api/email_reset_password_code_date', { email });
    expect(again.statusCode).toBe(429);
    expect(Number(again.headers['retry-after'])).toBeGreaterThan(0);
  });

  it("a thief's sign-ins from many made-up browsers add at most 5 reset codes an hour, and a reset or a password change forgets them", async () => {
    const { email, user } = await registerByEmail();
    const knownOf = async () =>
      (await world.db.kysely.selectFrom('known_browsers').select('browser_hash').where('user_id', '=', user.id).execute()).map((r) => r.browser_hash).sort();
    // The thief has the password and signs in from eight browsers of their own making: only the five newest are kept.
    const thief = Array.from({ length: 8 }, (_, i) => ({ ip: nextIp(), browser: `thief-browser-key-${String(i).padStart(16, '0')}` }));
    for (const t of thief) expect((await post('/api/login', { email, password: PASSWORD }, t)).statusCode).toBe(200);
    expect(await knownOf()).toHaveLength(5);
    // Each remembered browser has its own minute, but together they get 5 codes an hour for the address;
    // after those, a remembered browser waits for the address's minute like anyone else.
    const statuses: number[] = [];
    for (const t of thief.slice(3)) statuses.push((await post('/api/email_reset_password_code_date', { email }, t)).statusCode);
    await ageFlows(email);
    statuses.push((await post('/api/email_reset_password_code_date', { email }, thief[3]!)).statusCode);
    statuses.push((await post('/api/email_reset_password_code_date', { email }, thief[4]!)).statusCode);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429]);
    for (let i = 0; i < 6; i++) await smtp.next(email, 2 + i);

    // The owner resets the password (a minute later, as anyone may): afterwards only the owner's browser is remembered.
    await ageFlows(email);
    const start = await post('/api/email_reset_password_code_date', { email });
    expect(start.statusCode).toBe(200);
    const mail = await smtp.next(email, 8);
    const check = await post('/api/email_reset_password_code_check', { email_reset_password_token: start.json().email_reset_password_token, code: mail.code });
    const created = await post('/api/email_create_new_password', { password: 'owner is back 4', password_confirmation: 'owner is back 4' }, { token: check.json().new_password_token });
    expect(created.statusCode).toBe(200);
    expect(await knownOf()).toEqual([hashToken(BROWSER)]);
    // The thief's browsers are strangers again: the address's minute holds them.
    expect((await post('/api/email_reset_password_code_date', { email }, thief[7]!)).statusCode).toBe(429);

    // A password change keeps only the browser it is made from.
    const other = { ip: nextIp(), browser: 'second-owner-browser-000000000001' };
    expect((await post('/api/login', { email, password: 'owner is back 4' }, other)).statusCode).toBe(200);
    expect(await knownOf()).toHaveLength(2);
    const changed = await post('/api/change_password', { password: 'owner is back 4', new_password: 'owner moves on 5', new_password_confirmation: 'owner moves on 5' }, { token: created.json().access_token });
    expect(changed.statusCode).toBe(200);
    expect(await knownOf()).toEqual([hashToken(BROWSER)]);
  });

  it("a TOTP player's browser is remembered only by a sign-in that gave the code: not by a Telegram one, nor from before TOTP was on", async () => {
    const { email, user, access_token } = await registerByEmail();
    const knownOf = async () =>
      (await world.db.kysely.selectFrom('known_browsers').select('browser_hash').where('user_id', '=', user.id).execute()).map((r) => r.browser_hash).sort();
    // Before TOTP: a password sign-in in another browser is remembered.
    const before = { ip: nextIp(), browser: 'before-totp-browser-00000000001' };
    expect((await post('/api/login', { email, password: PASSWORD }, before)).statusCode).toBe(200);
    expect(await knownOf()).toEqual([hashToken(BROWSER), hashToken(before.browser)].sort());
    // TOTP on (from the sign-up browser): only that browser stays remembered.
    const { secret } = (await post('/api/2fa/setup', {}, { token: access_token })).json();
    expect((await post('/api/2fa/enable', { code: totpCode(secret, new Date()), password: PASSWORD }, { token: access_token })).statusCode).toBe(200);
    expect(await knownOf()).toEqual([hashToken(BROWSER)]);
    // A Telegram sign-in is not asked for the code: its browser is not remembered.
    await world.db.kysely.updateTable('users').set({ telegram_id: 5570001n }).where('id', '=', user.id).execute();
    const viaTelegram = { ip: nextIp(), browser: 'telegram-signin-browser-0000001' };
    const tg = await post('/api/telegram_auth', signWidget({ id: 5570001, first_name: 'Ян', auth_date: now() }, BOT_TOKEN), viaTelegram);
    expect(tg.statusCode).toBe(200);
    expect(await knownOf()).toEqual([hashToken(BROWSER)]);
    // A password sign-in finished with the code is.
    const withCode = { ip: nextIp(), browser: 'with-code-browser-000000000001' };
    const login = await post('/api/login', { email, password: PASSWORD }, withCode);
    await world.db.kysely.updateTable('users').set({ totp_last_step: null }).where('id', '=', user.id).execute();
    expect((await post('/api/2fa/verify', { two_factor_token: login.json().two_factor_token, code: totpCode(secret, new Date()) }, withCode)).statusCode).toBe(200);
    expect(await knownOf()).toEqual([hashToken(BROWSER), hashToken(withCode.browser)].sort());
  });

  it('gives a browser without a key one with its first sign-in call, and remembers it for the user it signs in', async () => {
    const email = newEmail();
    const start = await post('/api/email_register', { email, password: PASSWORD, password_confirmation: PASSWORD }, { browser: null });
    const cookie = String(start.headers['set-cookie']);
    expect(cookie).toMatch(/^aw_browser=[A-Za-z0-9_-]{43}; Path=\/api; Max-Age=34560000; HttpOnly; SameSite=Lax$/);
    const key = /^aw_browser=([^;]+)/.exec(cookie)![1]!;
    const mail = await smtp.next(email);
    const done = await post('/api/code_verification_email_register', { email_token: start.json().email_token, code: mail.code }, { browser: key });
    expect(done.statusCode).toBe(200);
    // A browser that already has its key is not given another.
    expect(done.headers['set-cookie']).toBeUndefined();
    const known = await world.db.kysely.selectFrom('known_browsers').select('browser_hash').where('user_id', '=', done.json().user.id).execute();
    expect(known).toEqual([{ browser_hash: hashToken(key) }]);
  });

  it('parallel requests for a code to one address open one flow, not one each (once a minute holds under a burst)', async () => {
    const { email } = await registerByEmail();
    await ageFlows(email);
    const answers = await Promise.all(Array.from({ length: 12 }, () => post('/api/email_reset_password_code_date', { email })));
    const statuses = answers.map((r) => r.statusCode);
    expect(statuses.every((s) => s === 200 || s === 429)).toBe(true);
    const accepted = statuses.filter((s) => s === 200).length;
    // The first to take the address's lock opens the flow; every other one sees it.
    expect(accepted).toBe(1);
    const open = await world.db.kysely
      .selectFrom('auth_flows')
      .select('id')
      .where('address', '=', email)
      .where('purpose', '=', 'reset')
      .execute();
    expect(open).toHaveLength(accepted);
  });

  it('a second code for one address within a minute is refused; one address opens at most 20 flows an hour', async () => {
    const email = newEmail();
    const ip = nextIp();
    expect((await post('/api/email_reset_password_code_date', { email }, { ip })).statusCode).toBe(200);
    const again = await post('/api/email_reset_password_code_date', { email }, { ip: nextIp() });
    expect(again.statusCode).toBe(429);
    expect(Number(again.headers['retry-after'])).toBeGreaterThan(0);
    const sprayer = nextIp();
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) statuses.push((await post('/api/email_reset_password_code_date', { email: newEmail() }, { ip: sprayer })).statusCode);
    expect(statuses.slice(0, 20).every((s) => s === 200)).toBe(true);
    expect(statuses[20]).toBe(429);
    // Another address is not affected by the sprayer.
    expect((await post('/api/email_reset_password_code_date', { email: newEmail() })).statusCode).toBe(200);
  });

  it('an IPv6 sprayer taking a new address of its /64 for every request is one address: 20 codes an hour', async () => {
    const net = `2001:db8:${(Date.now() % 0xffff).toString(16)}:42`;
    const statuses: number[] = [];
    for (let i = 1; i <= 21; i++) statuses.push((await post('/api/email_reset_password_code_date', { email: newEmail() }, { ip: `${net}::${i.toString(16)}` })).statusCode);
    expect(statuses.slice(0, 20).every((s) => s === 200)).toBe(true);
    expect(statuses[20]).toBe(429);
    // The next /64 is someone else.
    expect((await post('/api/email_reset_password_code_date', { email: newEmail() }, { ip: `2001:db8:${(Date.now() % 0xffff).toString(16)}:43::1` })).statusCode).toBe(200);
  });

  it("a Discord callback carrying another browser's state is refused, and signs nobody in", async () => {
    const attackerConfig = await get('/api/auth_config', { browser: 'attacker-browser-key-0123456789' });
    const grant = discord.authorize(
      { id: '555000111222333444', username: 'mallory', global_name: 'Mallory', email: null, verified: false },
      attackerConfig.json().discord.authorize_url,
    );
    // The victim's browser opens the attacker's link: the state is not this browser's.
    const victim = await post('/api/discord_auth', grant, { browser: 'victim-browser-key-0123456789ab' });
    expect(victim.statusCode).toBe(422);
    expect(victim.json().errors.state[0]).toMatch(/устарел/);
    expect(victim.json().access_token).toBeUndefined();
    const noCookie = await post('/api/discord_auth', grant, { browser: null });
    expect(noCookie.statusCode).toBe(422);
    // The state is still good in the browser that asked for it (the check is the binding, nothing else).
    expect((await post('/api/discord_auth', grant, { browser: 'attacker-browser-key-0123456789' })).statusCode).toBe(200);
    // auth_config hands a browser without the cookie an HttpOnly one.
    const fresh = await get('/api/auth_config', { browser: null });
    expect(String(fresh.headers['set-cookie'])).toMatch(/^aw_browser=[\w-]{20,}; Path=\/api; .*HttpOnly; SameSite=Lax/);
  });

  it('replayed and 2-hour-old Telegram sign-in data are refused; fresh data without `signature` signs in', async () => {
    const pairs = (date: number, id = 5560001): Array<[string, string]> => [
      ['auth_date', String(date)],
      ['user', `{"id":${id},"first_name":"Вера"}`],
    ];
    const initData = signInitData(pairs(now()), BOT_TOKEN);
    const first = await post('/api/web_app', { init_data: initData });
    expect(first.statusCode).toBe(200);
    expect((await me(first.json().access_token)).statusCode).toBe(200);
    const replay = await post('/api/web_app', { init_data: initData });
    expect(replay.statusCode).toBe(401);
    expect(replay.json().message).toBe('Эти данные входа Telegram уже использованы. Попробуйте войти ещё раз');
    const old = await post('/api/web_app', { init_data: signInitData(pairs(now() - 2 * 3600, 5560002), BOT_TOKEN) });
    expect(old.statusCode).toBe(401);
    expect(old.json().message).toBe('Данные входа Telegram устарели. Попробуйте войти ещё раз');
    // The Login Widget the same way.
    const widget = signWidget({ id: 5560003, first_name: 'Ян', auth_date: now() }, BOT_TOKEN);
    expect((await post('/api/telegram_auth', widget)).statusCode).toBe(200);
    expect((await post('/api/telegram_auth', widget)).statusCode).toBe(401);
    expect((await post('/api/telegram_auth', signWidget({ id: 5560004, first_name: 'Ян', auth_date: now() - 2 * 3600 }, BOT_TOKEN))).statusCode).toBe(401);
  });

  it('NUL and U+202E in a name are 422 with the field named, never 500', async () => {
    for (const name of ['Игрок\u0000', 'abc\u202Etxt.exe', 'zero\u200Bwidth']) {
      const res = await post('/api/email_register', { email: newEmail(), password: PASSWORD, password_confirmation: PASSWORD, name });
      expect(res.statusCode).toBe(422);
      expect(res.json().errors.name).toEqual(['Уберите невидимые и управляющие символы']);
    }
  });

  it('common passwords are refused at sign-up and reset with a Russian 422, and nothing is sent', async () => {
    for (const password of ['password123', 'qwerty123', 'Password1']) {
      const email = newEmail();
      const res = await post('/api/email_register', { email, password, password_confirmation: password });
      expect(res.statusCode).toBe(422);
      expect(res.json().errors.password).toEqual(['Этот пароль слишком распространён, его подберут первым. Придумайте другой']);
    }
    const refused = await post('/api/email_create_new_password', { password: 'iloveyou1', password_confirmation: 'iloveyou1' }, { token: 'x'.repeat(43) });
    expect(refused.statusCode).toBe(422);
    expect(refused.json().errors.password).toHaveLength(1);
  });
});
