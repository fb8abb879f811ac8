import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, createWallet, firstServerId, fund, TEST_TOTP_SECRET } from '../../../test/factories';
import { createTestApp, createTestDb, type TestApp, type TestDb, testConfig } from '../../../test/harness';
import { type PgCluster, startPgCluster } from '../../../test/pg-cluster';
import { buildApp } from '../../app';
import { type ChangeFeed, postgresChangeFeed } from '../../db/changes';
import { createDb, type Db } from '../../db/client';
import { migrate } from '../../db/migrate';
import { hashPassword } from '../../lib/password';
import { hashToken, newToken } from '../../lib/tokens';
import { totpCode } from '../two-factor/totp';
import type { User } from './caller';
import { createSessionCache } from './session-cache';

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const getUser = (app: FastifyInstance, token: string) => app.inject({ method: 'GET', url: '/api/user', headers: bearer(token) });

/**
 * Changes the database behind the apps' backs: with session_replication_role = replica no trigger
 * fires, so no notification is sent. What a process then answers from its cache shows that it
 * answers from its cache at all — the tests below are not passing merely because every request
 * reads the database.
 */
async function silently(url: string, statement: string, params: unknown[]) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query('SET session_replication_role = replica');
    await c.query(statement, params);
  } finally {
    await c.end();
  }
}

async function addSession(db: Db, userId: number) {
  const token = newToken();
  await db.kysely.insertInto('tokens').values({ user_id: userId, kind: 'access', token_hash: hashToken(token), method: 'email' }).execute();
  return token;
}

describe('the session cache itself', () => {
  const user = (id: number) => ({ id }) as User;
  const feed = () => {
    let h: { change(p: string): void; down(): void; up(): void } | undefined;
    return {
      subscribe(handlers: NonNullable<typeof h>) {
        h = handlers;
        return () => {};
      },
      sync: async () => true,
      emit: (p: string) => h?.change(p),
      down: () => h?.down(),
      up: () => h?.up(),
    };
  };

  it('is off until LISTEN is up, and emptied and off again when it goes down', () => {
    const cache = createSessionCache();
    const f = feed();
    cache.follow(f);
    cache.put('a', { user: user(1), sessionId: 1 }, null, cache.begin());
    expect(cache.get('a')).toBeUndefined();
    f.up();
    cache.put('a', { user: user(1), sessionId: 1 }, null, cache.begin());
    expect(cache.get('a')?.sessionId).toBe(1);
    f.down();
    expect(cache.get('a')).toBeUndefined();
    f.up();
    expect(cache.get('a')).toBeUndefined();
  });

  it('refuses a fill whose lookup began before its user changed, or before LISTEN came back', () => {
    const cache = createSessionCache();
    const f = feed();
    cache.follow(f);
    f.up();
    const started = cache.begin();
    f.emit('1');
    cache.put('a', { user: user(1), sessionId: 1 }, null, started);
    expect(cache.get('a')).toBeUndefined();
    // Another user's change does not matter to this fill.
    const again = cache.begin();
    f.emit('2');
    cache.put('a', { user: user(1), sessionId: 1 }, null, again);
    expect(cache.get('a')?.sessionId).toBe(1);
    // A change drops every entry of the user, and only theirs.
    cache.put('b', { user: user(1), sessionId: 2 }, null, cache.begin());
    cache.put('c', { user: user(3), sessionId: 3 }, null, cache.begin());
    f.emit('1');
    expect([cache.get('a'), cache.get('b'), cache.get('c')?.sessionId]).toEqual([undefined, undefined, 3]);
    // LISTEN lost and back while a lookup was under way: the lookup's answer may predate a missed change.
    const before = cache.begin();
    f.down();
    f.up();
    cache.put('d', { user: user(4), sessionId: 4 }, null, before);
    expect(cache.get('d')).toBeUndefined();
  });

  it('answers a read made as the barrier only when the entry outlived it', async () => {
    const cache = createSessionCache();
    const f = feed();
    cache.follow(f);
    f.up();
    cache.put('a', { user: user(1), sessionId: 1 }, null, cache.begin());
    const asked: number[] = [];
    const read = async (userId: number) => {
      asked.push(userId);
      return `кошельки ${userId}`;
    };
    expect(await cache.lookupWith('a', read)).toEqual({ hit: { user: user(1), sessionId: 1 }, value: 'кошельки 1' });
    // Nothing cached: nothing is read this way (the request takes the usual one).
    expect(await cache.lookupWith('x', read)).toBeUndefined();
    expect(asked).toEqual([1]);
    // The feed could not take the read.
    expect(await cache.lookupWith('a', async () => undefined)).toBeUndefined();
    // A change of the user heard before the read's answer: the caller is not confirmed.
    const changed = await cache.lookupWith('a', async (userId) => {
      f.emit(String(userId));
      return 'прочитано';
    });
    expect(changed).toBeUndefined();
    expect(cache.get('a')).toBeUndefined();
  });

  it('keeps an entry for its TTL or until the session ends, whichever is first, and evicts the oldest past its size', () => {
    let t = 1_000_000;
    const cache = createSessionCache({ ttlMs: 30_000, max: 2, now: () => t });
    const f = feed();
    cache.follow(f);
    f.up();
    cache.put('a', { user: user(1), sessionId: 1 }, null, cache.begin());
    cache.put('b', { user: user(2), sessionId: 2 }, 10_000, cache.begin());
    t += 10_000;
    expect(cache.get('a')?.sessionId).toBe(1);
    expect(cache.get('b')).toBeUndefined();
    t += 20_000;
    expect(cache.get('a')).toBeUndefined();
    cache.put('c', { user: user(3), sessionId: 3 }, null, cache.begin());
    cache.put('d', { user: user(4), sessionId: 4 }, null, cache.begin());
    cache.put('e', { user: user(5), sessionId: 5 }, null, cache.begin());
    expect(cache.size).toBe(2);
    expect([cache.get('c'), cache.get('d')?.sessionId, cache.get('e')?.sessionId]).toEqual([undefined, 4, 5]);
  });
});

