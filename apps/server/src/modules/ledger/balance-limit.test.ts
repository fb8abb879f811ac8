import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, createWallet, firstServerId, fund } from '../../../test/factories';
import { createTestApp, DB_KINDS, type TestApp } from '../../../test/harness';
import { auditLedger } from './ledger.service';

const KK = 1_000_000;
const MAX = BigInt(Number.MAX_SAFE_INTEGER);

type Player = Awaited<ReturnType<typeof createUser>>;

// The API carries amounts up to 2^53 − 1 (PRODUCT.md): no movement may take a wallet past it, or
// every later read of that wallet would fail.
describe.each(DB_KINDS)('a balance never passes the largest amount the API carries, on %s', (kind) => {
  let t: TestApp;
  let serverId: number;
  let operators: Player[];
  const call = (method: 'GET' | 'POST', url: string, who: Player, payload?: object) =>
    t.app.inject({ method, url, headers: who.auth, ...(payload ? { payload } : {}) });
  const balanceOf = async (walletId: number) =>
    BigInt((await t.db.kysely.selectFrom('wallets').select('balance').where('id', '=', walletId).executeTakeFirstOrThrow()).balance);
  const expectReadable = async (who: Player) => expect((await call('GET', '/api/wallets', who)).statusCode).toBe(200);
  const expectAudit = async () => expect(await auditLedger(t.db.kysely)).toMatchObject({ ok: true, problems: [] });

  beforeAll(async () => {
    t = await createTestApp(kind);
    serverId = await firstServerId(t.db.kysely);
    operators = await Promise.all([createUser(t.db.kysely, { admin: true }), createUser(t.db.kysely, { admin: true })]);
  });
  afterAll(() => t.close());

  it('two operators completing deposits that together pass it: one is credited, the other refused and still pending', async () => {
    const p = await createUser(t.db.kysely);
    const w = await createWallet(t.db.kysely, p.id, serverId);
    const ids: number[] = [];
    for (let i = 0; i < 2; i++) ids.push((await call('POST', '/api/up_balance_user/', p, { gamesserver_id: serverId, amount: 2 * KK })).json().success.id);
    await fund(t.db.kysely, w, MAX - 3n * BigInt(KK));

    const results = await Promise.all(ids.map((id, i) => call('POST', `/api/admin/requests/${id}/complete`, operators[i]!, {})));

    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    expect(results.find((r) => r.statusCode === 409)!.json()).toMatchObject({ message: 'Баланс кошелька превысил бы допустимый предел' });
    expect(await balanceOf(w.id)).toBe(MAX - BigInt(KK));
    const statuses = await t.db.kysely.selectFrom('balance_requests').select('status').where('id', 'in', ids).execute();
    expect(statuses.map((s) => s.status).sort()).toEqual(['completed', 'pending']);
    await expectReadable(p);
    await expectAudit();
  });

  it('activating a code that would pass it is refused; the code stays active for someone else', async () => {
    const issuer = await createUser(t.db.kysely);
    const iw = await createWallet(t.db.kysely, issuer.id, serverId);
    await fund(t.db.kysely, iw, 2n * BigInt(KK));
    const sert = (await call('POST', '/api/show_code/', issuer, { gamesserver_id: serverId, nominal: KK, wallet_id: iw.id })).json().sert;
    const rich = await createUser(t.db.kysely);
    const rw = await createWallet(t.db.kysely, rich.id, serverId);
    await fund(t.db.kysely, rw, MAX - BigInt(KK / 2));

    const refused = await call('POST', '/api/activation_code/', rich, { sert });

    expect(refused.statusCode).toBe(409);
    expect(await balanceOf(rw.id)).toBe(MAX - BigInt(KK / 2));
    await expectReadable(rich);
    const other = await createUser(t.db.kysely);
    expect((await call('POST', '/api/activation_code/', other, { sert })).statusCode).toBe(200);
    await expectAudit();
  });

  it('a refund that would pass it is refused too (the hold stays, nothing is lost) until the wallet has room', async () => {
    const p = await createUser(t.db.kysely);
    const w = await createWallet(t.db.kysely, p.id, serverId);
    await fund(t.db.kysely, w, 2n * BigInt(KK));
    const { id } = (await call('POST', '/api/down_balance_user/', p, { gamesserver_id: serverId, amount: 2 * KK })).json().success;
    await fund(t.db.kysely, w, MAX - BigInt(KK));

    expect((await call('POST', `/api/admin/requests/${id}/reject`, operators[0]!, { reason: 'Нет персонажа' })).statusCode).toBe(409);
    expect(await balanceOf(w.id)).toBe(MAX - BigInt(KK));
    await expectReadable(p);

    const out = (await call('POST', '/api/down_balance_user/', p, { gamesserver_id: serverId, amount: 2 * KK })).json().success;
    expect(out.id).toBeGreaterThan(id);
    expect((await call('POST', `/api/admin/requests/${id}/reject`, operators[0]!, { reason: 'Нет персонажа' })).statusCode).toBe(200);
    expect(await balanceOf(w.id)).toBe(MAX - BigInt(KK));
    await expectAudit();
  });
});
