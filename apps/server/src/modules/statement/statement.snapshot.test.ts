import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KK } from '../../../test/admin-outsiders';
import { createUser, createWallet, firstServerId, fund } from '../../../test/factories';
import { createTestApp, type TestApp } from '../../../test/harness';

/**
 * A first page's rows and its total are two reads. Taken at two moments (they ran side by side on the pool), a
 * movement committed between them left a page of 9 rows saying 8 in all, or 10 saying 11: the pager lost the
 * oldest entry or offered an empty page (stress review, round 9). Both reads now see one snapshot. Movements keep
 * committing while the pages are read; whatever moment each read sees, its rows and its total must agree.
 */
describe.each(['postgres'] as const)('the first page of a list read while movements commit (%s)', (kind) => {
  let t: TestApp;
  let serverId: number;
  beforeAll(async () => {
    t = await createTestApp(kind);
    serverId = await firstServerId(t.db.kysely);
  });
  afterAll(() => t.close());

  it('the statement, the request history, the queue, «Все мои коды», the operators\' user search and incidents, the seller\'s codes: a page shorter than a full one has as many rows as its total says', async () => {
    const p = await createUser(t.db.kysely);
    const operator = await createUser(t.db.kysely, { admin: true });
    const w = await createWallet(t.db.kysely, p.id, serverId, 'Hero');
    await fund(t.db.kysely, w, 1_000n * BigInt(KK));
    const key = (await t.app.inject({ method: 'POST', url: '/api/api_keys', headers: p.auth, payload: { name: 'shop' } })).json().key as string;
    const tried = await Promise.all(Array.from({ length: 60 }, () => createUser(t.db.kysely)));
    let writing = true;
    const post = (url: string, payload: object) => t.app.inject({ method: 'POST', url, headers: p.auth, payload });
    const writers = [
      ...Array.from({ length: 2 }, async () => {
        while (writing) await fund(t.db.kysely, w, 1n);
      }),
      (async () => {
        for (let i = 0; i < 60 && writing; i++) await post('/api/down_balance_user/', { gamesserver_id: serverId, amount: KK });
      })(),
      // Operators blocking and unblocking players while the blocked ones are listed.
      (async () => {
        const flipped = await Promise.all(Array.from({ length: 20 }, () => createUser(t.db.kysely)));
        for (let i = 0; writing; i++) {
          await t.db.kysely
            .updateTable('users')
            .set({ blocked_at: sql`CASE WHEN blocked_at IS NULL THEN now() END` })
            .where('id', '=', flipped[i % flipped.length]!.id)
            .execute();
        }
      })(),
      (async () => {
        for (let i = 0; i < 15 && writing; i++) await post('/api/show_code/', { gamesserver_id: serverId, nominal: KK, wallet_id: w.id });
        // Then players trying the player's used-up code, one incident each (as a failed activation records it).
        const code = await t.db.kysely.selectFrom('codes').select('id').where('user_id', '=', p.id).executeTakeFirstOrThrow();
        for (const u of tried) {
          if (!writing) break;
          await t.db.kysely
            .insertInto('code_incidents')
            .values({ code_id: code.id, user_id: p.id, gamesserver_id: serverId, attempted_by: u.id, attempt_ip: null, code_status: 'activated' })
            .execute();
        }
      })(),
    ];
    const lists = [
      { url: '/api/statement?per_page=100', full: 100, auth: p.auth },
      { url: `/api/get_user_input_output_balance?gamesserver_id=${serverId}&per_page=100`, full: 100, auth: p.auth },
      { url: '/api/my_codes', full: 20, auth: p.auth },
      { url: '/api/admin/requests?status=pending&per_page=100', full: 100, auth: operator.auth },
      { url: '/api/admin/users?role=blocked&per_page=100', full: 100, auth: operator.auth },
      { url: '/api/admin/code_incidents?per_page=100', full: 100, auth: operator.auth },
      { url: '/api/v1/codes', full: 50, auth: { authorization: `Bearer ${key}` } },
    ];
    const disagreements: string[] = [];
    try {
      for (let i = 0; i < 30; i++) {
        for (const { url, full, auth } of lists) {
          const res = await t.app.inject({ method: 'GET', url, headers: auth });
          expect(res.statusCode, url).toBe(200);
          const { data, total } = res.json() as { data: unknown[]; total: number };
          if (data.length < full && data.length !== total) disagreements.push(`${url}: ${data.length} rows, total ${total}`);
        }
      }
    } finally {
      writing = false;
      await Promise.all(writers);
    }
    expect(disagreements).toEqual([]);
  });

});

