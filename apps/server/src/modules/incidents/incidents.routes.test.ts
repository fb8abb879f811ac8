import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, createWallet, firstServerId, fund } from '../../../test/factories';
import { createTestApp, DB_KINDS, type TestApp } from '../../../test/harness';
import { OWN_INCIDENTS_LISTED } from './incidents.repository';

const KK = 1_000_000;
type Player = Awaited<ReturnType<typeof createUser>>;
interface ListedIncident {
  id: number;
  code_id: number;
  acknowledged_at: string | null;
}

describe.each(DB_KINDS)("the issuer's incidents on %s", (kind) => {
  let t: TestApp;
  let serverId: number;
  const call = (method: 'GET' | 'POST', url: string, who: Player, payload?: object) =>
    t.app.inject({ method, url, headers: who.auth, ...(payload ? { payload } : {}) });
  const ok = async (method: 'GET' | 'POST', url: string, who: Player, payload?: object) => {
    const res = await call(method, url, who, payload);
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };

  beforeAll(async () => {
    t = await createTestApp(kind);
    serverId = await firstServerId(t.db.kysely);
  });
  afterAll(async () => {
    await t.close();
  });

  it('lists an open incident older than the newest 200, so it can still be acknowledged', async () => {
    // A seller's code is activated by a buyer, then tried by someone else: one open incident.
    const seller = await createUser(t.db.kysely);
    const w = await createWallet(t.db.kysely, seller.id, serverId, 'Seller');
    await fund(t.db.kysely, w, 10n * BigInt(KK));
    const code = await ok('POST', '/api/show_code/', seller, { gamesserver_id: serverId, nominal: 1 * KK, wallet_id: w.id });
    const buyer = await createUser(t.db.kysely);
    await createWallet(t.db.kysely, buyer.id, serverId, 'Buyer');
    await ok('POST', '/api/activation_code/', buyer, { sert: code.sert });
    const guesser = await createUser(t.db.kysely);
    expect((await call('POST', '/api/activation_code/', guesser, { sert: code.sert })).statusCode).toBe(409);
    const open = await t.db.kysely.selectFrom('code_incidents').select('id').where('user_id', '=', seller.id).executeTakeFirstOrThrow();

    // Then 200 newer incidents, all acknowledged (the seller read them).
    const row = { code_id: code.code_id, user_id: seller.id, gamesserver_id: serverId, attempted_by: guesser.id, code_status: 'activated' as const };
    await t.db.kysely
      .insertInto('code_incidents')
      .values(Array.from({ length: OWN_INCIDENTS_LISTED }, () => ({ ...row, acknowledged_at: new Date() })))
      .execute();
    expect(await ok('GET', '/api/get_error_user_code', seller)).toEqual({ error_codes_count: 1 });

    const listed: ListedIncident[] = await ok('GET', '/api/code_incidents', seller);
    // The newest 200 and the open one, newest first: the web's notice finds the open one to show.
    expect(listed).toHaveLength(OWN_INCIDENTS_LISTED + 1);
    expect(listed.map((i) => i.id)).toEqual([...listed.map((i) => i.id)].sort((a, b) => b - a));
    expect(listed.filter((i) => i.acknowledged_at === null).map((i) => i.id)).toEqual([open.id]);
    expect(listed.at(-1)).toMatchObject({ id: open.id, code_id: code.code_id, acknowledged_at: null });

    // Acknowledged through the list, it leaves the count; the list is back to the newest 200.
    expect(await ok('POST', `/api/code_incidents/${open.id}/ack`, seller)).toEqual({ success: open.id });
    expect(await ok('GET', '/api/get_error_user_code', seller)).toEqual({ error_codes_count: 0 });
    const after: ListedIncident[] = await ok('GET', '/api/code_incidents', seller);
    expect(after).toHaveLength(OWN_INCIDENTS_LISTED);
    expect(after.map((i) => i.id)).not.toContain(open.id);
    // Nobody else's incidents are listed to another user.
    expect(await ok('GET', '/api/code_incidents', buyer)).toEqual([]);
    // Nor acknowledged by one: not found, in the words the player's screen uses for it.
    const foreign = await call('POST', `/api/code_incidents/${open.id}/ack`, buyer);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().message).toBe('Уведомление о повторной активации не найдено');
  });

  it('tells the owner once per code and user: the same user trying the used code again after the owner read it opens nothing', async () => {
    // Review finding: someone holding a used code re-opened the owner's «Повторная активация» dialog after every acknowledgement.
    const seller = await createUser(t.db.kysely);
    const w = await createWallet(t.db.kysely, seller.id, serverId, 'Seller2');
    await fund(t.db.kysely, w, 10n * BigInt(KK));
    const code = await ok('POST', '/api/show_code/', seller, { gamesserver_id: serverId, nominal: 1 * KK, wallet_id: w.id });
    const buyer = await createUser(t.db.kysely);
    await createWallet(t.db.kysely, buyer.id, serverId, 'Buyer2');
    await ok('POST', '/api/activation_code/', buyer, { sert: code.sert });
    const pest = await createUser(t.db.kysely);
    expect((await call('POST', '/api/activation_code/', pest, { sert: code.sert })).statusCode).toBe(409);
    const [first] = (await ok('GET', '/api/code_incidents', seller)) as ListedIncident[];
    await ok('POST', `/api/code_incidents/${first!.id}/ack`, seller);
    for (let i = 0; i < 3; i++) expect((await call('POST', '/api/activation_code/', pest, { sert: code.sert })).statusCode).toBe(409);
    expect(await ok('GET', '/api/get_error_user_code', seller)).toEqual({ error_codes_count: 0 });
    // Another user trying it is news to the owner.
    const other = await createUser(t.db.kysely);
    expect((await call('POST', '/api/activation_code/', other, { sert: code.sert })).statusCode).toBe(409);
    expect(await ok('GET', '/api/get_error_user_code', seller)).toEqual({ error_codes_count: 1 });
  });
});
