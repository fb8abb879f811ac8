import { type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import type { BalanceRequestsTable, Database, RequestStatus, RequestType } from '../../db/schema';

type Q = Kysely<Database> | Transaction<Database>;

export type RequestRow = Selectable<BalanceRequestsTable> & { gamesserver: string };
export type AdminRequestRow = RequestRow & {
  user_name: string;
  user_email: string | null;
  user_phone: string | null;
  user_vip_until: Date | null;
};

export interface QueueFilters {
  status?: RequestStatus;
  type?: RequestType;
  gamesserverId?: number;
  currencyType?: 1 | 2;
  page: number;
  perPage: number;
}

/** Deposits and withdrawals. Player-side queries take the owner, so another user's rows are not found. */
export const requestsRepository = {
  /** Locks a request so that two operators (or an operator and its owner) take turns on it. */
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

  async history(db: Q, ownerId: number, f: { gamesserverId?: number; page: number; perPage: number }) {
    let base = db.selectFrom('balance_requests as r').where('r.user_id', '=', ownerId).where('r.hidden_at', 'is', null);
    if (f.gamesserverId !== undefined) base = base.where('r.gamesserver_id', '=', f.gamesserverId);
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

  /** The operators' queue: VIP players first, then the oldest; finished requests newest first. */
  async queue(db: Q, f: QueueFilters) {
    let base = db.selectFrom('balance_requests as r').innerJoin('users as u', 'u.id', 'r.user_id');
    if (f.status) base = base.where('r.status', '=', f.status);
    if (f.type) base = base.where('r.type', '=', f.type);
    if (f.gamesserverId !== undefined) base = base.where('r.gamesserver_id', '=', f.gamesserverId);
    if (f.currencyType !== undefined) base = base.where('r.currency_type', '=', f.currencyType);
    let rows = base
      .innerJoin('gamesservers as g', 'g.id', 'r.gamesserver_id')
      .selectAll('r')
      .select(['g.name as gamesserver', 'u.name as user_name', 'u.email as user_email', 'u.phone as user_phone', 'u.vip_until as user_vip_until']);
    rows =
      f.status === 'pending'
        ? rows.orderBy(sql`CASE WHEN u.vip_until > now() THEN 0 ELSE 1 END`).orderBy('r.id', 'asc')
        : rows.orderBy(sql`CASE WHEN r.status = 'pending' THEN 0 ELSE 1 END`).orderBy(sql`CASE WHEN r.status = 'pending' AND u.vip_until > now() THEN 0 ELSE 1 END`).orderBy(sql`CASE WHEN r.status = 'pending' THEN r.id ELSE -r.id END`);
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
      .selectAll('r')
      .select(['g.name as gamesserver', 'u.name as user_name', 'u.email as user_email', 'u.phone as user_phone', 'u.vip_until as user_vip_until'])
      .where('r.id', '=', id)
      .executeTakeFirst() as Promise<AdminRequestRow | undefined>;
  },

  /** An unread notice: an operator finished one of the player's requests on this wallet. Answers its balances after. */
  async flagMessage(db: Q, walletId: number) {
    const w = await db
      .updateTable('wallets')
      .set({ new_message: true })
      .where('id', '=', walletId)
      .returning(['id', 'gamesserver_id', 'balance', 'balance_second'])
      .executeTakeFirstOrThrow();
    return { walletId: w.id, gamesserverId: w.gamesserver_id, balance: w.balance, balanceSecond: w.balance_second };
  },

  /** The player read their history (of one server, or of all). */
  clearMessages(db: Q, ownerId: number, gamesserverId?: number) {
    let q = db.updateTable('wallets').set({ new_message: false }).where('user_id', '=', ownerId).where('new_message', '=', true);
    if (gamesserverId !== undefined) q = q.where('gamesserver_id', '=', gamesserverId);
    return q.execute();
  },
};