describe('the LISTEN feed and its read barrier (PostgreSQL)', () => {
  let db: TestDb;
  let writer: Db;
  beforeAll(async () => {
    db = await createTestDb('postgres');
    // Another "process" makes the changes: its own pool, no feed of its own.
    writer = await createDb({ databaseUrl: db.url, dataDir: '' });
  });
  afterAll(async () => {
    await writer?.close();
    await db?.close();
  });

  it('hears every change committed before sync() was called, and not the touch of a request', async () => {
    const feed = db.changes('session_changed');
    const heard: string[] = [];
    feed.subscribe({ change: (p) => heard.push(p), down: () => {}, up: () => {} });
    const u = await createUser(writer.kysely);
    for (let i = 0; i < 500 && !feed.live; i++) await sleep(10);
    expect(feed.live).toBe(true);
    await writer.kysely.updateTable('users').set({ name: 'Другое имя' }).where('id', '=', u.id).execute();
    expect(await feed.sync()).toBe(true);
    expect(heard).toEqual([String(u.id)]);
    // Many rows of one user in one transaction: one notification.
    const second = await addSession(writer, u.id);
    await writer.kysely.transaction().execute(async (trx) => {
      await trx.deleteFrom('tokens').where('user_id', '=', u.id).execute();
    });
    expect(await feed.sync()).toBe(true);
    expect(heard).toEqual([String(u.id), String(u.id)]);
    // The touch of a request (last_seen_at forward) does not notify; a rename after it does.
    const third = await addSession(writer, u.id);
    await writer.kysely
      .updateTable('tokens')
      .set({ last_seen_at: new Date(Date.now() + 60_000) })
      .where('token_hash', 'in', [hashToken(third), hashToken(second)])
      .execute();
    await writer.kysely.updateTable('users').set({ name: 'Ещё имя' }).where('id', '=', u.id).execute();
    expect(await feed.sync()).toBe(true);
    expect(heard).toEqual([String(u.id), String(u.id), String(u.id)]);
    // Concurrent callers share round trips and all get their answer.
    expect(await Promise.all(Array.from({ length: 20 }, () => feed.sync()))).toEqual(Array(20).fill(true));
    // A caller never joins a trip already sent (it could miss a change committed just before its
    // call): the first call of a quiet feed is sent at once, the next ones wait for the trip after it.
    const sent = feed.sync();
    const after = feed.sync();
    expect(after).not.toBe(sent);
    expect(feed.sync()).toBe(after);
    await writer.kysely.updateTable('users').set({ name: 'Третье имя' }).where('id', '=', u.id).execute();
    const late = feed.sync();
    expect(await Promise.all([sent, after, late])).toEqual([true, true, true]);
    expect(heard).toEqual([String(u.id), String(u.id), String(u.id), String(u.id)]);
  });

  it('a read on the LISTEN connection is a barrier too: it answers after every change committed before it was called, with int8 as bigint', async () => {
    const feed = db.changes('session_changed');
    const heard: string[] = [];
    feed.subscribe({ change: (p) => heard.push(p), down: () => {}, up: () => {} });
    for (let i = 0; i < 500 && !feed.live; i++) await sleep(10);
    const u = await createUser(writer.kysely);
    for (let round = 1; round <= 3; round++) {
      await writer.kysely.updateTable('users').set({ name: `Имя ${round}` }).where('id', '=', u.id).execute();
      const rows = await feed.read<{ name: string; big: bigint }>({ sql: 'SELECT name, $2::int8 AS big FROM users WHERE id = $1', parameters: [u.id, '9007199254740993'] });
      expect(heard).toEqual(Array(round).fill(String(u.id)));
      expect(rows).toEqual([{ name: `Имя ${round}`, big: 9007199254740993n }]);
    }
    // A statement that fails answers null (the caller then reads its own way); the feed goes on.
    expect(await feed.read({ sql: 'SELECT nope FROM users', parameters: [] })).toBeNull();
    expect(await feed.read<{ one: number }>({ sql: 'SELECT 1 AS one', parameters: [] })).toEqual([{ one: 1 }]);
    expect(await feed.sync()).toBe(true);
  });

  it('keeps its short limits on locks and statements when DATABASE_URL sets options of its own', async () => {
    const url = new URL(db.url as string);
    url.searchParams.set('options', '-c search_path=public');
    const feed = postgresChangeFeed(url.toString(), 'session_changed');
    try {
      for (let i = 0; i < 500 && !feed.live; i++) await sleep(10);
      const settings = await feed.read<{ lock: string; statement: string; jit: string; path: string }>({
        sql: `SELECT current_setting('lock_timeout') AS lock, current_setting('statement_timeout') AS statement, current_setting('jit') AS jit, current_setting('search_path') AS path`,
        parameters: [],
      });
      expect(settings).toEqual([{ lock: '100ms', statement: '1s', jit: 'off', path: 'public' }]);
    } finally {
      await feed.close();
    }
  });
});

