import { type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import type { AdminAuditLogTable, Database, GamesserversTable, LedgerAccountKind } from '../../db/schema';
import '../../db/tables/admin';
import '../../db/tables/codes';

type Q = Kysely<Database> | Transaction<Database>;

export interface AuditWrite {
  adminId: number;
  action: string;
  entityType: string;
  entityId: string | number;
  before: unknown;
  after: unknown;
}

/** `%`, `_` and `\` are LIKE's own characters; a search for them must find them literally. */
const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * A case-insensitive "contains" as a case-sensitive regular expression: each letter becomes
 * `[аА]`. lower() and ILIKE fold Cyrillic only under a UTF-8 locale, and a cluster made with
 * --locale=C (as in tests, and on some hosts) would not find 'Иван' by 'иван'.
 */
export const caseless = (s: string) =>
  [...s]
    .map((c) => {
      const lo = c.toLowerCase();
      const up = c.toUpperCase();
      if (lo !== up && lo.length === 1 && up.length === 1) return `[${lo}${up}]`;
      // In PostgreSQL's regular expressions a backslash before a non-alphanumeric is that character.
      return /[\p{L}\p{N}]/u.test(c) ? c : `\\${c}`;
    })
    .join('');

export interface UserSearch {
  q?: string;
  role?: 'admin' | 'vip' | 'blocked';
  page: number;
  perPage: number;
}

export interface AuditFilters {
  adminId?: number;
  entityType?: string;
  entityId?: string;
  action?: string;
  page: number;
  perPage: number;
}

/** Queries of the admin area. Admins see every user's rows, so none of these is owner-scoped. */
export function createAdminRepository(db: Kysely<Database>) {
  return {
    db,

    writeAudit(trx: Q, a: AuditWrite) {
      return trx
        .insertInto('admin_audit_log')
        .values({
          admin_id: a.adminId,
          action: a.action,
          entity_type: a.entityType,
          entity_id: String(a.entityId),
          before: a.before === null ? null : JSON.stringify(a.before),
          after: a.after === null ? null : JSON.stringify(a.after),
        })
        .execute();
    },

    // ── game servers ──
    listServers() {
      return db.selectFrom('gamesservers').selectAll().orderBy('sort_order').orderBy('id').execute();
    },
    lockServer(trx: Q, id: number) {
      return trx.selectFrom('gamesservers').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
    },
    serverNameTaken(trx: Q, name: string, exceptId?: number) {
      let q = trx.selectFrom('gamesservers').select('id').where(sql<boolean>`lower(name) = lower(${name})`);
      if (exceptId !== undefined) q = q.where('id', '<>', exceptId);
      return q.executeTakeFirst().then(Boolean);
    },
    insertServer(trx: Q, values: ServerValues) {
      return trx.insertInto('gamesservers').values(values).returningAll().executeTakeFirstOrThrow();
    },
    updateServer(trx: Q, id: number, values: ServerValues) {
      return trx
        .updateTable('gamesservers')
        .set({ ...values, updated_at: new Date() })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
    },

    // ── users ──
    async searchUsers(s: UserSearch) {
      let q = db.selectFrom('users');
      const text = s.q?.trim();
      if (text) {
        const like = `%${escapeLike(text.toLowerCase())}%`;
        const digits = /^\d{1,18}$/.test(text) ? text : null;
        q = q.where((eb) =>
          eb.or([
            eb(sql`lower(email)`, 'like', like),
            eb('phone', 'like', `%${escapeLike(text.replace(/[\s()-]/g, ''))}%`),
            eb('name', '~', caseless(text)),
            eb('discord_id', '=', text),
            ...(digits ? [eb('telegram_id', '=', BigInt(digits))] : []),
            ...(digits && Number(digits) <= 2_147_483_647 ? [eb('id', '=', Number(digits))] : []),
          ]),
        );
      }
      if (s.role === 'admin') q = q.where('admin', '=', true);
      if (s.role === 'vip') q = q.where('vip_until', '>', new Date());
      if (s.role === 'blocked') q = q.where('blocked_at', 'is not', null);
      const [rows, count] = await Promise.all([
        q
          .selectAll()
          .orderBy('id', 'desc')
          .limit(s.perPage)
          .offset((s.page - 1) * s.perPage)
          .execute(),
        q.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { rows, total: Number(count.n) };
    },
    findUser(trx: Q, id: number) {
      return trx.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    },
    lockUser(trx: Q, id: number) {
      return trx.selectFrom('users').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
    },
    updateUser(trx: Q, id: number, set: { admin?: boolean; vip_until?: Date | null; blocked_at?: Date | null }) {
      return trx
        .updateTable('users')
        .set({ ...set, updated_at: new Date() })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
    },
    /** Every bearer token of the user: sessions, password-reset and realtime tokens alike. */
    endTokens(trx: Q, userId: number) {
      return trx.deleteFrom('tokens').where('user_id', '=', userId).execute();
    },
    userWallets(userId: number) {
      return db
        .selectFrom('wallets')
        .innerJoin('gamesservers', 'gamesservers.id', 'wallets.gamesserver_id')
        .selectAll('wallets')
        .select('gamesservers.name as gamesserver')
        .select((eb) => [
          eb
            .selectFrom('ledger_accounts')
            .select('ledger_accounts.id')
            .whereRef('ledger_accounts.wallet_id', '=', 'wallets.id')
            .where('ledger_accounts.currency_type', '=', 1)
            .as('account_1'),
          eb
            .selectFrom('ledger_accounts')
            .select('ledger_accounts.id')
            .whereRef('ledger_accounts.wallet_id', '=', 'wallets.id')
            .where('ledger_accounts.currency_type', '=', 2)
            .as('account_2'),
        ])
        .where('wallets.user_id', '=', userId)
        .orderBy('gamesservers.sort_order')
        .orderBy('gamesservers.id')
        .execute();
    },
    userRequests(userId: number, limit: number) {
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
    userLedger(userId: number, limit: number) {
      return entriesQuery(db)
        .innerJoin('wallets', 'wallets.id', 'ledger_accounts.wallet_id')
        .where('wallets.user_id', '=', userId)
        .orderBy('ledger_entries.id', 'desc')
        .limit(limit)
        .execute();
    },
    userCodes(userId: number, limit: number) {
      return db
        .selectFrom('codes')
        .select(['id', 'gamesserver_id', 'nominal', 'price', 'status', 'created_at', 'activated_at'])
        .where('user_id', '=', userId)
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
    },

    // ── ledger ──
    async serviceTotals() {
      const r = await sql<{ gamesserver_id: number; currency_type: 1 | 2; kind: Exclude<LedgerAccountKind, 'wallet'>; account_id: number; total: bigint }>`
        SELECT a.gamesserver_id, a.currency_type, a.kind, a.id AS account_id,
               coalesce((SELECT sum(e.amount) FROM ledger_entries e WHERE e.account_id = a.id), 0)::bigint AS total
        FROM ledger_accounts a WHERE a.kind <> 'wallet'`.execute(db);
      return r.rows;
    },
    async walletTotals() {
      const r = await sql<{ gamesserver_id: number; balance: bigint; balance_second: bigint }>`
        SELECT gamesserver_id, coalesce(sum(balance), 0)::bigint AS balance, coalesce(sum(balance_second), 0)::bigint AS balance_second
        FROM wallets GROUP BY gamesserver_id`.execute(db);
      return r.rows;
    },
    async account(id: number) {
      const row = await db
        .selectFrom('ledger_accounts')
        .innerJoin('gamesservers', 'gamesservers.id', 'ledger_accounts.gamesserver_id')
        .leftJoin('wallets', 'wallets.id', 'ledger_accounts.wallet_id')
        .selectAll('ledger_accounts')
        .select(['gamesservers.name as gamesserver', 'wallets.user_id'])
        .select(
          sql<bigint>`coalesce((SELECT sum(e.amount) FROM ledger_entries e WHERE e.account_id = ledger_accounts.id), 0)::bigint`.as('balance'),
        )
        .where('ledger_accounts.id', '=', id)
        .executeTakeFirst();
      return row;
    },
    async accountEntries(accountId: number, page: number, perPage: number) {
      const [rows, count] = await Promise.all([
        entriesQuery(db)
          .where('ledger_entries.account_id', '=', accountId)
          .orderBy('ledger_entries.id', 'desc')
          .limit(perPage)
          .offset((page - 1) * perPage)
          .execute(),
        db
          .selectFrom('ledger_entries')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .where('account_id', '=', accountId)
          .executeTakeFirstOrThrow(),
      ]);
      return { rows, total: Number(count.n) };
    },

    // ── incidents ──
    findResolution(trx: Q, incidentId: number) {
      return trx.selectFrom('code_incident_resolutions').selectAll().where('incident_id', '=', BigInt(incidentId)).executeTakeFirst();
    },
    insertResolution(trx: Q, v: { incidentId: number; adminId: number; note: string }) {
      return trx
        .insertInto('code_incident_resolutions')
        .values({ incident_id: BigInt(v.incidentId), admin_id: v.adminId, note: v.note })
        .onConflict((oc) => oc.column('incident_id').doNothing())
        .returningAll()
        .executeTakeFirst();
    },
    resolutions(ids: number[]) {
      if (ids.length === 0) return Promise.resolve([]);
      return db
        .selectFrom('code_incident_resolutions')
        .innerJoin('users', 'users.id', 'code_incident_resolutions.admin_id')
        .selectAll('code_incident_resolutions')
        .select('users.name as admin_name')
        .where(
          'incident_id',
          'in',
          ids.map((i) => BigInt(i)),
        )
        .orderBy('incident_id')
        .execute();
    },

    // ── audit log ──
    async auditLog(f: AuditFilters) {
      let q = db.selectFrom('admin_audit_log').innerJoin('users', 'users.id', 'admin_audit_log.admin_id');
      if (f.adminId !== undefined) q = q.where('admin_audit_log.admin_id', '=', f.adminId);
      if (f.entityType) q = q.where('admin_audit_log.entity_type', '=', f.entityType);
      if (f.entityId) q = q.where('admin_audit_log.entity_id', '=', f.entityId);
      if (f.action) q = q.where('admin_audit_log.action', '=', f.action);
      const [rows, count] = await Promise.all([
        q
          .selectAll('admin_audit_log')
          .select(['users.name as admin_name', 'users.email as admin_email'])
          .orderBy('admin_audit_log.id', 'desc')
          .limit(f.perPage)
          .offset((f.page - 1) * f.perPage)
          .execute(),
        q.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { rows: rows as Array<Selectable<AdminAuditLogTable> & { admin_name: string; admin_email: string | null }>, total: Number(count.n) };
    },

    // ── dashboard ──
    async pendingSummary() {
      const r = await sql<{ gamesserver_id: number; gamesserver: string; currency_type: 1 | 2; type: 'input' | 'output'; n: bigint; s: bigint; oldest: Date }>`
        SELECT r.gamesserver_id, g.name AS gamesserver, r.currency_type, r.type,
               count(*)::bigint AS n, sum(r.amount)::bigint AS s, min(r.created_at) AS oldest
        FROM balance_requests r JOIN gamesservers g ON g.id = r.gamesserver_id
        WHERE r.status = 'pending'
        GROUP BY r.gamesserver_id, g.name, g.sort_order, r.currency_type, r.type
        ORDER BY g.sort_order, r.gamesserver_id, r.currency_type, r.type`.execute(db);
      return r.rows;
    },
    oldestPending() {
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
    async medians() {
      const r = await sql<{ gamesserver_id: number | null; seconds: number | null; n: bigint }>`
        SELECT gamesserver_id,
               percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM processed_at - created_at)) AS seconds,
               count(*)::bigint AS n
        FROM balance_requests
        WHERE status IN ('completed', 'rejected') AND processed_at > now() - interval '24 hours'
        GROUP BY GROUPING SETS ((gamesserver_id), ())`.execute(db);
      return r.rows;
    },
  };
}

export type AdminRepository = ReturnType<typeof createAdminRepository>;
export type ServerRow = Selectable<GamesserversTable>;
export interface ServerValues {
  name: string;
  active: boolean;
  sort_order: number;
  cashier_nick: string;
  limits: string;
  code_fee_bp: number;
  vip_code_fee_bp: number;
  min_nominal: number;
  standard_nominals: string;
  vip_price: number;
  vip_period_days: number;
}

function entriesQuery(db: Kysely<Database>) {
  return db
    .selectFrom('ledger_entries')
    .innerJoin('ledger_transactions', 'ledger_transactions.id', 'ledger_entries.transaction_id')
    .innerJoin('ledger_accounts', 'ledger_accounts.id', 'ledger_entries.account_id')
    .select([
      'ledger_entries.id',
      'ledger_entries.transaction_id',
      'ledger_transactions.kind as transaction_kind',
      'ledger_transactions.ref_type',
      'ledger_transactions.ref_id',
      'ledger_transactions.actor_user_id',
      'ledger_entries.account_id',
      'ledger_accounts.key as account_key',
      'ledger_accounts.gamesserver_id',
      'ledger_accounts.currency_type',
      'ledger_entries.amount',
      'ledger_entries.balance_after',
      'ledger_entries.created_at',
    ]);
}
