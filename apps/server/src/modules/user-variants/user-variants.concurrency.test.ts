import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, createWallet, firstServerId, fund } from '../../../test/factories';
import { createTestApp, createTestDb, type TestApp } from '../../../test/harness';
import { auditLedger } from '../ledger/ledger.service';

const KK = 1_000_000;
type Player = Awaited<ReturnType<typeof createUser>>;

// Real PostgreSQL with a pool of 40, so the parallel requests really overlap in the database.
describe('user variants under concurrency on postgres', () => {
  let t: TestApp;
  let serverId: number;
  let seller: Player;
  let sellerWallet: { id: number; gamesserver_id: number };
  const call = (method: 'POST', url: string, who: Player, payload?: object, ip = '127.0.0.1') =>
    t.app.inject({ method, url, headers: who.auth, remoteAddress: ip, ...(payload ? { payload } : {}) });
  const balanceOf = async (walletId: number) =>
    Number((await t.db.kysely.selectFrom('wallets').select('balance').where('id', '=', walletId).executeTakeFirstOrThrow()).balance);
  const adenaOf = async (userId: number) => {
    const w = await t.db.kysely.selectFrom('wallets').select('balance').where('user_id', '=', userId).where('gamesserver_id', '=', serverId).executeTakeFirst();
    return w ? Number(w.balance) : 0;
  };
  const expectAudit = async () => expect(await auditLedger(t.db.kysely)).toMatchObject({ ok: true, problems: [] });
  const batchCodes = (id: number) =>
    t.db.kysely.selectFrom('codes').select(['id', 'sert', 'status', 'nominal', 'price', 'activated_by']).where('pricekod_id', '=', id).execute();

  beforeAll(async () => {
    t = await createTestApp('postgres', { db: await createTestDb('postgres', 40) });
    serverId = await firstServerId(t.db.kysely);
    seller = await createUser(t.db.kysely);
    sellerWallet = await createWallet(t.db.kysely, seller.id, serverId);
    await fund(t.db.kysely, sellerWallet, 10_000n * BigInt(KK));
  });
  afterAll(async () => {
    await t.close();
    await t.db.close();
  });

  // Which racers win depends on who gets the batch's lock first (an edit to a new nominal that
  // lands first cancels every code the buyers hold, and show_code then meets the wrong nominal),
  // so this asserts what must hold whatever the order: money, the audit and the codes' states.
  it('keeps a batch consistent when its edits, deletes and activations race', async () => {
    const start = await balanceOf(sellerWallet.id);
    const created = (await call('POST', '/api/pricekods/', seller, { gamesserver_id: serverId, nominal: KK, count: 10 })).json() as {
      success: { id: number };
    };
    const id = created.success.id;
    const serts = (await batchCodes(id)).map((c) => c.sert);
    const buyers = await Promise.all(serts.map(() => createUser(t.db.kysely)));
    const results = await Promise.all([
      t.app.inject({ method: 'PUT', url: `/api/pricekods/${id}`, headers: seller.auth, payload: { gamesserver_id: serverId, nominal: 2 * KK, count: 3 } }),
      t.app.inject({ method: 'PUT', url: `/api/pricekods/${id}`, headers: seller.auth, payload: { gamesserver_id: serverId, nominal: KK, count: 6 } }),
      ...serts.map((s, i) => call('POST', '/api/activation_code/', buyers[i]!, { sert: s })),
      call('POST', '/api/show_code/', seller, { gamesserver_id: serverId, nominal: KK, wallet_id: sellerWallet.id, pricekod_id: id }),
    ]);
    // Each either happened or was refused for the state it met (a new nominal, an activated code).
    for (const r of results) expect([200, 409, 422]).toContain(r.statusCode);
    const activations = results.slice(2, 2 + serts.length);
    await expectAudit();

    const codes = await batchCodes(id);
    const variant = await t.db.kysely.selectFrom('pricekods').select('nominal').where('id', '=', id).executeTakeFirstOrThrow();
    // Every open code of the batch has the batch's nominal, whichever edit came last.
    for (const c of codes.filter((c) => c.status === 'active')) expect(c.nominal).toBe(variant.nominal);
    // A buyer is credited exactly when their activation answered 200, with that code's nominal.
    const activated = codes.filter((c) => c.status === 'activated');
    expect(activated).toHaveLength(activations.filter((r) => r.statusCode === 200).length);
    for (const [i, buyer] of buyers.entries()) {
      const won = activated.find((c) => c.activated_by === buyer.id);
      expect(won === undefined, `buyer ${i}`).toBe(activations[i]!.statusCode !== 200);
      expect(await adenaOf(buyer.id)).toBe(won ? Number(won.nominal) : 0);
    }
    // The seller has paid for exactly the codes that are not cancelled.
    const held = codes.filter((c) => c.status !== 'cancelled').reduce((s, c) => s + Number(c.price), 0);
    expect(await balanceOf(sellerWallet.id)).toBe(start - held);

    expect((await t.app.inject({ method: 'DELETE', url: `/api/pricekods/${id}`, headers: seller.auth })).statusCode).toBe(200);
    const open = await t.db.kysely.selectFrom('codes').select('id').where('pricekod_id', '=', id).where('status', '=', 'active').execute();
    expect(open).toEqual([]);
    const sold = activated.reduce((s, c) => s + Number(c.price), 0);
    expect(await balanceOf(sellerWallet.id)).toBe(start - sold);
    await expectAudit();
  });

  it('deletes a batch once when the same deletion is sent eight times at once with one Idempotency-Key', async () => {
    const before = await balanceOf(sellerWallet.id);
    const made = (await call('POST', '/api/pricekods/', seller, { gamesserver_id: serverId, nominal: KK, count: 4 })).json() as { success: { id: number } };
    const id = made.success.id;
    const paid = before - (await balanceOf(sellerWallet.id));
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => t.app.inject({ method: 'DELETE', url: `/api/pricekods/${id}`, headers: { ...seller.auth, 'idempotency-key': `race-${id}` } })),
    );
    // Every racer is answered with the one deletion's refund; the money came back once.
    for (const r of answers) expect(r.json()).toEqual({ success: id, summa: paid });
    expect(await balanceOf(sellerWallet.id)).toBe(before);
    const refunds = await t.db.kysely.selectFrom('ledger_transactions').select('id').where('kind', '=', 'pricekod_delete').where('ref_id', '=', BigInt(id)).execute();
    expect(refunds).toHaveLength(1);
    await expectAudit();
  });
});
