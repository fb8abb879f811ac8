import { type Kysely, sql, type Transaction } from 'kysely';
import '../../db/tables/codes';
import type { Database } from '../../db/schema';
import type { CodeAttemptResult, CodeStatus } from '../../db/tables/codes';

type Q = Kysely<Database> | Transaction<Database>;

/** Open codes listed in price data; a seller with more sees the newest this many. */
export const OPEN_CODES_LIMIT = 1000;

/**
 * Queries only. Every method over a user's rows takes the owner first and puts it in the WHERE
 * clause, so another user's code, variant or incident is simply not found (404, not 403: an
 * outsider learns nothing about what exists).
 */
export const codesRepository = {
  server(q: Q, id: number) {
    return q.selectFrom('gamesservers').selectAll().where('id', '=', id).executeTakeFirst();
  },

  activeServers(q: Q) {
    return q.selectFrom('gamesservers').selectAll().where('active', '=', true).orderBy('sort_order').orderBy('id').execute();
  },

  user(q: Q, id: number) {
    return q.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  },

  walletOnServer(q: Q, userId: number, gamesserverId: number) {
    return q
      .selectFrom('wallets')
      .selectAll()
      .where('user_id', '=', userId)
      .where('gamesserver_id', '=', gamesserverId)
      .executeTakeFirst();
  },

  walletsOf(q: Q, userId: number) {
    return q.selectFrom('wallets').selectAll().where('user_id', '=', userId).execute();
  },

  setTelegramPrice(q: Q, userId: number, gamesserverId: number, value: bigint | null) {
    return q
      .updateTable('wallets')
      .set({ telegram_price: value })
      .where('user_id', '=', userId)
      .where('gamesserver_id', '=', gamesserverId)
      .returningAll()
      .executeTakeFirst();
  },

  // ── codes ──

  /** Inserts a code unless its sert is taken (then nothing: the caller draws another). */
  insertCode(
    q: Q,
    v: { sert: string; userId: number; walletId: number; gamesserverId: number; nominal: bigint; fee: bigint; pricekodId: number | null },
  ) {
    return q
      .insertInto('codes')
      .values({
        sert: v.sert,
        user_id: v.userId,
        wallet_id: v.walletId,
        gamesserver_id: v.gamesserverId,
        nominal: v.nominal,
        fee: v.fee,
        price: v.nominal + v.fee,
        pricekod_id: v.pricekodId,
      })
      .onConflict((oc) => oc.column('sert').doNothing())
      .returningAll()
      .executeTakeFirst();
  },

  codeBySert(q: Q, sert: string) {
    return q.selectFrom('codes').selectAll().where('sert', '=', sert).executeTakeFirst();
  },

  codeById(q: Q, id: number) {
    return q.selectFrom('codes').selectAll().where('id', '=', id).executeTakeFirst();
  },

  ownCode(q: Q, ownerId: number, id: number) {
    return q.selectFrom('codes').selectAll().where('user_id', '=', ownerId).where('id', '=', id).executeTakeFirst();
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
      .returningAll()
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
      .returningAll()
      .execute();
  },

  openCodes(q: Q, ownerId: number, gamesserverId: number) {
    return q
      .selectFrom('codes')
      .selectAll()
      .where('user_id', '=', ownerId)
      .where('gamesserver_id', '=', gamesserverId)
      .where('status', '=', 'active')
      .orderBy('id', 'desc')
      .limit(OPEN_CODES_LIMIT)
      .execute();
  },

  /** The owner's open codes of one variant, locked in id order (the order every batch change uses). */
  lockOpenCodesOfPricekod(trx: Transaction<Database>, ownerId: number, pricekodId: number) {
    return trx
      .selectFrom('codes')
      .selectAll()
      .where('user_id', '=', ownerId)
      .where('pricekod_id', '=', pricekodId)
      .where('status', '=', 'active')
      .orderBy('id')
      .forUpdate()
      .execute();
  },

  lastActivatedBy(q: Q, userId: number, gamesserverId: number) {
    return q
      .selectFrom('codes')
      .select(['id', 'nominal', 'status', 'activated_at'])
      .where('activated_by', '=', userId)
      .where('gamesserver_id', '=', gamesserverId)
      .orderBy('activated_at', 'desc')
      .orderBy('id', 'desc')
      .executeTakeFirst();
  },

  insertAttempt(q: Q, v: { codeId: number | null; userId: number; ip: string | null; result: CodeAttemptResult; sertTried?: string | null }) {
    return q
      .insertInto('code_attempts')
      .values({ code_id: v.codeId, user_id: v.userId, ip: v.ip, result: v.result, sert_tried: v.sertTried ?? null })
      .execute();
  },

  // ── user variants ──

  insertPricekod(q: Q, v: { userId: number; walletId: number; gamesserverId: number; nominal: bigint }) {
    return q
      .insertInto('pricekods')
      .values({ user_id: v.userId, wallet_id: v.walletId, gamesserver_id: v.gamesserverId, nominal: v.nominal })
      .returningAll()
      .executeTakeFirstOrThrow();
  },

  /** Locks the owner's live variant: every change of one batch queues behind the previous one. */
  lockOwnPricekod(trx: Transaction<Database>, ownerId: number, id: number) {
    return trx
      .selectFrom('pricekods')
      .selectAll()
      .where('user_id', '=', ownerId)
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .forUpdate()
      .executeTakeFirst();
  },

  ownPricekod(q: Q, ownerId: number, id: number) {
    return q
      .selectFrom('pricekods')
      .selectAll()
      .where('user_id', '=', ownerId)
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
  },

  updatePricekod(q: Q, ownerId: number, id: number, set: { nominal?: bigint; deleted?: boolean }) {
    return q
      .updateTable('pricekods')
      .set({
        ...(set.nominal !== undefined ? { nominal: set.nominal } : {}),
        ...(set.deleted ? { deleted_at: sql`now()` } : {}),
        updated_at: sql`now()`,
      })
      .where('user_id', '=', ownerId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
  },

  /** The owner's live variants on a server with their counts: codes not cancelled, and open ones. */
  pricekodsWithCounts(q: Q, ownerId: number, gamesserverId: number, onlyId?: number) {
    let query = q
      .selectFrom('pricekods as p')
      .select([
        'p.id',
        'p.gamesserver_id',
        'p.nominal',
        'p.created_at',
        sql<string>`(SELECT count(*) FROM codes c WHERE c.pricekod_id = p.id AND c.status <> 'cancelled')`.as('count'),
        sql<string>`(SELECT count(*) FROM codes c WHERE c.pricekod_id = p.id AND c.status = 'active')`.as('open_count'),
      ])
      .where('p.user_id', '=', ownerId)
      .where('p.gamesserver_id', '=', gamesserverId)
      .where('p.deleted_at', 'is', null);
    if (onlyId !== undefined) query = query.where('p.id', '=', onlyId);
    return query.orderBy('p.id', 'desc').execute();
  },

  // ── incidents ──

  /** Opens an incident unless this user already has an open one on this code; the new id or nothing. */
  openIncident(
    q: Q,
    v: { codeId: number; ownerId: number; gamesserverId: number; attemptedBy: number; ip: string | null; status: 'activated' | 'cancelled' },
  ) {
    return q
      .insertInto('code_incidents')
      .values({
        code_id: v.codeId,
        user_id: v.ownerId,
        gamesserver_id: v.gamesserverId,
        attempted_by: v.attemptedBy,
        attempt_ip: v.ip,
        code_status: v.status,
      })
      .onConflict((oc) => oc.columns(['code_id', 'attempted_by']).where('acknowledged_at', 'is', null).doNothing())
      .returning('id')
      .executeTakeFirst();
  },

  incidentsOf(q: Q, ownerId: number) {
    return q
      .selectFrom('code_incidents as i')
      .innerJoin('codes as c', 'c.id', 'i.code_id')
      .innerJoin('gamesservers as g', 'g.id', 'i.gamesserver_id')
      .select([
        'i.id',
        'i.code_id',
        'i.gamesserver_id',
        'g.name as gamesserver',
        'c.nominal',
        'c.sert',
        'c.status as code_status',
        'i.acknowledged_at',
        'i.created_at',
      ])
      .where('i.user_id', '=', ownerId)
      .orderBy('i.id', 'desc')
      .limit(200)
      .execute();
  },

  ackIncident(q: Q, ownerId: number, id: number) {
    return q
      .updateTable('code_incidents')
      .set({ acknowledged_at: sql`coalesce(acknowledged_at, now())` })
      .where('user_id', '=', ownerId)
      .where('id', '=', id)
      .returning('id')
      .executeTakeFirst();
  },

  async openIncidentCount(q: Q, ownerId: number) {
    const r = await q
      .selectFrom('code_incidents')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('user_id', '=', ownerId)
      .where('acknowledged_at', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(r.n);
  },

  // ── VIP ──

  /** Extends VIP from whichever is later, now or the current end, in one statement. */
  extendVip(q: Q, userId: number, days: number) {
    return q
      .updateTable('users')
      .set({
        vip_until: sql`greatest(now(), coalesce(vip_until, now())) + make_interval(days => ${days})`,
        updated_at: sql`now()`,
      })
      .where('id', '=', userId)
      .returningAll()
      .executeTakeFirstOrThrow();
  },

  // ── Telegram ──

  finishNotice(q: Q, id: bigint, status: 'sent' | 'failed' | 'no_bot', error: string | null) {
    return q
      .updateTable('telegram_notices')
      .set({ status, error, sent_at: status === 'sent' ? sql`now()` : null })
      .where('id', '=', id)
      .execute();
  },

  insertLinkToken(q: Q, userId: number, tokenHash: string, expiresAt: Date) {
    return q.insertInto('telegram_link_tokens').values({ token_hash: tokenHash, user_id: userId, expires_at: expiresAt }).execute();
  },

  /** Uses a live link token once; the user it belongs to, or nothing. */
  consumeLinkToken(q: Q, tokenHash: string) {
    return q
      .updateTable('telegram_link_tokens')
      .set({ used_at: sql`now()` })
      .where('token_hash', '=', tokenHash)
      .where('used_at', 'is', null)
      .where('expires_at', '>', sql<Date>`now()`)
      .returning('user_id')
      .executeTakeFirst();
  },

  setTelegramChat(q: Q, userId: number, chatId: bigint | null) {
    return q.updateTable('users').set({ telegram_chat_id: chatId, updated_at: sql`now()` }).where('id', '=', userId).execute();
  },

  unlinkChat(q: Q, chatId: bigint) {
    return q
      .updateTable('users')
      .set({ telegram_chat_id: null, updated_at: sql`now()` })
      .where('telegram_chat_id', '=', chatId)
      .returning('id')
      .execute();
  },
};

export type CodeRow = NonNullable<Awaited<ReturnType<typeof codesRepository.codeById>>>;
export type { CodeStatus };
