import { PASSKEYS_MAX, TWO_FACTOR_MESSAGES } from '@adena/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, TEST_TOTP_SECRET } from '../../../test/factories';
import { hashPassword } from '../../lib/password';
import { totpCode } from '../two-factor/totp';
import { waitFor } from '../../../test/fakes/wait-for';
import { createTestApp, DB_KINDS, holdLocks, lockWaits, type TestApp } from '../../../test/harness';
import { softAuthenticator } from '../../../test/webauthn';

/**
 * The browser's ceremony runs in Chromium's virtual authenticator (apps/web/e2e/second-factors.spec.ts);
 * here, bad input, owners and the cap, with a software authenticator (test/webauthn.ts).
 */
describe.each(DB_KINDS)('passkeys on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(() => t.close());

  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, headers: Record<string, string> = {}, payload?: unknown) =>
    t.app.inject({ method, url, headers: { host: 'localhost:3000', ...headers }, ...(payload !== undefined ? { payload: payload as object } : {}) });
  const clientData = (challenge: string) => Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge, origin: 'http://localhost:3000' })).toString('base64url');

  it('gives options with the request host as relying party and stores the challenge', async () => {
    const u = await createUser(t.db.kysely);
    const reg = await call('POST', '/api/passkeys/register/options', u.auth);
    expect(reg.statusCode).toBe(200);
    expect(reg.json().rp).toEqual({ name: 'Адена Кошелёк', id: 'localhost' });
    expect(reg.json().authenticatorSelection.residentKey).toBe('required');
    const login = await call('POST', '/api/passkeys/login/options');
    expect(login.statusCode).toBe(200);
    expect(login.json().rpId).toBe('localhost');
    const rows = await t.db.kysely.selectFrom('webauthn_challenges').select(['challenge', 'purpose', 'user_id']).execute();
    expect(rows).toEqual(expect.arrayContaining([{ challenge: reg.json().challenge, purpose: 'register', user_id: u.id }, { challenge: login.json().challenge, purpose: 'login', user_id: null }]));
    expect((await call('POST', '/api/passkeys/register/options')).statusCode).toBe(401);
  });

  it('asks a TOTP user for the code before a passkey can be added (a passkey signs in alone)', async () => {
    const u = await createUser(t.db.kysely, { totp: true });
    for (const extra of [{}, { 'x-two-factor-code': '000000' }] as Record<string, string>[]) {
      const refused = await call('POST', '/api/passkeys/register/options', { ...u.auth, ...extra });
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toMatchObject({ two_factor_required: true });
    }
    const challenges = () => t.db.kysely.selectFrom('webauthn_challenges').select('challenge').where('user_id', '=', u.id).execute();
    expect(await challenges()).toEqual([]);
    const ok = await call('POST', '/api/passkeys/register/options', { ...u.auth, 'x-two-factor-code': totpCode(TEST_TOTP_SECRET, new Date()) });
    expect(ok.statusCode).toBe(200);
    expect(await challenges()).toHaveLength(1);
  });

  it('asks the current password of an account without TOTP: a stolen session cannot leave itself a passkey that outlives a password change', async () => {
    const owner = await createUser(t.db.kysely);
    await t.db.kysely.updateTable('users').set({ password_hash: await hashPassword('Owner-Pa55word') }).where('id', '=', owner.id).execute();
    const challenges = () => t.db.kysely.selectFrom('webauthn_challenges').select('challenge').where('user_id', '=', owner.id).execute();
    // The thief holds a copy of the owner's session, not the password.
    for (const [payload, message] of [
      [undefined, 'Введите текущий пароль'],
      [{}, 'Введите текущий пароль'],
      [{ password: 'guess-1234' }, 'Неверный текущий пароль'],
    ] as const) {
      const refused = await call('POST', '/api/passkeys/register/options', owner.auth, payload);
      expect(refused.statusCode).toBe(422);
      expect(refused.json().errors.password).toEqual([message]);
    }
    expect(await challenges()).toEqual([]);
    // The owner, who knows it, adds one.
    const key = softAuthenticator();
    const options = await call('POST', '/api/passkeys/register/options', owner.auth, { password: 'Owner-Pa55word' });
    expect(options.statusCode).toBe(200);
    expect((await call('POST', '/api/passkeys/register/verify', owner.auth, { response: key.register(options.json()) })).statusCode).toBe(200);
    expect(await t.db.kysely.selectFrom('passkeys').select('id').where('user_id', '=', owner.id).execute()).toHaveLength(1);
  });

  it("refuses a registration finished on the victim's session with a challenge issued to the thief's own account (the step-up is not skipped)", async () => {
    const thief = await createUser(t.db.kysely);
    const victim = await createUser(t.db.kysely);
    await t.db.kysely.updateTable('users').set({ password_hash: await hashPassword('Thief-Pa55word') }).where('id', '=', thief.id).execute();
    await t.db.kysely.updateTable('users').set({ password_hash: await hashPassword('Victim-Pa55word') }).where('id', '=', victim.id).execute();
    // The thief holds a copy of the victim's session, not the victim's password: options on the thief's own account, with the thief's password…
    const options = await call('POST', '/api/passkeys/register/options', thief.auth, { password: 'Thief-Pa55word' });
    expect(options.statusCode).toBe(200);
    const response = softAuthenticator().register(options.json());
    // …finished on the victim's session.
    const stolen = await call('POST', '/api/passkeys/register/verify', victim.auth, { response, name: 'Вор' });
    expect([stolen.statusCode, stolen.json().message]).toEqual([422, TWO_FACTOR_MESSAGES.passkeyInvalid]);
    expect(await t.db.kysely.selectFrom('passkeys').select('id').where('user_id', '=', victim.id).execute()).toEqual([]);
    expect((await call('GET', '/api/passkeys', victim.auth)).json()).toEqual([]);
    // The refusal neither spent the thief's challenge nor moved it to the victim: it is still the thief's, and the
    // same attestation is valid there (the 422 above was the owner check, not a malformed response).
    const challenge = () => t.db.kysely.selectFrom('webauthn_challenges').select('user_id').where('challenge', '=', options.json().challenge).execute();
    expect(await challenge()).toEqual([{ user_id: thief.id }]);
    expect((await call('POST', '/api/passkeys/register/verify', thief.auth, { response })).statusCode).toBe(200);
    expect(await challenge()).toEqual([]);
    expect(await t.db.kysely.selectFrom('passkeys').select('id').where('user_id', '=', thief.id).execute()).toHaveLength(1);
    expect(await t.db.kysely.selectFrom('passkeys').select('id').where('user_id', '=', victim.id).execute()).toEqual([]);
  });

  it('asks a TOTP user for the code before a passkey is removed (a stolen session cannot strip them)', async () => {
    const u = await createUser(t.db.kysely, { totp: true });
    const key = await t.db.kysely
      .insertInto('passkeys')
      .values({ user_id: u.id, credential_id: `cred-${u.id}`, public_key: new Uint8Array([1, 2, 3]), name: 'Телефон' })
      .returning('id')
      .executeTakeFirstOrThrow();
    const left = () => t.db.kysely.selectFrom('passkeys').select('id').where('user_id', '=', u.id).execute();
    for (const extra of [{}, { 'x-two-factor-code': '000000' }] as Record<string, string>[]) {
      const refused = await call('DELETE', `/api/passkeys/${key.id}`, { ...u.auth, ...extra });
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toMatchObject({ two_factor_required: true });
    }
    expect(await left()).toHaveLength(1);
    const ok = await call('DELETE', `/api/passkeys/${key.id}`, { ...u.auth, 'x-two-factor-code': totpCode(TEST_TOTP_SECRET, new Date()) });
    expect(ok.statusCode).toBe(200);
    expect(await left()).toEqual([]);
  });

  it('answers malformed or forged WebAuthn responses with a Russian 422, never a 500, and the challenge works once', async () => {
    const u = await createUser(t.db.kysely);
    const bodies: unknown[] = [
      {},
      { response: 'x' },
      { response: { id: 'a', rawId: 'a', type: 'public-key', response: {} } },
      { response: { id: 'a', rawId: 'a', type: 'public-key', response: { clientDataJSON: 'не base64', attestationObject: 'x' } } },
    ];
    for (const body of bodies) {
      const res = await call('POST', '/api/passkeys/register/verify', u.auth, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(422);
      expect(res.json().message).toMatch(/[А-Яа-я]/);
      const login = await call('POST', '/api/passkeys/login/verify', {}, body);
      expect(login.statusCode, JSON.stringify(body)).toBe(422);
    }
    // A real challenge with a forged signature: 422, and the challenge is gone.
    const { challenge } = (await call('POST', '/api/passkeys/login/options')).json();
    const forged = { id: 'AAAA', rawId: 'AAAA', type: 'public-key', response: { clientDataJSON: clientData(challenge), authenticatorData: 'AAAA', signature: 'AAAA' } };
    const res = await call('POST', '/api/passkeys/login/verify', {}, { response: forged });
    expect([401, 422]).toContain(res.statusCode);
    expect(await t.db.kysely.selectFrom('webauthn_challenges').select('challenge').where('challenge', '=', challenge).execute()).toEqual([]);
  });

  it('refuses a signed credential id the response does not name, and keeps only known transport names (422 or 200, never 500)', async () => {
    const u = await createUser(t.db.kysely);
    const stored = () => t.db.kysely.selectFrom('passkeys').select(['credential_id', 'transports']).where('user_id', '=', u.id).execute();
    const options = async () => (await call('POST', '/api/passkeys/register/options', u.auth)).json();
    // An id of 3 000 bytes inside the signed data, under a short one the contract lets through.
    for (const idBytes of [3000, 40]) {
      const response = { ...softAuthenticator(undefined, { idBytes }).register(await options()), id: 'short', rawId: 'short' };
      const res = await call('POST', '/api/passkeys/register/verify', u.auth, { response });
      expect([res.statusCode, res.json().message]).toEqual([422, TWO_FACTOR_MESSAGES.passkeyInvalid]);
    }
    expect(await stored()).toEqual([]);
    for (const transports of ['internal', [['a'], 'b'], ['usb', { a: 1 }, 'x'.repeat(20_000), 'nfc']]) {
      const key = softAuthenticator();
      const response = key.register(await options());
      const res = await call('POST', '/api/passkeys/register/verify', u.auth, { response: { ...response, response: { ...response.response, transports } } });
      expect(res.statusCode).toBe(200);
    }
    expect((await stored()).map((p) => p.transports)).toEqual(expect.arrayContaining([[], [], ['usb', 'nfc']]));
  });

  it("lists and deletes only the owner's passkeys", async () => {
    const owner = await createUser(t.db.kysely);
    const other = await createUser(t.db.kysely);
    const key = await t.db.kysely
      .insertInto('passkeys')
      .values({ user_id: owner.id, credential_id: `cred-${owner.id}`, public_key: new Uint8Array([1, 2, 3]), counter: 0, transports: ['internal'], name: 'Телефон' })
      .returning('id')
      .executeTakeFirstOrThrow();
    expect((await call('GET', '/api/passkeys', other.auth)).json()).toEqual([]);
    const mine = (await call('GET', '/api/passkeys', owner.auth)).json();
    expect(mine).toEqual([{ id: key.id, name: 'Телефон', created_at: expect.any(String) }]);
    expect(JSON.stringify(mine)).not.toContain('cred-');
    const stolen = await call('DELETE', `/api/passkeys/${key.id}`, other.auth);
    expect(stolen.statusCode).toBe(404);
    expect((await call('DELETE', `/api/passkeys/${key.id}`)).statusCode).toBe(401);
    expect((await call('DELETE', '/api/passkeys/abc', owner.auth)).statusCode).toBe(422);
    expect((await call('GET', '/api/passkeys', owner.auth)).json()).toHaveLength(1);
    expect((await call('DELETE', `/api/passkeys/${key.id}`, owner.auth)).json()).toEqual({ success: key.id });
    expect((await call('GET', '/api/passkeys', owner.auth)).json()).toEqual([]);
  });

  it('holds at most PASSKEYS_MAX passkeys per account (409), checked again when a ceremony started below the cap finishes', async () => {
    const u = await createUser(t.db.kysely);
    const count = async () => (await t.db.kysely.selectFrom('passkeys').select('id').where('user_id', '=', u.id).execute()).length;
    const phone = softAuthenticator();
    const first = await call('POST', '/api/passkeys/register/options', u.auth);
    const added = await call('POST', '/api/passkeys/register/verify', u.auth, { response: phone.register(first.json()), name: 'Телефон' });
    expect(added.statusCode).toBe(200);
    expect(added.json()).toMatchObject({ name: 'Телефон' });
    // The owner still signs in with it.
    const login = await call('POST', '/api/passkeys/login/verify', {}, { response: phone.assert((await call('POST', '/api/passkeys/login/options')).json()) });
    expect(login.statusCode).toBe(200);
    expect(login.json().user.id).toBe(u.id);

    for (let i = await count(); i < PASSKEYS_MAX - 1; i++) {
      await t.db.kysely.insertInto('passkeys').values({ user_id: u.id, credential_id: `cap-${u.id}-${i}`, public_key: new Uint8Array([1]), name: `Ключ ${i}` }).execute();
    }
    // One place left: a ceremony starts, another passkey takes the place meanwhile, the ceremony's end is refused.
    const late = await call('POST', '/api/passkeys/register/options', u.auth);
    expect(late.statusCode).toBe(200);
    await t.db.kysely.insertInto('passkeys').values({ user_id: u.id, credential_id: `cap-${u.id}-last`, public_key: new Uint8Array([1]), name: 'Последний' }).execute();
    const refused = await call('POST', '/api/passkeys/register/verify', u.auth, { response: softAuthenticator().register(late.json()) });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().message).toBe(TWO_FACTOR_MESSAGES.passkeysMax);
    const full = await call('POST', '/api/passkeys/register/options', u.auth);
    expect(full.statusCode).toBe(409);
    expect(full.json().message).toBe(TWO_FACTOR_MESSAGES.passkeysMax);
    expect(await count()).toBe(PASSKEYS_MAX);

    // Removing one makes room again.
    const some = (await call('GET', '/api/passkeys', u.auth)).json() as { id: number }[];
    expect((await call('DELETE', `/api/passkeys/${some.at(-1)!.id}`, u.auth)).statusCode).toBe(200);
    expect((await call('POST', '/api/passkeys/register/options', u.auth)).statusCode).toBe(200);
  });

  it('ceremonies finishing at once past the cap add no more than the cap allows', async () => {
    const u = await createUser(t.db.kysely);
    for (let i = 0; i < PASSKEYS_MAX - 1; i++) {
      await t.db.kysely.insertInto('passkeys').values({ user_id: u.id, credential_id: `race-${u.id}-${i}`, public_key: new Uint8Array([1]), name: `Ключ ${i}` }).execute();
    }
    // One place left; six ceremonies were started while it was free and finish together.
    const ceremonies = [];
    for (let i = 0; i < 6; i++) ceremonies.push(softAuthenticator().register((await call('POST', '/api/passkeys/register/options', u.auth)).json()));
    const answers = await Promise.all(ceremonies.map((response) => call('POST', '/api/passkeys/register/verify', u.auth, { response })));
    for (const a of answers) expect([200, 409]).toContain(a.statusCode);
    const count = (await t.db.kysely.selectFrom('passkeys').select('id').where('user_id', '=', u.id).execute()).length;
    expect(count).toBe(PASSKEYS_MAX);
  });

  it('an old stolen session of an account without a password cannot add a passkey, nor use one to look freshly signed in and turn TOTP on', async () => {
    const owner = await createUser(t.db.kysely); // Telegram or Discord only: no password, no TOTP
    const passkeysOf = async () => (await t.db.kysely.selectFrom('passkeys').select('id').where('user_id', '=', owner.id).execute()).length;
    const setFreshness = (at: Date) => t.db.kysely.updateTable('tokens').set({ created_at: at }).where('user_id', '=', owner.id).execute();
    // The thief's copy of the session is an hour old.
    await setFreshness(new Date(Date.now() - 60 * 60_000));
    const stale = await call('POST', '/api/passkeys/register/options', owner.auth);
    expect(stale.statusCode).toBe(403);
    expect(stale.json().message).toBe(TWO_FACTOR_MESSAGES.freshSignInPasskey);
    expect(await passkeysOf()).toBe(0);

    // The owner signed in a moment ago (as the thief could have, before): a passkey can be added…
    await setFreshness(new Date());
    const key = softAuthenticator();
    const options = (await call('POST', '/api/passkeys/register/options', owner.auth)).json();
    expect((await call('POST', '/api/passkeys/register/verify', owner.auth, { response: key.register(options) })).statusCode).toBe(200);
    // …but a brand-new session made by that passkey is not the account's own fresh sign-in.
    const viaPasskey = await call('POST', '/api/passkeys/login/verify', {}, { response: key.assert((await call('POST', '/api/passkeys/login/options')).json()) });
    expect(viaPasskey.statusCode).toBe(200);
    const passkeySession = { authorization: `Bearer ${viaPasskey.json().access_token}` };
    const setup = await call('POST', '/api/2fa/setup', passkeySession);
    expect(setup.statusCode).toBe(200);
    const enable = await call('POST', '/api/2fa/enable', passkeySession, { code: totpCode(setup.json().secret, new Date()) });
    expect(enable.statusCode).toBe(403);
    expect(enable.json().message).toBe(TWO_FACTOR_MESSAGES.freshSignIn);
    expect(await call('POST', '/api/passkeys/register/options', passkeySession).then((r) => r.statusCode)).toBe(403);
    expect((await call('GET', '/api/user', owner.auth)).json().two_factor).toBe(false);
  });

  it.runIf(kind === 'postgres')('a passkey its owner deletes while a sign-in with it is under way signs nobody in, even one that keeps no counter', async () => {
    const u = await createUser(t.db.kysely);
    // A synced passkey: its signatures all count 0, so the counter check cannot notice anything.
    const synced = softAuthenticator(undefined, { keepsCounter: false });
    const options = await call('POST', '/api/passkeys/register/options', u.auth);
    expect((await call('POST', '/api/passkeys/register/verify', u.auth, { response: synced.register(options.json()) })).statusCode).toBe(200);
    const passkeyId = (await t.db.kysely.selectFrom('passkeys').select('id').where('user_id', '=', u.id).executeTakeFirstOrThrow()).id;
    const first = await call('POST', '/api/passkeys/login/verify', {}, { response: synced.assert((await call('POST', '/api/passkeys/login/options')).json()) });
    expect(first.statusCode).toBe(200);
    const sessions = async () => (await t.db.kysely.selectFrom('tokens').select('id').where('user_id', '=', u.id).where('kind', '=', 'access').execute()).length;
    const before = await sessions();
    // The owner's delete (DELETE /passkeys/{id}'s statement) has run and not yet committed when the sign-in, past its signature check, reaches the passkey's row.
    const hold = await holdLocks(t.db.kysely, (trx) => trx.deleteFrom('passkeys').where('id', '=', passkeyId).execute());
    const signIn = call('POST', '/api/passkeys/login/verify', {}, { response: synced.assert((await call('POST', '/api/passkeys/login/options')).json()) });
    await waitFor(async () => ((await lockWaits(t.db.kysely, '%passkeys%')) === 1 ? true : undefined), 'the sign-in waiting for the passkey row');
    await hold.release();
    const late = await signIn;
    expect(late.statusCode).toBe(422);
    expect(late.json()).not.toHaveProperty('access_token');
    expect(await sessions()).toBe(before);
  });

  // Stress review 2026-11-28: the sign-in took the passkey's row (its counter) and then the user's (the new
  // session), a block with revoke_keys the user's and then the passkeys: each waited for the other, one answered 503.
  it.runIf(kind === 'postgres').each([
    ['with revoke_keys', true, 422],
    ['a plain block', false, 401],
  ])('a passkey sign-in while an operator blocks the account (%s) waits for the block and signs nobody in (no deadlock)', async (_name, revokeKeys, refusal) => {
    const operator = await createUser(t.db.kysely, { admin: true });
    const u = await createUser(t.db.kysely);
    const key = softAuthenticator();
    const options = await call('POST', '/api/passkeys/register/options', u.auth);
    expect((await call('POST', '/api/passkeys/register/verify', u.auth, { response: key.register(options.json()) })).statusCode).toBe(200);
    const assertion = key.assert((await call('POST', '/api/passkeys/login/options')).json());
    // The block has taken the user's row (an operator's change locks it first) and waits here; the sign-in comes after it.
    const hold = await holdLocks(t.db.kysely, (trx) => trx.selectFrom('users').select('id').where('id', '=', u.id).forNoKeyUpdate().execute());
    const block = call('POST', `/api/admin/users/${u.id}/block`, operator.auth, { reason: 'Аккаунт угнан', revoke_keys: revokeKeys });
    await waitFor(async () => ((await lockWaits(t.db.kysely)) === 1 ? true : undefined), "the block waiting for the user's row");
    const signIn = call('POST', '/api/passkeys/login/verify', {}, { response: assertion });
    await waitFor(async () => ((await lockWaits(t.db.kysely)) === 2 ? true : undefined), 'the sign-in waiting as well');
    await hold.release();
    const [blocked, late] = await Promise.all([block, signIn]);
    expect([blocked.statusCode, late.statusCode]).not.toContain(503);
    // The block lands first: the sign-in is refused as one of a removed passkey (422) or of a user blocked meanwhile (401).
    expect([blocked.statusCode, late.statusCode]).toEqual([200, refusal]);
    expect(late.json()).not.toHaveProperty('access_token');
    expect(await t.db.kysely.selectFrom('passkeys').select('id').where('user_id', '=', u.id).execute()).toHaveLength(revokeKeys ? 0 : 1);
    expect(await t.db.kysely.selectFrom('tokens').select('id').where('user_id', '=', u.id).execute()).toEqual([]);
  });
});
