import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, createWallet, firstServerId } from '../../../test/factories';
import { createTestApp, DB_KINDS, type TestApp } from '../../../test/harness';
import { auditLedger } from '../ledger/ledger.service';

const KK = 1_000_000;

/** PRODUCT.md section 8: at most 5 pending deposits per player per game server (409). */
describe.each(DB_KINDS)('pending deposits cap on %s', (kind) => {
  let t: TestApp;
  let serverId: number;
  beforeAll(async () => {
    t = await createTestApp(kind);
    serverId = await firstServerId(t.db.kysely);
  });
  afterAll(async () => t.close());
  const deposit = (auth: Record<string, string>, gamesserver_id = serverId) =>
    t.app.inject({ method: 'POST', url: '/api/up_balance_user/', headers: auth, payload: { gamesserver_id, amount: 3 * KK } });
  const pending = async (userId: number) =>
    (await t.db.kysely.selectFrom('balance_requests').select('id').where('user_id', '=', userId).where('type', '=', 'input').where('status', '=', 'pending').execute()).length;

  it('the sixth pending deposit is 409 with a Russian message; a cancelled one makes room; other players are not affected', async () => {
    const p = await createUser(t.db.kysely);
    await createWallet(t.db.kysely, p.id, serverId);
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await deposit(p.auth);
      expect(res.statusCode).toBe(200);
      ids.push(res.json().success.id);
    }
    const sixth = await deposit(p.auth);
    expect(sixth.statusCode).toBe(409);
    expect(sixth.json().message).toBe('У вас уже 5 заявок на пополнение в ожидании на этом сервере. Дождитесь их обработки или отмените одну');
    expect(await pending(p.id)).toBe(5);
    // Another player on the same server is not limited by this one.
    const other = await createUser(t.db.kysely);
    await createWallet(t.db.kysely, other.id, serverId);
    expect((await deposit(other.auth)).statusCode).toBe(200);
    // The player's own cancel makes room for one more.
    expect((await t.app.inject({ method: 'POST', url: '/api/delete_request/', headers: p.auth, payload: { id: ids[0] } })).statusCode).toBe(200);
    expect((await deposit(p.auth)).statusCode).toBe(200);
    expect(await pending(p.id)).toBe(5);
    expect(await auditLedger(t.db.kysely)).toMatchObject({ ok: true, problems: [] });
  });

  it('30 deposits at once leave at most 5 pending, every refusal a 409', async () => {
    const p = await createUser(t.db.kysely);
    await createWallet(t.db.kysely, p.id, serverId);
    const answers = await Promise.all(Array.from({ length: 30 }, () => deposit(p.auth)));
    expect(answers.every((r) => r.statusCode === 200 || r.statusCode === 409)).toBe(true);
    expect(await pending(p.id)).toBeLessThanOrEqual(5);
    expect(answers.filter((r) => r.statusCode === 200).length).toBe(await pending(p.id));
    expect(await auditLedger(t.db.kysely)).toMatchObject({ ok: true, problems: [] });
  });
});
