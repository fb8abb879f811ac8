import { type Kysely, type RawBuilder, type Selectable, sql, type Transaction } from 'kysely';
import '../../db/tables/codes';
import { compiledForms } from '../../db/compiled-forms';
import type { Database, GamesserversTable, WalletsTable } from '../../db/schema';
import type { CodeAttemptResult, CodeStatus } from '../../db/tables/codes';

export type CodesDb = Kysely<Database>;
export type CodesTrx = Transaction<Database>;
export type Q = Kysely<Database> | Transaction<Database>;
export type GameServerRow = Selectable<GamesserversTable>;
export type WalletRow = Selectable<WalletsTable>;

/**
 * Open codes listed in price data, each list apart (single codes in `kods`, own-nominal batches' codes in
 * `svoy_variant_kods`): a seller with more sees the newest this many of each.
 */
export const OPEN_CODES_LIMIT = 1000;

/** A code as the services know it: the table's columns under the domain's names. */
const CODE = [
  'id',
  'sert',
  'user_id as ownerId',
  'wallet_id as walletId',
  'gamesserver_id as gameServerId',
  'nominal',
  'fee',
  'price',
  'status',
  'pricekod_id as userVariantId',
  'activated_by as activatedBy',
  'activated_at as activatedAt',
  'cancelled_by as cancelledBy',
  'cancelled_at as cancelledAt',
  'created_at as createdAt',
  'external_id as externalId',
] as const;

/**
 * Queries only. Every method over a user's rows takes the owner first and puts it in the WHERE
 * clause, so another user's code is simply not found (404, not 403: an outsider learns nothing
 * about what exists).
 */