/** Its own database: the first page's test leaves withdrawals waiting, and the dashboard here must see an empty queue too. */
describe.each(['postgres'] as const)('an operators\' screen read while movements commit (%s)', (kind) => {
  let t: TestApp;
  let serverId: number;
  beforeAll(async () => {
    t = await createTestApp(kind);
    serverId = await firstServerId(t.db.kysely);
  });
  afterAll(() => t.close());

  /**
   * The operators' screens that show several figures of one moment: a ledger account's balance over its page of
   * entries, the user card's wallet over its newest entry, the dashboard's waiting count over its oldest request. Read
   * as parallel statements on the pool, a movement between them showed a balance that was not the sum of the entries
   * listed, a wallet ahead of its ledger, and «1 ждёт» with no oldest request (diff review, 2026-11-29).
   */
  it('the ledger account page, the user card and the dashboard: their figures agree with each other', async () => {
    const p = await createUser(t.db.kysely);
    const operator = await createUser(t.db.kysely, { admin: true });
    const w = await createWallet(t.db.kysely, p.id, serverId, 'Hero');
    await fund(t.db.kysely, w, 1n);
    const account = await t.db.kysely
      .selectFrom('ledger_accounts')
      .select('id')
      .where('wallet_id', '=', w.id)
      .where('currency_type', '=', 1)
      .executeTakeFirstOrThrow();
    const get = async <T>(url: string) => {
      const res = await t.app.inject({ method: 'GET', url, headers: operator.auth });
      expect(res.statusCode, url).toBe(200);
      return res.json() as T;
    };
    let writing = true;
    const post = (url: string, payload: object) => t.app.inject({ method: 'POST', url, headers: p.auth, payload });
    const writers = [
      (async () => {
        for (let i = 0; i < 90 && writing; i++) await fund(t.db.kysely, w, 1n);
      })(),
      // The player's only request withdrawn and back again: the queue is empty, then holds one.
      (async () => {
        const made = await post('/api/up_balance_user/', { gamesserver_id: serverId, amount: 2 * KK });
        expect(made.statusCode, made.body).toBe(200);
        const id = (made.json() as { success: { id: number } }).success.id;
        for (let i = 0; writing; i++) {
          await t.db.kysely
            .updateTable('balance_requests')
            .set(i % 2 ? { status: 'pending', processed_at: null } : { status: 'cancelled', processed_at: new Date() })
            .where('id', '=', id)
            .execute();
        }
      })(),
    ];
    const disagreements: string[] = [];
    try {
      for (let i = 0; i < 40; i++) {
        const page = await get<{ account: { balance: number }; data: { amount: number }[]; total: number }>(
          `/api/admin/ledger/accounts/${account.id}/entries?per_page=100`,
        );
        const sum = page.data.reduce((n, e) => n + e.amount, 0);
        if (page.data.length < 100 && (page.data.length !== page.total || sum !== page.account.balance)) {
          disagreements.push(`account: ${page.data.length} rows summing ${sum}, total ${page.total}, balance ${page.account.balance}`);
        }
        const card = await get<{ wallets: { id: number; balance: number }[]; ledger: { balance_after: number | null; currency_type: number }[] }>(
          `/api/admin/users/${p.id}`,
        );
        const newest = card.ledger.find((e) => e.currency_type === 1);
        const wallet = card.wallets.find((x) => x.id === w.id);
        if (newest?.balance_after !== wallet?.balance) disagreements.push(`card: wallet ${wallet?.balance}, newest entry ${newest?.balance_after}`);
        const board = await get<{ pending: { count: number }[]; oldest: unknown }>('/api/admin/dashboard');
        const waiting = board.pending.reduce((n, x) => n + x.count, 0);
        if ((waiting === 0) !== (board.oldest === null)) disagreements.push(`dashboard: ${waiting} waiting, oldest ${JSON.stringify(board.oldest)}`);
      }
    } finally {
      writing = false;
      await Promise.all(writers);
    }
    expect(disagreements).toEqual([]);
  });
});
