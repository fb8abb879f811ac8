import { type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import '../../db/tables/codes';
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

export type CodeRow = NonNullable<Awaited<ReturnType<typeof codesRepository.codeById>>>;
export type LedgerEntryRow = Awaited<ReturnType<typeof codesRepository.ledgerOf>>[number];
export type OwnerCodeRow = Awaited<ReturnType<typeof codesRepository.newestOfOwner>>[number];
export type AttemptRow = Awaited<ReturnType<typeof codesRepository.attemptsOf>>[number];
