import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

  it('the statement and the request history: a page shorter than per_page has as many rows as its total says', async () => {
    const p = await createUser(t.db.kysely);
    const w = await createWallet(t.db.kysely, p.id, serverId, 'Hero');
    let writing = true;
    const writers = Array.from({ length: 4 }, async () => {
      while (writing) await fund(t.db.kysely, w, 1n);
    });
    const deposits = (async () => {
      for (let i = 0; i < 40 && writing; i++) {
        await t.app.inject({ method: 'POST', url: '/api/up_balance_user/', headers: p.auth, payload: { gamesserver_id: serverId, amount: 1_000_000 } });
      }
    })();
    const disagreements: string[] = [];
    try {
      for (let i = 0; i < 30; i++) {
        for (const url of ['/api/statement?per_page=100', `/api/get_user_input_output_balance?gamesserver_id=${serverId}&per_page=100`]) {
          const res = await t.app.inject({ method: 'GET', url, headers: p.auth });
          expect(res.statusCode).toBe(200);
          const { data, total } = res.json() as { data: unknown[]; total: number };
          if (data.length < 100 && data.length !== total) disagreements.push(`${url}: ${data.length} rows, total ${total}`);
        }
      }
    } finally {
      writing = false;
      await Promise.all([...writers, deposits]);
    }
    expect(disagreements).toEqual([]);
  });
});
