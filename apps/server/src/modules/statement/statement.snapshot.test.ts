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

  it('the statement, the request history, the queue, «Все мои коды» and the operators\' user search: a page shorter than a full one has as many rows as its total says', async () => {
    const p = await createUser(t.db.kysely);
    const operator = await createUser(t.db.kysely, { admin: true });
    const w = await createWallet(t.db.kysely, p.id, serverId, 'Hero');
    await fund(t.db.kysely, w, 1_000n * BigInt(KK));
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
      })(),
    ];
    const lists = [
      { url: '/api/statement?per_page=100', full: 100, auth: p.auth },
      { url: `/api/get_user_input_output_balance?gamesserver_id=${serverId}&per_page=100`, full: 100, auth: p.auth },
      { url: '/api/my_codes', full: 20, auth: p.auth },
      { url: '/api/admin/requests?status=pending&per_page=100', full: 100, auth: operator.auth },
      { url: '/api/admin/users?role=blocked&per_page=100', full: 100, auth: operator.auth },
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