export const codesRepository = {
  /** The user's VIP as their row stands now (read after the purchase took that row). */
  vipOf(q: Q, userId: number) {
    return q.selectFrom('users').select('vip_until').where('id', '=', userId).executeTakeFirstOrThrow();
  },

  gameServer(q: Q, id: number) {
    return q.selectFrom('gamesservers').selectAll().where('id', '=', id).executeTakeFirst();
  },

  findWallet(q: Q, ownerId: number, walletId: number) {
    return q
      .selectFrom('wallets')
      .select(['id', 'gamesserver_id as gameServerId'])
      .where('user_id', '=', ownerId)
      .where('id', '=', walletId)
      .executeTakeFirst();
  },

  walletOnServer(q: Q, ownerId: number, gameServerId: number) {
    return q.selectFrom('wallets').selectAll().where('user_id', '=', ownerId).where('gamesserver_id', '=', gameServerId).executeTakeFirst();
  },

  /** Inserts a code unless its sert is taken (then nothing: the caller draws another). */
  insertCode(
    q: Q,
    v: {
      sert: string;
      ownerId: number;
      walletId: number;
      gameServerId: number;
      nominal: bigint;
      fee: bigint;
      userVariantId: number | null;
      externalId?: string | null;
    },
  ) {
    return q
      .insertInto('codes')
      .values({
        sert: v.sert,
        user_id: v.ownerId,
        wallet_id: v.walletId,
        gamesserver_id: v.gameServerId,
        nominal: v.nominal,
        fee: v.fee,
        price: v.nominal + v.fee,
        pricekod_id: v.userVariantId,
        external_id: v.externalId ?? null,
      })
      .onConflict((oc) => oc.column('sert').doNothing())
      .returning(CODE)
      .executeTakeFirst();
  },

  codeBySert(q: Q, sert: string) {
    return q.selectFrom('codes').select(CODE).where('sert', '=', sert).executeTakeFirst();
  },

  codeById(q: Q, id: number) {
    return q.selectFrom('codes').select(CODE).where('id', '=', id).executeTakeFirst();
  },

  ownCode(q: Q, ownerId: number, id: number) {
    return q.selectFrom('codes').select(CODE).where('user_id', '=', ownerId).where('id', '=', id).executeTakeFirst();
  },

  /**
   * The only way a code becomes activated: the row must still be active when this statement
   * gets its lock. Of any number of parallel tries exactly one gets a row back; the others
   * re-check the WHERE after the winner commits and get none.
   */
  markActivated(q: Q, codeId: number, activatorId: number, walletId: number) {
    return q
      .updateTable('codes')
      .set({ status: 'activated', activated_by: activatorId, activated_wallet_id: walletId, activated_at: sql`now()` })
      .where('id', '=', codeId)
      .where('status', '=', 'active')
      .where('user_id', '<>', activatorId)
      .returning(CODE)
      .executeTakeFirst();
  },

  /** Cancels the owner's active codes among `ids` (the same single-transition rule as activation). */
  cancelOwnCodes(q: Q, ownerId: number, ids: number[], cancelledBy: number) {
    if (ids.length === 0) return Promise.resolve([]);
    return q
      .updateTable('codes')
      .set({ status: 'cancelled', cancelled_by: cancelledBy, cancelled_at: sql`now()` })
      .where('user_id', '=', ownerId)
      .where('id', 'in', ids)
      .where('status', '=', 'active')
      .returning(CODE)
      .execute();
  },

  /** An operator's cancel: any owner's active code. */
  cancelAnyCode(q: Q, id: number, cancelledBy: number) {
    return q
      .updateTable('codes')
      .set({ status: 'cancelled', cancelled_by: cancelledBy, cancelled_at: sql`now()` })
      .where('id', '=', id)
      .where('status', '=', 'active')
      .returning(CODE)
      .executeTakeFirst();
  },

  /**
   * A page of the owner's codes, newest first, with the count of all that match (the seller API's list).
   * `olderThan`, a keyset cursor, keeps the page to codes below that id (the offset counts from there), so
   * codes that leave the filter between two pages shift nothing. `total` leaves the cursor out on purpose:
   * it is the count of every code the filters match, as it was before the cursor existed.
   */
  async pageOfOwner(q: Q, ownerId: number, f: { status?: CodeStatus; gameServerId?: number; olderThan?: number; offset: number; limit: number }) {
    let base = q.selectFrom('codes').where('user_id', '=', ownerId);
    if (f.status) base = base.where('status', '=', f.status);
    if (f.gameServerId !== undefined) base = base.where('gamesserver_id', '=', f.gameServerId);
    const page = f.olderThan === undefined ? base : base.where('id', '<', f.olderThan);
    const rows = await page.select(CODE).orderBy('id', 'desc').offset(f.offset).limit(f.limit).execute();
    const { total } = await base.select((eb) => eb.fn.countAll<string>().as('total')).executeTakeFirstOrThrow();
    return { rows, total: Number(total) };
  },

  /**
   * Everything the price data of each (owner, game server) pair shows (decision record 0026,
   * "Wallets and price data"): the server, the owner's wallet there (null when they have none yet),
   * their open codes (the newest OPEN_CODES_LIMIT singles and as many batch codes), their live variants
   * with counts, and the last code they activated there. Lists come back as arrays of native columns, so each value is parsed by
   * the driver exactly as separate queries' would be. Keyed by priceDataKey; a pair of an unknown
   * server has no entry.
   *
   * One pair is a statement PostgreSQL plans once per connection. Several go as two arrays in one
   * statement, which PostgreSQL plans on every call (about half a millisecond): worth it for a
   * batch large enough that the round trips it saves cost more (the service decides).
   */
  async priceDataOf(q: Q, pairs: ReadonlyArray<{ ownerId: number; gameServerId: number }>) {
    const { rows } = await q.executeQuery(codesRepository.priceDataCompiled(q, pairs));
    return priceDataFrom(rows);
  },

  /** priceDataOf's statement built and compiled afresh (what priceDataCompiled must equal). */
  priceDataQuery: (q: Q, pairs: ReadonlyArray<{ ownerId: number; gameServerId: number }>) => priceDataStatement(pairSource(pairs)).compile(q),

  /**
   * priceDataOf's statement compiled, to be run elsewhere (on the change feed's connection: `ChangeFeed.read`);
   * `priceDataFrom` reads its rows. Built and compiled once per form (one pair, several) and handle (`compiledForms`):
   * only the pairs, its first two parameters, change from call to call (a test compares it with a fresh compile).
   */
  priceDataCompiled: compiledForms({
    statement: (_q: Q, pairs: ReadonlyArray<{ ownerId: number; gameServerId: number }>) => priceDataStatement(pairSource(pairs)),
    sample: { ownerId: 0, gameServerId: 0 },
    leading: pairParameters,
  }),
  priceDataFrom,

  /** Every code the owner issued, active ones first, then the newest (GET /api/my_codes). */
  async ownCodesPage(q: Q, ownerId: number, f: { status?: CodeStatus; gameServerId?: number }, limit: number, offset: number) {
    let base = q.selectFrom('codes').where('user_id', '=', ownerId);
    if (f.status !== undefined) base = base.where('status', '=', f.status);
    if (f.gameServerId !== undefined) base = base.where('gamesserver_id', '=', f.gameServerId);
    const [rows, count] = await Promise.all([
      base
        .select(CODE)
        .orderBy(sql`status = 'active'`, 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute(),
      base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(count.n) };
  },

  /** The owner's open codes of one user variant, locked in id order (the order every batch change uses). */
  lockOpenCodesOfVariant(trx: CodesTrx, ownerId: number, userVariantId: number) {
    return trx
      .selectFrom('codes')
      .select(CODE)
      .where('user_id', '=', ownerId)
      .where('pricekod_id', '=', userVariantId)
      .where('status', '=', 'active')
      .orderBy('id')
      .forUpdate()
      .execute();
  },

  insertAttempt(q: Q, v: { codeId: number | null; userId: number; ip: string | null; result: CodeAttemptResult; sertTried?: string | null }) {
    return q
      .insertInto('code_attempts')
      .values({ code_id: v.codeId, user_id: v.userId, ip: v.ip, result: v.result, sert_tried: v.sertTried ?? null })
      .execute();
  },

  // ── the operators' lookup ──

  /** The newest codes a user issued, for the operators' user card. */
  newestOfOwner(q: Q, ownerId: number, limit: number) {
    return q
      .selectFrom('codes')
      .select(['id', 'gamesserver_id', 'nominal', 'price', 'status', 'created_at', 'activated_at'])
      .where('user_id', '=', ownerId)
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  },

  people(q: Q, ids: number[]) {
    return q.selectFrom('users').select(['id', 'name', 'email']).where('id', 'in', ids).execute();
  },

  attemptsOf(q: Q, codeId: number) {
    return q
      .selectFrom('code_attempts as a')
      .innerJoin('users as u', 'u.id', 'a.user_id')
      .select(['a.id', 'a.ip', 'a.result', 'a.created_at as createdAt', 'u.id as userId', 'u.name', 'u.email'])
      .where('a.code_id', '=', codeId)
      .orderBy('a.id')
      .limit(500)
      .execute();
  },

  /** The entries of the code's own postings and of its user variant's batch postings. */
  async ledgerOf(q: Q, code: { id: number; userVariantId: number | null }) {
    const { rows } = await sql<{
      id: bigint;
      transaction_id: bigint;
      kind: string;
      ref_type: string | null;
      ref_id: bigint | null;
      actor_user_id: number | null;
      account_id: number;
      key: string;
      gamesserver_id: number;
      currency_type: number;
      amount: bigint;
      balance_after: bigint | null;
      created_at: Date;
    }>`
      SELECT e.id, e.transaction_id, t.kind, t.ref_type, t.ref_id, t.actor_user_id, e.account_id, a.key,
             a.gamesserver_id, a.currency_type, e.amount, e.balance_after, e.created_at
      FROM ledger_transactions t
      JOIN ledger_entries e ON e.transaction_id = t.id
      JOIN ledger_accounts a ON a.id = e.account_id
      WHERE (t.ref_type = 'code' AND t.ref_id = ${code.id})
         OR (${code.userVariantId}::integer IS NOT NULL AND t.ref_type = 'pricekod' AND t.ref_id = ${code.userVariantId}::integer)
      ORDER BY e.id
      LIMIT 500`.execute(q);
    return rows;
  },
};

/** The pairs as priceDataStatement's row source: one pair a `VALUES` row (planned once), several two arrays. */
function pairSource(pairs: ReadonlyArray<{ ownerId: number; gameServerId: number }>) {
  const [owners, servers] = pairParameters(pairs);
  return pairs.length === 1
    ? sql`(VALUES (${owners}::int, ${servers}::int)) AS k(owner_id, server_id)`
    : sql`unnest(${owners}::int[], ${servers}::int[]) AS k(owner_id, server_id)`;
}

/** The pairs as pairSource's two parameters: one pair's ids, or two array literals. */
function pairParameters(pairs: ReadonlyArray<{ ownerId: number; gameServerId: number }>): [number | string, number | string] {
  if (pairs.length === 1) return [Math.trunc(pairs[0]!.ownerId), Math.trunc(pairs[0]!.gameServerId)];
  const ids = (pick: (p: { ownerId: number; gameServerId: number }) => number) => `{${pairs.map((p) => Math.trunc(pick(p))).join(',')}}`;
  return [ids((p) => p.ownerId), ids((p) => p.gameServerId)];
}

/** priceDataOf's answer from its statement's rows. */
function priceDataFrom(rows: readonly PriceDataRaw[]) {
  return new Map(rows.map((r) => [priceDataKey(r.owner_id, r.id), priceDataOfRow(r)]));
}

/** The key of an (owner, game server) pair in priceDataOf's answer. */
export const priceDataKey = (ownerId: number, gameServerId: number) => `${ownerId}:${gameServerId}`;

/**
 * priceDataOf's statement over `pairs`, a row source with the columns owner_id and server_id, each
 * pair joined to its server.
 */
const priceDataStatement = (pairs: RawBuilder<unknown>) => sql<PriceDataRaw>`
  SELECT k.owner_id, g.id, g.name, g.active, g.standard_nominals, g.code_fee_bp, g.vip_code_fee_bp, g.min_nominal,
         w.id AS wallet_id, w.balance, w.balance_second, w.nick, w.telegram_price,
         o.ids AS open_ids, o.serts AS open_serts, o.nominals AS open_nominals, o.prices AS open_prices,
         o.variants AS open_variants, o.created AS open_created,
         v.ids AS var_ids, v.nominals AS var_nominals, v.created AS var_created, v.counts AS var_counts, v.opens AS var_opens,
         l.id AS last_id, l.nominal AS last_nominal, l.status AS last_status, l.activated_at AS last_activated_at
    FROM ${pairs}
    JOIN gamesservers g ON g.id = k.server_id
    LEFT JOIN wallets w ON w.user_id = k.owner_id AND w.gamesserver_id = g.id
    LEFT JOIN LATERAL (
      SELECT array_agg(c.id ORDER BY c.id DESC) AS ids, array_agg(c.sert ORDER BY c.id DESC) AS serts,
             array_agg(c.nominal::text ORDER BY c.id DESC) AS nominals, array_agg(c.price::text ORDER BY c.id DESC) AS prices,
             array_agg(c.pricekod_id ORDER BY c.id DESC) AS variants, array_agg(c.created_at ORDER BY c.id DESC) AS created
        FROM ((SELECT c.id, c.sert, c.nominal, c.price, c.pricekod_id, c.created_at FROM codes c
                WHERE c.user_id = k.owner_id AND c.gamesserver_id = g.id AND c.status = 'active' AND c.pricekod_id IS NULL
                ORDER BY c.id DESC LIMIT ${OPEN_CODES_LIMIT})
              UNION ALL
              (SELECT c.id, c.sert, c.nominal, c.price, c.pricekod_id, c.created_at FROM codes c
                WHERE c.user_id = k.owner_id AND c.gamesserver_id = g.id AND c.status = 'active' AND c.pricekod_id IS NOT NULL
                ORDER BY c.id DESC LIMIT ${OPEN_CODES_LIMIT})) c
    ) o ON w.id IS NOT NULL
    LEFT JOIN LATERAL (
      SELECT array_agg(p.id ORDER BY p.id DESC) AS ids, array_agg(p.nominal::text ORDER BY p.id DESC) AS nominals,
             array_agg(p.created_at ORDER BY p.id DESC) AS created,
             array_agg((SELECT count(*) FROM codes c WHERE c.pricekod_id = p.id AND c.status <> 'cancelled')::text ORDER BY p.id DESC) AS counts,
             array_agg((SELECT count(*) FROM codes c WHERE c.pricekod_id = p.id AND c.status = 'active')::text ORDER BY p.id DESC) AS opens
        FROM pricekods p
       WHERE p.user_id = k.owner_id AND p.gamesserver_id = g.id AND p.deleted_at IS NULL
    ) v ON w.id IS NOT NULL
    LEFT JOIN LATERAL (
      SELECT c.id, c.nominal, c.status, c.activated_at FROM codes c
       WHERE c.activated_by = k.owner_id AND c.gamesserver_id = g.id
       ORDER BY c.activated_at DESC, c.id DESC LIMIT 1
    ) l ON w.id IS NOT NULL`;

/** One row of the price data as the service uses it. */
function priceDataOfRow(r: PriceDataRaw) {
  const server = {
    id: r.id,
    name: r.name,
    active: r.active,
    standard_nominals: r.standard_nominals,
    code_fee_bp: r.code_fee_bp,
    vip_code_fee_bp: r.vip_code_fee_bp,
    min_nominal: r.min_nominal,
  };
  if (r.wallet_id === null) return { server, wallet: null };
  const wallet = { id: r.wallet_id, balance: r.balance!, balance_second: r.balance_second!, nick: r.nick, telegram_price: r.telegram_price };
  const open = (r.open_ids ?? []).map((id, i) => ({
    id,
    sert: r.open_serts![i]!,
    gameServerId: r.id,
    nominal: BigInt(r.open_nominals![i]!),
    price: BigInt(r.open_prices![i]!),
    status: 'active' as const,
    userVariantId: r.open_variants![i] ?? null,
    createdAt: r.open_created![i]!,
    activatedAt: null,
  }));
  const variants = (r.var_ids ?? []).map((id, i) => ({
    id,
    gameServerId: r.id,
    nominal: BigInt(r.var_nominals![i]!),
    createdAt: r.var_created![i]!,
    count: r.var_counts![i]!,
    openCount: r.var_opens![i]!,
  }));
  const last =
    r.last_id === null ? undefined : { id: r.last_id, nominal: r.last_nominal!, status: r.last_status as CodeStatus, activatedAt: r.last_activated_at };
  return { server, wallet, open, variants, last };
}

/** The price data statement's one row as the driver parses it. */
export interface PriceDataRaw {
  owner_id: number;
  id: number;
  name: string;
  active: boolean;
  standard_nominals: GameServerRow['standard_nominals'];
  code_fee_bp: number;
  vip_code_fee_bp: number;
  min_nominal: bigint;
  wallet_id: number | null;
  balance: bigint | null;
  balance_second: bigint | null;
  nick: string | null;
  telegram_price: bigint | null;
  open_ids: number[] | null;
  open_serts: string[] | null;
  open_nominals: string[] | null;
  open_prices: string[] | null;
  open_variants: Array<number | null> | null;
  open_created: Date[] | null;
  var_ids: number[] | null;
  var_nominals: string[] | null;
  var_created: Date[] | null;
  var_counts: string[] | null;
  var_opens: string[] | null;
  last_id: number | null;
  last_nominal: bigint | null;
  last_status: string | null;
  last_activated_at: Date | null;
}

export type PriceDataRow = ReturnType<typeof priceDataOfRow>;
export type CodeRow = NonNullable<Awaited<ReturnType<typeof codesRepository.codeById>>>;
export type LedgerEntryRow = Awaited<ReturnType<typeof codesRepository.ledgerOf>>[number];
export type OwnerCodeRow = Awaited<ReturnType<typeof codesRepository.newestOfOwner>>[number];
export type AttemptRow = Awaited<ReturnType<typeof codesRepository.attemptsOf>>[number];