describe('a change on process A takes effect on the next request on process B (one PostgreSQL)', () => {
  let db1: TestDb;
  let a: TestApp;
  let b: TestApp;
  let admin: Awaited<ReturnType<typeof createUser>>;
  let feedReads = 0;
  let failFeedReads = false;
  // While set, B's feed reads wait for it before they are sent; each read's parameters are kept.
  let feedGate: Promise<void> | null = null;
  const feedParameters: unknown[][] = [];
  const feedTexts: string[] = [];
  beforeAll(async () => {
    db1 = await createTestDb('postgres');
    a = await createTestApp('postgres', { db: db1 });
    // The second "process": its own app, pool and LISTEN connection on the same database.
    const shared = await createDb({ databaseUrl: db1.url, dataDir: '' });
    // B's feed counts the reads made on it, and can be told to fail them.
    const changes = (channel: Parameters<typeof shared.changes>[0]): ChangeFeed => {
      const feed = shared.changes(channel);
      return {
        get live() {
          return feed.live;
        },
        subscribe: (h, other) => feed.subscribe(h, other),
        sync: () => feed.sync(),
        read: async <R>(q: { sql: string; parameters: readonly unknown[] }) => {
          feedReads++;
          feedParameters.push([...q.parameters]);
          feedTexts.push(q.sql);
          if (feedGate) await feedGate;
          return failFeedReads ? null : feed.read<R>(q);
        },
        close: () => feed.close(),
      };
    };
    b = await createTestApp('postgres', { db: { ...shared, changes, url: db1.url }, seed: false });
    admin = await createUser(db1.kysely, { admin: true });
    // B's LISTEN is up once B answers from memory: a token deleted silently still works there.
    const probe = await createUser(db1.kysely);
    for (let i = 0; ; i++) {
      expect((await getUser(b.app, probe.token)).statusCode).toBe(200);
      await silently(db1.url as string, 'DELETE FROM tokens WHERE user_id = $1', [probe.id]);
      if ((await getUser(b.app, probe.token)).statusCode === 200) break;
      if (i > 100) throw new Error('process B never cached a caller');
      await db1.kysely.insertInto('tokens').values({ user_id: probe.id, kind: 'access', token_hash: hashToken(probe.token) }).execute();
      await sleep(20);
    }
  });
  afterAll(async () => {
    await b?.close();
    await b?.db.close();
    await a?.close();
    await db1?.close();
  });

  /**
   * B has the caller in memory: a silent change (no trigger) is not seen there. A fill is refused
   * while a notification about the user, committed by the set-up just before, is still on its way
   * to B (the fill may predate the change), so B gets a few tries; it must cache within them.
   */
  let quiet = 0;
  async function cachedOnB(token: string, userId: number) {
    for (let i = 0; i < 50; i++) {
      expect((await getUser(b.app, token)).statusCode).toBe(200);
      const name = `тихо ${++quiet}`;
      await silently(db1.url as string, 'UPDATE users SET name = $2 WHERE id = $1', [userId, name]);
      if ((await getUser(b.app, token)).json().name !== name) return;
      await sleep(20);
    }
    throw new Error('process B never answered this caller from its cache');
  }

  it('logout on A: the next GET /api/user on B is 401; the user’s other session goes on', async () => {
    const u = await createUser(db1.kysely);
    const other = await addSession(db1, u.id);
    await cachedOnB(u.token, u.id);
    await cachedOnB(other, u.id);
    expect((await a.app.inject({ method: 'GET', url: '/api/logout', headers: u.auth })).statusCode).toBe(200);
    expect((await getUser(b.app, u.token)).statusCode).toBe(401);
    expect((await getUser(b.app, other)).statusCode).toBe(200);
  });

  it('GET /api/wallets on B reads a cached caller’s balances with their session’s barrier: fresh, and 401 after a logout on A', async () => {
    const u = await createUser(db1.kysely);
    const wallet = await createWallet(db1.kysely, u.id, await firstServerId(db1.kysely));
    const balance = async (token: string) => {
      const res = await b.app.inject({ method: 'GET', url: '/api/wallets', headers: bearer(token) });
      expect(res.statusCode).toBe(200);
      return res.json()[0].balance;
    };
    await cachedOnB(u.token, u.id);
    const reads = feedReads;
    expect(await balance(u.token)).toBe(0);
    expect(feedReads).toBe(reads + 1);
    // A deposit committed through A is in B's very next answer: balances are read, never kept.
    await fund(db1.kysely, wallet, 1_500_000n);
    expect(await balance(u.token)).toBe(1_500_000);
    // The feed unable to read: the usual way answers the same.
    failFeedReads = true;
    try {
      expect(await balance(u.token)).toBe(1_500_000);
    } finally {
      failFeedReads = false;
    }
    expect(feedReads).toBe(reads + 3);
    expect((await a.app.inject({ method: 'GET', url: '/api/logout', headers: u.auth })).statusCode).toBe(200);
    expect((await b.app.inject({ method: 'GET', url: '/api/wallets', headers: bearer(u.token) })).statusCode).toBe(401);
  });

  it('the signed-in price data on B: read with the session’s barrier, fresh, created on a first visit, 404 for an unknown server, 401 after a logout on A', async () => {
    const u = await createUser(db1.kysely);
    const serverId = await firstServerId(db1.kysely);
    const prices = (id: number | string = serverId) => b.app.inject({ method: 'GET', url: `/api/auth_varianty_adeny_za_kod/${id}`, headers: bearer(u.token) });
    await cachedOnB(u.token, u.id);
    const reads = feedReads;
    // The first visit makes the wallet (the usual way after the feed's read found none).
    const first = await prices();
    expect(first.statusCode).toBe(200);
    expect(first.json().wallet.balance).toBe(0);
    expect(feedReads).toBe(reads + 1);
    const wallet = await db1.kysely.selectFrom('wallets').selectAll().where('user_id', '=', u.id).executeTakeFirstOrThrow();
    await fund(db1.kysely, wallet, 2_000_000n);
    const next = await prices();
    expect(next.json().wallet).toEqual({ id: wallet.id, balance: 2_000_000, balance_second: 0 });
    expect(feedReads).toBe(reads + 2);
    expect((await prices(2_000_000)).statusCode).toBe(404);
    // A bad id is a 422 for a signed-in caller, and never read on the feed.
    const before = feedReads;
    expect((await prices('abc')).statusCode).toBe(422);
    expect(feedReads).toBe(before);
    expect((await a.app.inject({ method: 'GET', url: '/api/logout', headers: u.auth })).statusCode).toBe(200);
    expect((await prices()).statusCode).toBe(401);
    expect((await prices('abc')).statusCode).toBe(401);
  });

  it('a player’s codes and variants held on B: the next read asks for the wallet alone, and every change of them (or of the server) through A shows in B’s next answer', async () => {
    const serverId = await firstServerId(db1.kysely);
    const KK = 1_000_000;
    const owner = await createUser(db1.kysely);
    const other = await createUser(db1.kysely);
    const ownerWallet = await createWallet(db1.kysely, owner.id, serverId);
    const otherWallet = await createWallet(db1.kysely, other.id, serverId);
    await fund(db1.kysely, ownerWallet, 100n * BigInt(KK));
    await fund(db1.kysely, otherWallet, 100n * BigInt(KK));
    await cachedOnB(owner.token, owner.id);
    const onA = (method: 'POST' | 'DELETE', url: string, who: { auth: Record<string, string> }, payload?: object) =>
      a.app.inject({ method, url, headers: who.auth, ...(payload ? { payload } : {}) });
    const issue = async (who: typeof owner, walletId: number, nominal: number) => {
      const res = await onA('POST', '/api/show_code/', who, { gamesserver_id: serverId, nominal, wallet_id: walletId });
      expect(res.statusCode).toBe(200);
      return res.json() as { code_id: number; sert: string };
    };
    /** B's answer, and whether B asked the feed for the wallet alone (the server, codes and variants held). */
    const onB = async () => {
      const from = feedTexts.length;
      const res = await b.app.inject({ method: 'GET', url: `/api/auth_varianty_adeny_za_kod/${serverId}`, headers: bearer(owner.token) });
      expect(res.statusCode).toBe(200);
      const texts = feedTexts.slice(from);
      return { data: res.json(), held: texts.length === 1 && !texts[0]!.includes('LATERAL') };
    };
    /** B holds the pair again: a read after a change fills it unless another change raced it, so it gets a few tries. */
    const heldOnB = async () => {
      for (let i = 0; i < 20; i++) {
        const seen = await onB();
        if (seen.held) return seen.data;
      }
      throw new Error('process B never held this player’s codes');
    };
    const first = await issue(owner, ownerWallet.id, 2 * KK);
    const shown = await heldOnB();
    expect(shown.kods.map((k: { id: number }) => k.id)).toEqual([first.code_id]);
    // Held, not read: a change made silently (no trigger fires) is not seen on B, while the balance always is.
    await silently(db1.url as string, "UPDATE codes SET created_at = created_at - interval '1 day' WHERE id = $1", [first.code_id]);
    await fund(db1.kysely, ownerWallet, 1n);
    const silent = await onB();
    expect(silent.held).toBe(true);
    expect(silent.data.kods).toEqual(shown.kods);
    expect(silent.data.wallet.balance).toBe(shown.wallet.balance + 1);

    // A code issued through A.
    const second = await issue(owner, ownerWallet.id, 3 * KK);
    expect((await onB()).data.kods.map((k: { id: number }) => k.id)).toEqual([second.code_id, first.code_id]);
    // A variant made through A, with its codes.
    await heldOnB();
    const made = await onA('POST', '/api/pricekods/', owner, { gamesserver_id: serverId, nominal: 4 * KK, count: 2 });
    expect(made.statusCode).toBe(200);
    const variant = made.json().success as { id: number };
    const withVariant = (await onB()).data;
    expect(withVariant.pricekods.map((p: { id: number; open_count: number }) => [p.id, p.open_count])).toEqual([[variant.id, 2]]);
    expect(withVariant.svoy_variant_kods).toHaveLength(2);
    // One of the owner's codes activated by another player through A: gone from the open list, the variant's count down.
    await heldOnB();
    const taken = withVariant.svoy_variant_kods[0] as { id: number; sert: string };
    expect((await onA('POST', '/api/activation_code/', other, { sert: taken.sert })).statusCode).toBe(200);
    const afterTaken = (await onB()).data;
    expect(afterTaken.svoy_variant_kods.map((k: { id: number }) => k.id)).not.toContain(taken.id);
    expect(afterTaken.pricekods[0].open_count).toBe(1);
    // The owner activates another player's code through A: it is the owner's last activation.
    await heldOnB();
    const theirs = await issue(other, otherWallet.id, 5 * KK);
    expect((await onA('POST', '/api/activation_code/', owner, { sert: theirs.sert })).statusCode).toBe(200);
    expect((await onB()).data.user_kod).toMatchObject({ id: theirs.code_id, status: 'activated' });
    // The variant deleted through A.
    await heldOnB();
    expect((await onA('DELETE', `/api/pricekods/${variant.id}`, owner)).statusCode).toBe(200);
    expect((await onB()).data.pricekods).toEqual([]);
    // An operator's change of the server's fee, made elsewhere: B's next answer prices at it.
    const server = await db1.kysely.selectFrom('gamesservers').select('code_fee_bp').where('id', '=', serverId).executeTakeFirstOrThrow();
    await heldOnB();
    await db1.kysely.updateTable('gamesservers').set({ code_fee_bp: server.code_fee_bp + 100 }).where('id', '=', serverId).execute();
    try {
      expect((await onB()).data.code_fee_bp).toBe(server.code_fee_bp + 100);
    } finally {
      await db1.kysely.updateTable('gamesservers').set({ code_fee_bp: server.code_fee_bp }).where('id', '=', serverId).execute();
    }
    // Everything the last answer shows is what a fresh read shows.
    const fresh = await a.app.inject({ method: 'GET', url: `/api/auth_varianty_adeny_za_kod/${serverId}`, headers: owner.auth });
    expect((await heldOnB())).toEqual(fresh.json());
  });

  it('several players’ price data asked while a read is on the feed go in one statement, each answer what that player gets alone', async () => {
    const serverId = await firstServerId(db1.kysely);
    const players = await Promise.all([0, 1, 2, 3].map(() => createUser(db1.kysely)));
    for (const [i, p] of players.entries()) {
      const wallet = await createWallet(db1.kysely, p.id, serverId);
      await fund(db1.kysely, wallet, BigInt((i + 1) * 1_000_000));
      await cachedOnB(p.token, p.id);
    }
    const prices = (token: string) => b.app.inject({ method: 'GET', url: `/api/auth_varianty_adeny_za_kod/${serverId}`, headers: bearer(token) });
    const alone = [];
    for (const p of players) alone.push((await prices(p.token)).json());
    // The first player's read is held on the feed; the others arrive meanwhile and wait for the next statement.
    // Their arrival cannot be seen from here: the round is repeated, each time waiting longer, until they came in time.
    for (let round = 1; ; round++) {
      let open = () => {};
      feedGate = new Promise((resolve) => {
        open = resolve;
      });
      const from = feedParameters.length;
      const first = prices(players[0]!.token);
      while (feedParameters.length === from) await sleep(5);
      const rest = players.slice(1).map((p) => prices(p.token));
      await sleep(50 * round);
      feedGate = null;
      open();
      const answers = await Promise.all([first, ...rest]);
      for (const [i, res] of answers.entries()) {
        expect(res.statusCode).toBe(200);
        expect(res.json()).toEqual(alone[i]);
        expect(res.json().wallet.balance).toBe((i + 1) * 1_000_000);
      }
      const batched = feedParameters.slice(from).find((params) => typeof params[0] === 'string');
      if (batched) {
        const ids = (literal: unknown) => String(literal).slice(1, -1).split(',').map(Number).sort((x, y) => x - y);
        expect([ids(batched[0]), ids(batched[1])]).toEqual([ids(`{${players.slice(1).map((p) => p.id)}}`), [serverId, serverId, serverId]]);
        break;
      }
      if (round === 10) throw new Error('the waiting players were never read together');
    }
  });

  it('a wallet read stuck behind a table lock gives up on the feed at once: the barrier and the cache go on, and no backend is left behind', async () => {
    const serverId = await firstServerId(db1.kysely);
    const u1 = await createUser(db1.kysely);
    await createWallet(db1.kysely, u1.id, serverId);
    const u2 = await createUser(db1.kysely);
    await cachedOnB(u1.token, u1.id);
    await cachedOnB(u2.token, u2.id);
    // A migration's ALTER TABLE holds (or only waits for) this lock.
    const locker = new pg.Client({ connectionString: db1.url as string });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE wallets IN ACCESS EXCLUSIVE MODE');
      const wallets = b.app.inject({ method: 'GET', url: '/api/wallets', headers: bearer(u1.token) });
      // Past the barrier's 2 s bound, which used to end the LISTEN connection (emptying the cache) and leave its
      // backend waiting on the lock while a new one took its place.
      await sleep(2500);
      const name = `тихо ${++quiet}`;
      await silently(db1.url as string, 'UPDATE users SET name = $2 WHERE id = $1', [u2.id, name]);
      const other = await getUser(b.app, u2.token);
      expect(other.statusCode).toBe(200);
      expect(other.json().name).not.toBe(name);
      const { rows } = await locker.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query ILIKE '%from "wallets"%'`,
      );
      expect(rows[0]!.n).toBe(1);
      await locker.query('ROLLBACK');
      // The stuck call itself read its own way (the pool), once the lock was gone.
      expect((await wallets).statusCode).toBe(200);
    } finally {
      await locker.end();
    }
  });

  it('an admin’s block on A: every session of the user answers 401 on B', async () => {
    const u = await createUser(db1.kysely);
    const other = await addSession(db1, u.id);
    await cachedOnB(u.token, u.id);
    await cachedOnB(other, u.id);
    const code = totpCode(TEST_TOTP_SECRET, new Date());
    const res = await a.app.inject({
      method: 'POST',
      url: `/api/admin/users/${u.id}/block`,
      headers: { ...admin.auth, 'x-two-factor-code': code },
      payload: { reason: 'проверка' },
    });
    expect(res.statusCode).toBe(200);
    expect((await getUser(b.app, u.token)).statusCode).toBe(401);
    expect((await getUser(b.app, other)).statusCode).toBe(401);
  });

  it('a password change on A: the old bearer and the other sessions answer 401 on B, the new bearer 200', async () => {
    const u = await createUser(db1.kysely);
    await db1.kysely
      .updateTable('users')
      .set({ password_hash: await hashPassword('old password 1') })
      .where('id', '=', u.id)
      .execute();
    const other = await addSession(db1, u.id);
    await cachedOnB(u.token, u.id);
    await cachedOnB(other, u.id);
    const res = await a.app.inject({
      method: 'POST',
      url: '/api/change_password',
      headers: u.auth,
      payload: { password: 'old password 1', new_password: 'new password 22', new_password_confirmation: 'new password 22' },
    });
    expect(res.statusCode).toBe(200);
    expect((await getUser(b.app, u.token)).statusCode).toBe(401);
    expect((await getUser(b.app, other)).statusCode).toBe(401);
    expect((await getUser(b.app, res.json().access_token)).statusCode).toBe(200);
  });

  it('ending the other sessions on A: they answer 401 on B, this one goes on', async () => {
    const u = await createUser(db1.kysely);
    const other = await addSession(db1, u.id);
    await cachedOnB(u.token, u.id);
    await cachedOnB(other, u.id);
    const res = await a.app.inject({ method: 'POST', url: '/api/sessions/end_others', headers: u.auth, payload: {} });
    expect(res.statusCode).toBe(200);
    expect((await getUser(b.app, other)).statusCode).toBe(401);
    expect((await getUser(b.app, u.token)).statusCode).toBe(200);
  });

  it('TOTP turned on through A: GET /api/user on B shows it at once', async () => {
    const u = await createUser(db1.kysely);
    await cachedOnB(u.token, u.id);
    expect((await getUser(b.app, u.token)).json().two_factor).toBe(false);
    const setup = await a.app.inject({ method: 'POST', url: '/api/2fa/setup', headers: u.auth, payload: {} });
    expect(setup.statusCode).toBe(200);
    const enable = await a.app.inject({
      method: 'POST',
      url: '/api/2fa/enable',
      headers: u.auth,
      payload: { code: totpCode(setup.json().secret, new Date()) },
    });
    expect(enable.statusCode).toBe(200);
    expect((await getUser(b.app, u.token)).json().two_factor).toBe(true);
  });
});

// A cluster of its own: stopping the shared test cluster would cut every other test file.
describe('the database going away and coming back', () => {
  let cluster: PgCluster;
  let setupDb: Db;
  let nodeDb: Db;
  let node: FastifyInstance;
  let dataDir: string;
  beforeAll(async () => {
    cluster = await startPgCluster();
    dataDir = mkdtempSync(join(tmpdir(), 'adena-session-cache-'));
    setupDb = await createDb({ databaseUrl: cluster.url, dataDir: '' });
    await migrate(setupDb.kysely);
    nodeDb = await createDb({ databaseUrl: cluster.url, dataDir: '', poolSize: 4 });
    node = await buildApp(testConfig({ DATA_DIR: dataDir }), nodeDb);
    await node.ready();
  }, 120_000);
  afterAll(async () => {
    await node?.close();
    await nodeDb?.close();
    await setupDb?.close();
    cluster?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('does not serve from memory a session revoked while its LISTEN was down, nor after it is back', async () => {
    const u = await createUser(setupDb.kysely);
    // Cached: a silent rename is not seen.
    for (let i = 0; ; i++) {
      expect((await getUser(node, u.token)).statusCode).toBe(200);
      await silently(cluster.url, 'UPDATE users SET name = $2 WHERE id = $1', [u.id, `тихо ${i}`]);
      if ((await getUser(node, u.token)).json().name !== `тихо ${i}`) break;
      if (i > 100) throw new Error('the node never cached a caller');
      await sleep(20);
    }

    await cluster.halt();
    // The cache is off as soon as the LISTEN connection is gone: the call needs the database now.
    for (let i = 0; (await getUser(node, u.token)).statusCode !== 503; i++) {
      if (i > 500) throw new Error('the node kept answering from memory with the database away');
      await sleep(20);
    }
    await cluster.start();
    // Revoked with no notification at all (as if sent while this process was not listening).
    await silently(cluster.url, 'DELETE FROM tokens WHERE user_id = $1', [u.id]);
    for (let i = 0; ; i++) {
      const status = (await getUser(node, u.token)).statusCode;
      expect(status === 401 || status === 503).toBe(true);
      if (status === 401) break;
      if (i > 500) throw new Error('the node never came back');
      await sleep(20);
    }

    // Back and listening again: a new session is cached, and a logout still ends it at once.
    const again = await addSession(setupDb, u.id);
    for (let i = 0; ; i++) {
      expect((await getUser(node, again)).statusCode).toBe(200);
      await silently(cluster.url, 'UPDATE users SET name = $2 WHERE id = $1', [u.id, `снова ${i}`]);
      if ((await getUser(node, again)).json().name !== `снова ${i}`) break;
      if (i > 500) throw new Error('the node never cached again after the outage');
      await sleep(20);
    }
    expect((await node.inject({ method: 'GET', url: '/api/logout', headers: bearer(again) })).statusCode).toBe(200);
    expect((await getUser(node, again)).statusCode).toBe(401);
  });
});
