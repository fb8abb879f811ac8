import { type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import type { BalanceRequestsTable, Database, RequestStatus, RequestType } from '../../db/schema';
import { claimDropperName, deciderName } from '../../db/claim-dropper';
import { nickSharedWithOthers } from '../../db/shared-nick';
import type { IdempotencyKey } from '../../lib/idempotency';

type Q = Kysely<Database> | Transaction<Database>;
export type Tx = Transaction<Database>;

export type RequestRow = Selectable<BalanceRequestsTable> & { gamesserver: string };
export type AdminRequestRow = RequestRow & {
  user_name: string;
  user_email: string | null;
  user_phone: string | null;
  user_vip_until: Date | null;
  user_blocked_at: Date | null;
  /** The claiming operator's name (the operators' shift, decision record 0023). */
  claimer_name: string | null;
  /** Another player's wallet on the server carries the request's nick (db/shared-nick.ts). */
  nick_shared: boolean;
  /** The operator whose claim was dropped by their block, demotion or TOTP rescue (claimDropperName). */
  claim_dropper_name: string | null;
  /** The deciding operator's name (deciderName). */
  decider_name: string | null;
};

export interface PendingGroup {
  gamesserver_id: number;
  gamesserver: string;
  currency_type: 1 | 2;
  type: RequestType;
  n: bigint;
  s: bigint;
  oldest: Date;
}

export interface QueueFilters {
  status?: RequestStatus;
  type?: RequestType;
  gameServerId?: number;
  currencyType?: 1 | 2;
  /** This operator's standing claims: claimed by them at or after `claimedAfter` (not lapsed). */
  claimedBy?: { id: number; claimedAfter: Date };
  page: number;
  perPage: number;
}

/** A row of request_open(_once): the request, its server's name, the wallet after it, a recorded notice. */
export type OpenedRow = Omit<RequestRow, 'amount'> & {
  amount: bigint | string;
  balance: bigint | string;
  balance_second: bigint | string;
  notice_id: bigint | string | null;
  notice_chat_id: bigint | string | null;
  notice_text: string | null;
  /** The player's VIP end (the operators' feed event); NULL in stored answers older than decision record 0027. */
  vip_until: Date | string | null;
  /** The stored answer of an earlier call with the same Idempotency-Key. */
  replayed: boolean;
};

export interface Opening {
  /** SHA-256 of the caller's bearer, checked by caller_id inside the statement. */
  tokenHash: string;
  type: RequestType;
  gameServerId: number;
  amount: number;
  currency: 1 | 2;
  /** A withdrawal whose X-Two-Factor-Code the server has checked (withdrawer_id refuses TOTP users otherwise). */
  codeChecked?: boolean;
}

/** Deposits and withdrawals. Player-side queries take the owner, so another user's rows are not found. */
export const requestsRepository = {
  transaction: <T>(db: Kysely<Database>, fn: (trx: Tx) => Promise<T>) => db.transaction().execute(fn),

  /**
   * Opens a deposit or withdrawal in one statement, the caller's bearer checked inside it
   * (caller_id, and again after its waits: bearer_still_live): the database function request_open checks the server's limits, finds
   * or creates the wallet and its nick, writes the request and, for a withdrawal, the hold and
   * the Telegram threshold notice. With an Idempotency-Key, request_open_once claims the key and
   * stores the row as its answer in the same statement; a replay answers that row again.
   */
  async open(db: Q, o: Opening, idem?: IdempotencyKey): Promise<OpenedRow> {
    // A keyed withdrawal's retry whose answer is stored is replayed without a fresh code (withdrawer_id's 4-argument form).
    const who =
      o.type !== 'output'
        ? sql`caller_id(${o.tokenHash})`
        : idem
          ? sql`withdrawer_id(${o.tokenHash}, ${o.codeChecked === true}, ${idem.key}::text, ${idem.hash}::text)`
          : sql`withdrawer_id(${o.tokenHash}, ${o.codeChecked === true})`;
    const args = sql`${o.gameServerId}, ${o.type}, ${o.currency}::smallint, ${String(o.amount)}::bigint`;
    // The bearer checked again after the statement's waits (bearer_still_live): a session ended while it waited for
    // the wallet's row must not have its deposit or withdrawal written after the end.
    const live = sql`bearer_still_live(${o.tokenHash}, r.user_id)`;
    const statement = idem
      ? sql<OpenedRow>`SELECT r.* FROM request_open_once(${who}, ${idem.key}, ${idem.method}, ${idem.path}, ${idem.hash}, ${args}) r WHERE ${live}`
      : sql<OpenedRow>`SELECT r.*, false AS replayed FROM request_open(${who}, ${args}) r WHERE ${live}`;
    const { rows } = await statement.execute(db);
    return rows[0]!;
  },

  /** The status of the owner's request, or nothing when they have none with this id. */
  status(db: Q, ownerId: number, id: number) {
    return db.selectFrom('balance_requests').select(['status']).where('id', '=', id).where('user_id', '=', ownerId).executeTakeFirst();
  },

  /** The user's newest requests, hidden ones included (the admin's user card). */
  ofUser(db: Q, userId: number, limit: number) {
    return db
      .selectFrom('balance_requests')
      .innerJoin('gamesservers', 'gamesservers.id', 'balance_requests.gamesserver_id')
      .selectAll('balance_requests')
      .select('gamesservers.name as gamesserver')
      .where('balance_requests.user_id', '=', userId)
      .orderBy('balance_requests.id', 'desc')
      .limit(limit)
      .execute();
  },

  // ── the operators' dashboard ──

  activeGameServers(db: Q) {
    return db.selectFrom('gamesservers').select(['id', 'name']).where('active', '=', true).orderBy('sort_order').orderBy('id').execute();
  },

  /**
   * Pending requests per server, currency and direction: how many, how much, since when. The sum stays
   * numeric (as text): many requests may pass 2^63 − 1, where a ::bigint cast fails (22003, a 500).
   */
  async pendingSummary(db: Q) {
    const r = await sql<Omit<PendingGroup, 's'> & { s: string }>`
      SELECT r.gamesserver_id, g.name AS gamesserver, r.currency_type, r.type,
             count(*)::bigint AS n, sum(r.amount)::text AS s, min(r.created_at) AS oldest
      FROM balance_requests r JOIN gamesservers g ON g.id = r.gamesserver_id
      WHERE r.status = 'pending'
      GROUP BY r.gamesserver_id, g.name, g.sort_order, r.currency_type, r.type
      ORDER BY g.sort_order, r.gamesserver_id, r.currency_type, r.type`.execute(db);
    return r.rows.map((p): PendingGroup => ({ ...p, s: BigInt(p.s) }));
  },

  oldestPending(db: Q) {
    return db
      .selectFrom('balance_requests')
      .innerJoin('gamesservers', 'gamesservers.id', 'balance_requests.gamesserver_id')
      .select([
        'balance_requests.id',
        'balance_requests.gamesserver_id',
        'gamesservers.name as gamesserver',
        'balance_requests.type',
        'balance_requests.currency_type',
        'balance_requests.amount',
        'balance_requests.created_at',
      ])
      .where('balance_requests.status', '=', 'pending')
      .orderBy('balance_requests.created_at')
      .orderBy('balance_requests.id')
      .limit(1)
      .executeTakeFirst();
  },

  /** Median seconds from creation to an operator finishing, last 24 hours: per server, and overall (gamesserver_id null). */
  async medians(db: Q) {
    const r = await sql<{ gamesserver_id: number | null; seconds: number | null; n: bigint }>`
      SELECT gamesserver_id,
             percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM processed_at - created_at)) AS seconds,
             count(*)::bigint AS n
      FROM balance_requests
      WHERE status IN ('completed', 'rejected') AND processed_at > now() - interval '24 hours'
      GROUP BY GROUPING SETS ((gamesserver_id), ())`.execute(db);
    return r.rows;
  },

  /** Locks a request so that two operators (or an operator and its owner) take turns on it. */
  /** Who filed the request and which way it goes (neither ever changes), read without a lock. */
  ownerAndType(trx: Transaction<Database>, id: number) {
    return trx.selectFrom('balance_requests').select(['user_id', 'type']).where('id', '=', id).executeTakeFirst();
  },

  /** Whether the player is blocked, waiting for a block under way (its row lock) rather than reading past it. */
  async playerBlocked(trx: Transaction<Database>, userId: number) {
    const u = await trx.selectFrom('users').select('blocked_at').where('id', '=', userId).forShare().executeTakeFirst();
    return u?.blocked_at != null;
  },

  lock(trx: Transaction<Database>, id: number, ownerId?: number) {
    let q = trx.selectFrom('balance_requests').selectAll().where('id', '=', id);
    if (ownerId !== undefined) q = q.where('user_id', '=', ownerId);
    return q.forUpdate().executeTakeFirst();
  },

  finish(trx: Q, id: number, v: { status: Exclude<RequestStatus, 'pending'>; processedBy: number | null; comment?: string | null }) {
    return trx
      .updateTable('balance_requests')
      .set({
        status: v.status,
        processed_by: v.processedBy,
        processed_at: sql`now()`,
        updated_at: sql`now()`,
        ...(v.comment !== undefined ? { comment: v.comment } : {}),
      })
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .returning('id')
      .executeTakeFirst();
  },

  hide(db: Q, ownerId: number, id: number) {
    return db
      .updateTable('balance_requests')
      .set({ hidden_at: sql`coalesce(hidden_at, now())` })
      .where('id', '=', id)
      .where('user_id', '=', ownerId)
      .where('status', '<>', 'pending')
      .returning('id')
      .executeTakeFirst();
  },

  async history(db: Q, ownerId: number, f: { gameServerId?: number; page: number; perPage: number }) {
    let base = db.selectFrom('balance_requests as r').where('r.user_id', '=', ownerId).where('r.hidden_at', 'is', null);
    if (f.gameServerId !== undefined) base = base.where('r.gamesserver_id', '=', f.gameServerId);
    const [rows, count] = await Promise.all([
      base
        .innerJoin('gamesservers as g', 'g.id', 'r.gamesserver_id')
        .selectAll('r')
        .select('g.name as gamesserver')
        .orderBy('r.id', 'desc')
        .limit(f.perPage)
        .offset((f.page - 1) * f.perPage)
        .execute(),
      base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(count.n) };
  },

  /**
   * The operators' queue: VIP players' withdrawals first (PRODUCT.md section 2: a VIP's withdrawals, not their
   * deposits, come first), then the oldest; finished requests newest first.
   */
  async queue(db: Q, f: QueueFilters) {
    let base = db.selectFrom('balance_requests as r').innerJoin('users as u', 'u.id', 'r.user_id');
    if (f.status) base = base.where('r.status', '=', f.status);
    if (f.type) base = base.where('r.type', '=', f.type);
    if (f.gameServerId !== undefined) base = base.where('r.gamesserver_id', '=', f.gameServerId);
    if (f.currencyType !== undefined) base = base.where('r.currency_type', '=', f.currencyType);
    if (f.claimedBy !== undefined) base = base.where('r.claimed_by', '=', f.claimedBy.id).where('r.claimed_at', '>=', f.claimedBy.claimedAfter);
    let rows = base
      .innerJoin('gamesservers as g', 'g.id', 'r.gamesserver_id')
      .selectAll('r')
      .leftJoin('users as c', 'c.id', 'r.claimed_by')
      .select(['g.name as gamesserver', 'u.name as user_name', 'u.email as user_email', 'u.phone as user_phone', 'u.vip_until as user_vip_until', 'u.blocked_at as user_blocked_at', 'c.name as claimer_name'])
      .select(nickSharedWithOthers)
      .select(claimDropperName)
      .select(deciderName);
    rows =
      f.status === 'pending'
        ? rows.orderBy(sql`CASE WHEN r.type = 'output' AND u.vip_until > now() THEN 0 ELSE 1 END`).orderBy('r.id', 'asc')
        : rows
            .orderBy(sql`CASE WHEN r.status = 'pending' THEN 0 ELSE 1 END`)
            .orderBy(sql`CASE WHEN r.status = 'pending' AND r.type = 'output' AND u.vip_until > now() THEN 0 ELSE 1 END`)
            .orderBy(sql`CASE WHEN r.status = 'pending' THEN r.id ELSE -r.id END`);
    const [data, count] = await Promise.all([
      rows
        .limit(f.perPage)
        .offset((f.page - 1) * f.perPage)
        .execute(),
      base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows: data as AdminRequestRow[], total: Number(count.n) };
  },

  adminById(db: Q, id: number) {
    return db
      .selectFrom('balance_requests as r')
      .innerJoin('users as u', 'u.id', 'r.user_id')
      .innerJoin('gamesservers as g', 'g.id', 'r.gamesserver_id')
      .leftJoin('users as c', 'c.id', 'r.claimed_by')
      .selectAll('r')
      .select(['g.name as gamesserver', 'u.name as user_name', 'u.email as user_email', 'u.phone as user_phone', 'u.vip_until as user_vip_until', 'u.blocked_at as user_blocked_at', 'c.name as claimer_name'])
      .select(nickSharedWithOthers)
      .select(claimDropperName)
      .select(deciderName)
      .where('r.id', '=', id)
      .executeTakeFirst() as Promise<AdminRequestRow | undefined>;
  },

  /** An unread notice: an operator finished one of the player's requests on this wallet. Answers its balances after. */
  /**
   * A wallet's balances as of its row lock (shared: nothing is written), for the `balance` event of a change that
   * moved none (a deposit cancelled): a change committed before it is not shown older, one after it waits.
   */
  async heldBalance(trx: Transaction<Database>, walletId: number) {
    const w = await trx
      .selectFrom('wallets')
      .select(['id', 'gamesserver_id', 'balance', 'balance_second'])
      .where('id', '=', walletId)
      .forShare()
      .executeTakeFirstOrThrow();
    return { walletId: w.id, gamesserverId: w.gamesserver_id, balance: w.balance, balanceSecond: w.balance_second };
  },

  async flagMessage(db: Q, walletId: number) {
    const w = await db
      .updateTable('wallets')
      .set({ new_message: true })
      .where('id', '=', walletId)
      .returning(['id', 'gamesserver_id', 'balance', 'balance_second'])
      .executeTakeFirstOrThrow();
    return { walletId: w.id, gamesserverId: w.gamesserver_id, balance: w.balance, balanceSecond: w.balance_second };
  },

  /**
   * The player read their history (of one server, or of all). The wallets are locked in id order, as every movement
   * locks them (decision record 0003): a plain UPDATE locks them in the order they lie in the table, and a VIP purchase
   * without a server (all the player's wallets, in id order) deadlocked with it once an update had moved a row.
   */
  clearMessages(db: Kysely<Database>, ownerId: number, gameServerId?: number) {
    // Two statements in one transaction: the UPDATE's own snapshot then sees the row versions the SELECT locked.
    // As one statement (UPDATE … WHERE id IN (SELECT … FOR NO KEY UPDATE)) the UPDATE worked from the older
    // snapshot when a movement had committed on the wallet meanwhile, locked again, and could queue behind a
    // waiter that waited for it (a deadlock; stress review 2026-11-28).
    return db.transaction().execute(async (trx) => {
      let flagged = trx.selectFrom('wallets').select('id').where('user_id', '=', ownerId).where('new_message', '=', true);
      if (gameServerId !== undefined) flagged = flagged.where('gamesserver_id', '=', gameServerId);
      const ids = (await flagged.orderBy('id').forNoKeyUpdate().execute()).map((w) => w.id);
      if (ids.length > 0) await trx.updateTable('wallets').set({ new_message: false }).where('id', 'in', ids).execute();
    });
  },
};
