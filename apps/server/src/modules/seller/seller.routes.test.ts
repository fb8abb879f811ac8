import { type SellerCode, TWO_FACTOR_MESSAGES } from '@adena/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, createWallet, firstServerId, fund, TEST_TOTP_SECRET } from '../../../test/factories';
import { createTestApp, DB_KINDS, type TestApp } from '../../../test/harness';
import { feeOf } from '../../lib/money';
import { hashPassword } from '../../lib/password';
import { hashToken, newToken } from '../../lib/tokens';
import { auditLedger } from '../ledger/ledger.service';
import { totpCode } from '../two-factor/totp';

const KK = 1_000_000;
type Player = Awaited<ReturnType<typeof createUser>>;
type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

describe.each(DB_KINDS)('the seller API on %s', (kind) => {
  let t: TestApp;
  let serverId: number;
  let seller: Player;
  let other: Player;
  let wallet: { id: number; gamesserver_id: number };
  const call = (method: Method, url: string, headers: Record<string, string>, payload?: unknown) =>
    t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
  const keyAuth = (key: string, extra: Record<string, string> = {}) => ({ authorization: `Bearer ${key}`, ...extra });
  const newKey = async (who: Player, name = 'FunPay') => {
    const res = await call('POST', '/api/api_keys', who.auth, { name });
    expect(res.statusCode).toBe(200);
    return res.json() as { id: number; key: string; name: string };
  };
  const balance = async (walletId: number) =>
    Number((await t.db.kysely.selectFrom('wallets').select('balance').where('id', '=', walletId).executeTakeFirstOrThrow()).balance);
  const expectAudit = async () => expect(await auditLedger(t.db.kysely)).toMatchObject({ ok: true, problems: [] });

  beforeAll(async () => {
    t = await createTestApp(kind);
    serverId = await firstServerId(t.db.kysely);
    seller = await createUser(t.db.kysely);
    other = await createUser(t.db.kysely);
    wallet = await createWallet(t.db.kysely, seller.id, serverId, 'Seller');
    await fund(t.db.kysely, wallet, 1000n * BigInt(KK));
  });
  afterAll(async () => t.close());

  it('creates a key shown once, lists it by prefix without the key, and stores only its hash', async () => {
    const k = await newKey(seller, 'G2G бот');
    expect(k.key).toMatch(/^aw_[A-Za-z0-9_-]{43}$/);
    const list = (await call('GET', '/api/api_keys', seller.auth)).json() as { id: number; prefix: string; name: string; last_used_at: string | null }[];
    const row = list.find((x) => x.id === k.id)!;
    expect(row).toMatchObject({ name: 'G2G бот', last_used_at: null });
    expect(k.key.startsWith(row.prefix.replace('…', ''))).toBe(true);
    expect(JSON.stringify(list)).not.toContain(k.key);
    const stored = await t.db.kysely.selectFrom('api_keys').selectAll().where('id', '=', k.id).executeTakeFirstOrThrow();
    expect(stored.key_hash).not.toContain(k.key);
    expect(JSON.stringify(stored)).not.toContain(k.key);
  });

  it('refuses a bad key name with a Russian 422 and an anonymous caller with 401', async () => {
    const bad = await call('POST', '/api/api_keys', seller.auth, { name: 'a\u0000b' });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors.name[0]).toMatch(/символ/);
    expect((await call('POST', '/api/api_keys', seller.auth, { name: '' })).statusCode).toBe(422);
    expect((await call('POST', '/api/api_keys', {}, { name: 'x' })).statusCode).toBe(401);
    expect((await call('GET', '/api/api_keys', {})).statusCode).toBe(401);
  });

  it("a stolen access token alone cannot create a key for a password account without TOTP; the owner's password does", async () => {
    const owner = await createUser(t.db.kysely);
    await t.db.kysely.updateTable('users').set({ password_hash: await hashPassword('Owner-Pa55word') }).where('id', '=', owner.id).execute();
    const keysOf = () => t.db.kysely.selectFrom('api_keys').select(['id', 'revoked_at']).where('user_id', '=', owner.id).execute();
    const before = await keysOf();
    // The thief holds a copy of the owner's session, not the password: a key would issue codes from the
    // balance and outlive logout, «Завершить другие сеансы» and a password change.
    for (const [payload, message] of [
      [{ name: 'вор' }, 'Введите текущий пароль'],
      [{ name: 'вор', password: '' }, 'Введите текущий пароль'],
      [{ name: 'вор', password: 'guess-1234' }, 'Неверный текущий пароль'],
    ] as const) {
      const refused = await call('POST', '/api/api_keys', owner.auth, payload);
      expect(refused.statusCode).toBe(422);
      expect(refused.json().errors.password).toEqual([message]);
    }
    expect(await keysOf()).toEqual(before);
    // The wrong guess locked nothing: the owner still signs in with the password.
    expect((await t.app.inject({ method: 'POST', url: '/api/login', payload: { email: owner.email, password: 'Owner-Pa55word' } })).statusCode).toBe(200);

    const made = await call('POST', '/api/api_keys', owner.auth, { name: 'Магазин', password: 'Owner-Pa55word' });
    expect(made.statusCode).toBe(200);
    expect(made.json().key).toMatch(/^aw_/);
    expect(await keysOf()).toEqual([{ id: made.json().id, revoked_at: null }]);
  });

  it('an account without a password or TOTP creates a key only from a fresh Discord or Telegram sign-in, not an old or a passkey session', async () => {
    const owner = await createUser(t.db.kysely); // Telegram or Discord only: no password, no TOTP
    const keysOf = async () => (await t.db.kysely.selectFrom('api_keys').select('id').where('user_id', '=', owner.id).execute()).length;
    const setFreshness = (at: Date) => t.db.kysely.updateTable('tokens').set({ created_at: at }).where('token_hash', '=', hashToken(owner.token)).execute();
    // The thief's copy of the session is an hour old.
    await setFreshness(new Date(Date.now() - 60 * 60_000));
    const stale = await call('POST', '/api/api_keys', owner.auth, { name: 'вор' });
    expect(stale.statusCode).toBe(403);
    expect(stale.json().message).toBe(TWO_FACTOR_MESSAGES.freshSignInApiKey);
    // A session a passkey made a moment ago is not the account's own sign-in either.
    const viaPasskey = newToken();
    await t.db.kysely.insertInto('tokens').values({ user_id: owner.id, kind: 'access', token_hash: hashToken(viaPasskey), method: 'passkey' }).execute();
    const passkeySession = await call('POST', '/api/api_keys', { authorization: `Bearer ${viaPasskey}` }, { name: 'вор' });
    expect(passkeySession.statusCode).toBe(403);
    expect(passkeySession.json().message).toBe(TWO_FACTOR_MESSAGES.freshSignInApiKey);
    expect(await keysOf()).toBe(0);

    // The owner signed in again a moment ago: the key is made, no password asked.
    await setFreshness(new Date());
    expect((await call('POST', '/api/api_keys', owner.auth, { name: 'Магазин' })).statusCode).toBe(200);
    expect(await keysOf()).toBe(1);
  });

  it('a TOTP user is still asked for the code, which the password does not replace', async () => {
    const u = await createUser(t.db.kysely, { totp: true });
    await t.db.kysely.updateTable('users').set({ password_hash: await hashPassword('Totp-Pa55word') }).where('id', '=', u.id).execute();
    for (const payload of [{ name: 'вор' }, { name: 'вор', password: 'Totp-Pa55word' }]) {
      const refused = await call('POST', '/api/api_keys', u.auth, payload);
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toMatchObject({ two_factor_required: true });
    }
    expect(await t.db.kysely.selectFrom('api_keys').select('id').where('user_id', '=', u.id).execute()).toEqual([]);
    const made = await call('POST', '/api/api_keys', { ...u.auth, 'x-two-factor-code': totpCode(TEST_TOTP_SECRET, new Date()) }, { name: 'Магазин' });
    expect(made.statusCode).toBe(200);
  });

  it('answers v1 calls with a key, writes last use, and logs each call with the key id', async () => {
    const k = await newKey(seller);
    const res = await call('GET', `/api/v1/balance?gamesserver_id=${serverId}`, keyAuth(k.key));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ gamesserver_id: serverId, balance: await balance(wallet.id), balance_second: 0 });
    const row = await t.db.kysely.selectFrom('api_keys').select('last_used_at').where('id', '=', k.id).executeTakeFirstOrThrow();
    expect(row.last_used_at).not.toBeNull();
    await call('GET', '/api/v1/codes', keyAuth(k.key));
    // The log row is written once the answer has left (onResponse), so it may land just after it.
    const calls = async () =>
      (await t.db.kysely.selectFrom('api_key_calls').selectAll().where('api_key_id', '=', k.id).orderBy('id').execute()).map((c) => [
        c.method,
        c.path,
        c.status_code,
        c.user_id,
      ]);
    await expect.poll(calls).toEqual([
      ['GET', '/api/v1/balance', 200, seller.id],
      ['GET', '/api/v1/codes', 200, seller.id],
    ]);
  });

  it('refuses v1 with an access token, with no token, and a key outside v1', async () => {
    const k = await newKey(seller);
    const withToken = await call('GET', `/api/v1/balance?gamesserver_id=${serverId}`, seller.auth);
    expect(withToken.statusCode).toBe(401);
    expect(withToken.json().message).toMatch(/API-ключ/);
    expect((await call('GET', `/api/v1/balance?gamesserver_id=${serverId}`, {})).statusCode).toBe(401);
    // A key is not an access token: the app's own calls refuse it.
    expect((await call('GET', '/api/wallets', keyAuth(k.key))).statusCode).toBe(401);
    expect((await call('GET', '/api/api_keys', keyAuth(k.key))).statusCode).toBe(401);
    expect((await call('POST', '/api/show_code/', keyAuth(k.key), { gamesserver_id: serverId, nominal: KK, wallet_id: wallet.id })).statusCode).toBe(401);
  });

  it('refuses a revoked key at once, and another user cannot revoke a key', async () => {
    const k = await newKey(seller);
    expect((await call('DELETE', `/api/api_keys/${k.id}`, other.auth)).statusCode).toBe(404);
    expect((await call('GET', `/api/v1/balance?gamesserver_id=${serverId}`, keyAuth(k.key))).statusCode).toBe(200);
    const del = await call('DELETE', `/api/api_keys/${k.id}`, seller.auth);
    expect(del.json()).toEqual({ success: k.id });
    expect((await call('GET', `/api/v1/balance?gamesserver_id=${serverId}`, keyAuth(k.key))).statusCode).toBe(401);
    const list = (await call('GET', '/api/api_keys', seller.auth)).json() as { id: number }[];
    expect(list.map((x) => x.id)).not.toContain(k.id);
    expect((await call('DELETE', `/api/api_keys/${k.id}`, seller.auth)).statusCode).toBe(404);
  });

  it('issues codes at the fee, charges once, lists, gets and cancels them with a refund', async () => {
    const k = await newKey(seller);
    const before = await balance(wallet.id);
    const server = await t.db.kysely.selectFrom('gamesservers').selectAll().where('id', '=', serverId).executeTakeFirstOrThrow();
    const price = 2 * KK + Number(feeOf(2n * BigInt(KK), server.code_fee_bp));
    const res = await call('POST', '/api/v1/codes', keyAuth(k.key, { 'idempotency-key': 'order-1' }), {
      gamesserver_id: serverId,
      nominal: 2 * KK,
      count: 3,
      external_id: 'FP-123',
    });
    expect(res.statusCode).toBe(200);
    const body = res.json() as { codes: SellerCode[]; summa: number };
    expect(body.codes).toHaveLength(3);
    expect(body.summa).toBe(3 * price);
    expect(new Set(body.codes.map((c) => c.sert)).size).toBe(3);
    expect(body.codes.every((c) => c.status === 'active' && c.external_id === 'FP-123' && c.price === price)).toBe(true);
    expect(await balance(wallet.id)).toBe(before - 3 * price);

    const list = (await call('GET', `/api/v1/codes?status=active&gamesserver_id=${serverId}`, keyAuth(k.key))).json() as { data: SellerCode[]; total: number };
    expect(list.data.map((c) => c.id)).toEqual(expect.arrayContaining(body.codes.map((c) => c.id)));
    const one = await call('GET', `/api/v1/codes/${body.codes[0]!.id}`, keyAuth(k.key));
    expect(one.json()).toMatchObject({ id: body.codes[0]!.id, sert: body.codes[0]!.sert });

    const cancelled = await call('DELETE', `/api/v1/codes/${body.codes[0]!.id}`, keyAuth(k.key));
    expect(cancelled.statusCode).toBe(200);
    expect(cancelled.json()).toMatchObject({ id: body.codes[0]!.id, status: 'cancelled' });
    expect(await balance(wallet.id)).toBe(before - 2 * price);
    const again = await call('DELETE', `/api/v1/codes/${body.codes[0]!.id}`, keyAuth(k.key));
    expect(again.statusCode).toBe(409);
    expect(await balance(wallet.id)).toBe(before - 2 * price);

    // With an Idempotency-Key, the retry of a cancel whose answer was lost gets that answer, not 409; the refund stays one.
    const id = body.codes[1]!.id;
    const keyed = () => call('DELETE', `/api/v1/codes/${id}`, keyAuth(k.key, { 'idempotency-key': `cancel-${id}` }));
    const first = await keyed();
    expect(first.statusCode).toBe(200);
    const retry = await keyed();
    expect(retry.statusCode).toBe(200);
    expect(retry.json()).toEqual(first.json());
    expect(retry.json()).toMatchObject({ id, status: 'cancelled' });
    expect(await balance(wallet.id)).toBe(before - price);
    // The same key for another code is another request: 409, nothing moves.
    const reused = await call('DELETE', `/api/v1/codes/${body.codes[2]!.id}`, keyAuth(k.key, { 'idempotency-key': `cancel-${id}` }));
    expect(reused.statusCode).toBe(409);
    expect(await balance(wallet.id)).toBe(before - price);
    await expectAudit();
  });

  it('never shows or cancels another user\u2019s codes', async () => {
    const mine = await newKey(seller);
    const theirs = await newKey(other);
    const res = await call('POST', '/api/v1/codes', keyAuth(mine.key, { 'idempotency-key': 'own-1' }), { gamesserver_id: serverId, nominal: KK, count: 1 });
    const code = (res.json() as { codes: SellerCode[] }).codes[0]!;
    expect((await call('GET', `/api/v1/codes/${code.id}`, keyAuth(theirs.key))).statusCode).toBe(404);
    expect((await call('DELETE', `/api/v1/codes/${code.id}`, keyAuth(theirs.key))).statusCode).toBe(404);
    const list = (await call('GET', '/api/v1/codes', keyAuth(theirs.key))).json() as { data: SellerCode[]; total: number };
    expect(list).toEqual({ data: [], total: 0 });
    const still = await t.db.kysely.selectFrom('codes').select('status').where('id', '=', code.id).executeTakeFirstOrThrow();
    expect(still.status).toBe('active');
  });

  it('walks the active codes with older_than: a code activated between two pages shifts nothing, none is missed or read twice', async () => {
    const owner = await createUser(t.db.kysely);
    await fund(t.db.kysely, await createWallet(t.db.kysely, owner.id, serverId, 'Walker'), 100n * BigInt(KK));
    const k = await newKey(owner);
    const issued = await call('POST', '/api/v1/codes', keyAuth(k.key, { 'idempotency-key': 'walk-60' }), { gamesserver_id: serverId, nominal: KK, count: 60 });
    expect(issued.statusCode).toBe(200);
    const ids = (issued.json() as { codes: SellerCode[] }).codes.map((c) => c.id).sort((a, b) => b - a);
    type Page = { data: SellerCode[]; total: number };
    const list = async (query: string) => {
      const res = await call('GET', `/api/v1/codes?${query}`, keyAuth(k.key));
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as Page;
    };
    const first = await list('status=active&page=1');
    expect(first.data.map((c) => c.id)).toEqual(ids.slice(0, 50));
    expect(first.total).toBe(60);
    // A buyer activates a code of page 1 before the seller's program reads on: with page=2 the rest
    // shifted up by one and the oldest still-active code of page 1's tail was on no page.
    expect((await call('POST', '/api/activation_code/', other.auth, { sert: first.data[10]!.sert })).statusCode).toBe(200);
    const cursor = first.data.at(-1)!.id;
    const second = await list(`status=active&older_than=${cursor}&page=1`);
    expect(second.data.map((c) => c.id)).toEqual(ids.slice(50));
    const read = [...first.data, ...second.data].map((c) => c.id);
    expect(new Set(read).size).toBe(read.length);
    expect([...read].sort((a, b) => b - a)).toEqual(ids);
    // `total` counts every code the filters match, the cursor aside; `page` counts on from the cursor.
    expect(second.total).toBe(59);
    expect(await list(`status=active&older_than=${cursor}&page=2`)).toEqual({ data: [], total: 59 });
    expect((await list(`older_than=${ids[0]}`)).data.map((c) => c.id)).toEqual(ids.slice(1, 51));
  });

  it('refuses a bad older_than with the contract message, and the cursor never reaches another seller\u2019s codes', async () => {
    const k = await newKey(seller);
    for (const bad of ['0', '-5', 'abc', '1.5', '2147483648']) {
      const res = await call('GET', `/api/v1/codes?older_than=${bad}`, keyAuth(k.key));
      expect(res.statusCode, bad).toBe(422);
      expect(res.json().errors.older_than).toEqual(['Некорректный идентификатор']);
    }
    const a = await createUser(t.db.kysely);
    const b = await createUser(t.db.kysely);
    for (const u of [a, b]) await fund(t.db.kysely, await createWallet(t.db.kysely, u.id, serverId, 'Own'), 10n * BigInt(KK));
    const [ka, kb] = [await newKey(a), await newKey(b)];
    const issue = async (key: string, idem: string) =>
      ((await call('POST', '/api/v1/codes', keyAuth(key, { 'idempotency-key': idem }), { gamesserver_id: serverId, nominal: KK, count: 2 })).json() as { codes: SellerCode[] }).codes.map((c) => c.id);
    // Interleaved ids: a's, then b's, then a's again.
    const a1 = await issue(ka.key, 'a-1');
    const b1 = await issue(kb.key, 'b-1');
    const a2 = await issue(ka.key, 'a-2');
    const idsOf = async (key: string, olderThan: number) => {
      const res = await call('GET', `/api/v1/codes?older_than=${olderThan}`, keyAuth(key));
      expect(res.statusCode).toBe(200);
      const body = res.json() as { data: SellerCode[]; total: number };
      return { ids: body.data.map((c) => c.id), total: body.total };
    };
    expect(await idsOf(kb.key, Math.max(...a2) + 1)).toEqual({ ids: [...b1].reverse(), total: 2 });
    expect(await idsOf(ka.key, Math.max(...a2) + 1)).toEqual({ ids: [...a2, ...a1].sort((x, y) => y - x), total: 4 });
    expect(await idsOf(ka.key, Math.min(...a2))).toEqual({ ids: [...a1].reverse(), total: 4 });
    expect(await idsOf(kb.key, Math.min(...b1))).toEqual({ ids: [], total: 2 });
  });

  it('names `id`, not `sert`, in the 409 of a refused v1 cancel (activated or cancelled code)', async () => {
    const k = await newKey(seller);
    const res = await call('POST', '/api/v1/codes', keyAuth(k.key, { 'idempotency-key': 'refused-cancel' }), { gamesserver_id: serverId, nominal: KK, count: 2 });
    const [taken, mine] = (res.json() as { codes: SellerCode[] }).codes;
    expect((await call('POST', '/api/activation_code/', other.auth, { sert: taken!.sert })).statusCode).toBe(200);
    const activated = await call('DELETE', `/api/v1/codes/${taken!.id}`, keyAuth(k.key));
    expect(activated.statusCode).toBe(409);
    expect(activated.json()).toEqual({ message: 'Код уже активирован', errors: { id: ['Код уже активирован'] }, status: 'activated' });
    expect((await call('DELETE', `/api/v1/codes/${mine!.id}`, keyAuth(k.key))).statusCode).toBe(200);
    const cancelled = await call('DELETE', `/api/v1/codes/${mine!.id}`, keyAuth(k.key));
    expect(cancelled.statusCode).toBe(409);
    expect(cancelled.json()).toEqual({ message: 'Код отменён владельцем', errors: { id: ['Код отменён владельцем'] }, status: 'cancelled' });
  });

  it('refuses `count` sent as text with the type message, not «Обязательное поле», and takes `external_id: null` as no order number', async () => {
    const k = await newKey(seller);
    const issue = (idem: string, body: object) => call('POST', '/api/v1/codes', keyAuth(k.key, { 'idempotency-key': idem }), { gamesserver_id: serverId, nominal: KK, ...body });
    const asText = await issue('count-text', { count: '2' });
    expect(asText.statusCode).toBe(422);
    expect(asText.json().errors.count).toEqual(['Количество — целое число']);
    expect((await issue('count-missing', {})).json().errors.count).toEqual(['Обязательное поле']);
    expect((await issue('count-null', { count: null })).json().errors.count).toEqual(['Количество — целое число']);

    const before = await balance(wallet.id);
    // null first, then the same key without the field; and the other way round: each pair is one request.
    for (const [idem, firstBody, retryBody] of [
      ['null-then-absent', { count: 1, external_id: null }, { count: 1 }],
      ['absent-then-null', { count: 1 }, { count: 1, external_id: null }],
    ] as const) {
      const first = await issue(idem, firstBody);
      expect(first.statusCode, first.body).toBe(200);
      const code = (first.json() as { codes: SellerCode[] }).codes[0]!;
      expect(code.external_id).toBeNull();
      const retry = await issue(idem, retryBody);
      expect(retry.statusCode, retry.body).toBe(200);
      expect(retry.json()).toEqual(first.json());
      const row = await t.db.kysely.selectFrom('codes').select('external_id').where('id', '=', code.id).executeTakeFirstOrThrow();
      expect(row.external_id).toBeNull();
    }
    const server = await t.db.kysely.selectFrom('gamesservers').selectAll().where('id', '=', serverId).executeTakeFirstOrThrow();
    expect(await balance(wallet.id)).toBe(before - 2 * (KK + Number(feeOf(BigInt(KK), server.code_fee_bp))));
    await expectAudit();
  });

  it('answers bad v1 input with Russian 422s, insufficient balance with 409, and requires an Idempotency-Key', async () => {
    const k = await newKey(seller);
    const noKey = await call('POST', '/api/v1/codes', keyAuth(k.key), { gamesserver_id: serverId, nominal: KK, count: 1 });
    expect(noKey.statusCode).toBe(422);
    expect(noKey.json().errors['Idempotency-Key'][0]).toMatch(/Idempotency-Key/);
    const tooMany = await call('POST', '/api/v1/codes', keyAuth(k.key, { 'idempotency-key': 'x1' }), { gamesserver_id: serverId, nominal: KK, count: 101 });
    expect(tooMany.statusCode).toBe(422);
    expect(tooMany.json().errors.count[0]).toMatch(/Не больше 100/);
    const junk = await call('POST', '/api/v1/codes', keyAuth(k.key, { 'idempotency-key': 'x2' }), { gamesserver_id: 'a', nominal: -1 });
    expect(junk.statusCode).toBe(422);
    expect(Object.keys(junk.json().errors)).toEqual(expect.arrayContaining(['gamesserver_id', 'nominal', 'count']));
    expect((await call('GET', '/api/v1/balance?gamesserver_id=abc', keyAuth(k.key))).statusCode).toBe(422);
    expect((await call('GET', '/api/v1/balance?gamesserver_id=99999', keyAuth(k.key))).statusCode).toBe(404);
    expect((await call('GET', '/api/v1/codes?status=lost', keyAuth(k.key))).statusCode).toBe(422);
    const poor = await createUser(t.db.kysely);
    const poorKey = await newKey(poor);
    const broke = await call('POST', '/api/v1/codes', keyAuth(poorKey.key, { 'idempotency-key': 'x3' }), { gamesserver_id: serverId, nominal: KK, count: 2 });
    expect(broke.statusCode).toBe(409);
    expect(broke.json()).toMatchObject({ low_cap: true, errors: { count: ['Недостаточно средств на балансе'] } });
    expect(await t.db.kysely.selectFrom('codes').select('id').where('user_id', '=', poor.id).execute()).toEqual([]);
  });

  it('replays the first answer for a repeated Idempotency-Key and refuses the key for another body', async () => {
    const k = await newKey(seller);
    const before = await balance(wallet.id);
    const body = { gamesserver_id: serverId, nominal: KK, count: 2 };
    const a = await call('POST', '/api/v1/codes', keyAuth(k.key, { 'idempotency-key': 'same' }), body);
    const b = await call('POST', '/api/v1/codes', keyAuth(k.key, { 'idempotency-key': 'same' }), body);
    expect(b.json()).toEqual(a.json());
    const other = await call('POST', '/api/v1/codes', keyAuth(k.key, { 'idempotency-key': 'same' }), { ...body, count: 3 });
    expect(other.statusCode).toBe(409);
    expect(await balance(wallet.id)).toBe(before - (a.json() as { summa: number }).summa);
  });

  it("keeps Idempotency-Keys per user: another user's call with the owner's key and body never gets the owner's stored answer or codes", async () => {
    const owner = await createUser(t.db.kysely);
    const rival = await createUser(t.db.kysely);
    const ownerWallet = await createWallet(t.db.kysely, owner.id, serverId, 'Owner');
    await fund(t.db.kysely, ownerWallet, 100n * BigInt(KK));
    await fund(t.db.kysely, await createWallet(t.db.kysely, rival.id, serverId, 'Rival'), 100n * BigInt(KK));
    const ownerKey = await newKey(owner);
    const rivalKey = await newKey(rival);
    const showBody = { gamesserver_id: serverId, nominal: KK, wallet_id: ownerWallet.id };
    const batchBody = { gamesserver_id: serverId, nominal: KK, count: 2, external_id: 'FP-1' };
    const shown = await call('POST', '/api/show_code/', { ...owner.auth, 'idempotency-key': 'order-1' }, showBody);
    expect(shown.statusCode).toBe(200);
    const batch = await call('POST', '/api/v1/codes', keyAuth(ownerKey.key, { 'idempotency-key': 'order-2' }), batchBody);
    expect(batch.statusCode).toBe(200);
    const ownerSerts = [shown.json().sert as string, ...(batch.json() as { codes: SellerCode[] }).codes.map((c) => c.sert)];
    expect(ownerSerts).toHaveLength(3);
    const leaks = (body: string) => ownerSerts.filter((s) => body.includes(s) || body.includes(s.replace(/-/g, '')));
    const ownersState = async () => ({
      wallets: await t.db.kysely.selectFrom('wallets').selectAll().where('user_id', '=', owner.id).orderBy('id').execute(),
      codes: await t.db.kysely.selectFrom('codes').selectAll().where('user_id', '=', owner.id).orderBy('id').execute(),
      keys: await t.db.kysely.selectFrom('idempotency_keys').selectAll().where('user_id', '=', owner.id).orderBy('key').execute(),
    });
    const before = await ownersState();

    // The same key and body on show_code: the owner's wallet is not the rival's, and the owner's answer is not replayed.
    const rivalShow = await call('POST', '/api/show_code/', { ...rival.auth, 'idempotency-key': 'order-1' }, showBody);
    expect(rivalShow.statusCode).toBe(404);
    expect(rivalShow.json().message).toBe('Кошелёк не найден');
    expect(leaks(rivalShow.body)).toEqual([]);
    // The same key and body on v1 with the rival's API key: a fresh batch of the rival's own codes.
    const rivalBatch = await call('POST', '/api/v1/codes', keyAuth(rivalKey.key, { 'idempotency-key': 'order-2' }), batchBody);
    expect(rivalBatch.statusCode).toBe(200);
    expect(leaks(rivalBatch.body)).toEqual([]);
    const rivalCodes = (rivalBatch.json() as { codes: SellerCode[] }).codes;
    expect(rivalCodes).toHaveLength(2);
    const rows = await t.db.kysely.selectFrom('codes').select(['id', 'user_id']).where('id', 'in', rivalCodes.map((c) => c.id)).execute();
    expect(rows.map((r) => r.user_id)).toEqual([rival.id, rival.id]);
    // The rival's retry replays the rival's answer, still none of the owner's.
    const rivalRetry = await call('POST', '/api/v1/codes', keyAuth(rivalKey.key, { 'idempotency-key': 'order-2' }), batchBody);
    expect(rivalRetry.json()).toEqual(rivalBatch.json());

    // The owner's wallet, codes and stored answers are as they were, and the owner's retries still get their own answers.
    expect(await ownersState()).toEqual(before);
    expect((await call('POST', '/api/show_code/', { ...owner.auth, 'idempotency-key': 'order-1' }, showBody)).json()).toEqual(shown.json());
    expect((await call('POST', '/api/v1/codes', keyAuth(ownerKey.key, { 'idempotency-key': 'order-2' }), batchBody)).json()).toEqual(batch.json());
    await expectAudit();
  });

  it('limits calls per key with a Russian 429 and Retry-After, not the other keys', async () => {
    const k = await newKey(seller);
    const fresh = await newKey(seller);
    // Fill the key's window as 120 calls would have, then one more call is refused.
    await t.db.kysely
      .insertInto('rate_limits' as never)
      .values({ key: `apikey:${k.id}`, hits: 120, window_start: new Date() } as never)
      .execute();
    const res = await call('GET', `/api/v1/balance?gamesserver_id=${serverId}`, keyAuth(k.key));
    expect(res.statusCode).toBe(429);
    expect(res.headers['retry-after']).toBeDefined();
    expect(res.json().message).toMatch(/[А-Яа-я]/);
    expect((await call('GET', `/api/v1/balance?gamesserver_id=${serverId}`, keyAuth(fresh.key))).statusCode).toBe(200);
  });
});
