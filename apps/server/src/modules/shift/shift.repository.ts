import { type Kysely, sql, type Transaction } from 'kysely';
import { claimDropperName, deciderName } from '../../db/claim-dropper';
import { nickSharedWithOthers } from '../../db/shared-nick';
import type { Database } from '../../db/schema';

type Q = Kysely<Database> | Transaction<Database>;
export type ShiftDb = Kysely<Database>;
export type ShiftTrx = Transaction<Database>;

/**
 * No operator's claim stands on the request: none, or one taken before `staleBefore` (lapsed). The one
 * rule every alert follows (overdue, VIP, and again at send time); `r` names the request's row.
 */
const noStandingClaim = (staleBefore: Date, r = 'r') =>
  sql<boolean>`(${sql.ref(`${r}.claimed_by`)} IS NULL OR ${sql.ref(`${r}.claimed_at`)} < ${staleBefore})`;

/** A request as the operators' channel tells of it. */
export interface EventRow {
  id: number;
  type: 'input' | 'output';
  status: 'pending' | 'completed' | 'rejected' | 'cancelled';
  gamesserver_id: number;
  currency_type: 1 | 2;
  amount: bigint;
  vip: boolean;
  claimed_by: number | null;
  claimer_name: string | null;
}

export interface ClaimState {
  status: 'pending' | 'completed' | 'rejected' | 'cancelled';
  user_id: number;
  claimed_by: number | null;
  claimer_name: string | null;
  claimed_at: Date | null;
}

/** A request an alert is about, with what the message says. */
export interface AlertRow {
  id: number;
  type: 'input' | 'output';
  currency_type: 1 | 2;
  amount: bigint;
  gamesserver: string;
  nick: string;
  created_at: Date;
}

export interface StatsRow {
  operator_id: number;
  operator_name: string;
  input: bigint;
  output: bigint;
  completed: bigint;
  rejected: bigint;
  unclaimed: bigint;
  median_seconds: number | null;
}

const adminColumns = [
  'g.name as gamesserver',
  'u.name as user_name',
  'u.email as user_email',
  'u.phone as user_phone',
  'u.vip_until as user_vip_until',
  'u.blocked_at as user_blocked_at',
  'c.name as claimer_name',
] as const;

/** Queries of the operators' shift: claims on balance_requests, its alert marks and the shift report. */
export const shiftRepository = {
  transaction: <T>(db: ShiftDb, fn: (trx: ShiftTrx) => Promise<T>) => db.transaction().execute(fn),

  /**
   * Takes a pending request for the operator in one conditional UPDATE: it succeeds when nobody
   * holds it or the holder's claim lapsed (taken before `staleBefore`). Row locks make parallel
   * claims take turns, and each re-checks the condition on the row version it finally sees, so of
   * any number at once exactly one succeeds.
   */
  claim(q: Q, id: number, userId: number, now: Date, staleBefore: Date, renewOnly = false) {
    return q
      .updateTable('balance_requests')
      // A renewal by the holder keeps when they first took it; a new holder starts now.
      .set((eb) => ({
        claimed_by: userId,
        claimed_at: now,
        claim_started_at: eb.case().when('claimed_by', '=', userId).then(eb.fn.coalesce('claim_started_at', 'claimed_at')).else(now).end(),
      }))
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .where('user_id', '<>', userId)
      // Free, lapsed, or the caller's own (a re-claim renews it: the claim lapses CLAIM_TIMEOUT_MIN after this);
      // a renewal only (`renewOnly`) the caller's own claim while it stands.
      .where((eb) =>
        renewOnly
          ? eb.and([eb('claimed_by', '=', userId), eb('claimed_at', '>=', staleBefore)])
          : eb.or([eb('claimed_by', 'is', null), eb('claimed_at', '<', staleBefore), eb('claimed_by', '=', userId)]),
      )
      .returning(['id'])
      .executeTakeFirst();
  },

  /** The request's claim, row-locked for the release that follows. */
  lockClaim(trx: ShiftTrx, id: number) {
    return trx.selectFrom('balance_requests').select(['status', 'user_id', 'claimed_by', 'claimed_at']).where('id', '=', id).forUpdate().executeTakeFirst();
  },

  /**
   * The operator's row, share-locked for the act's transaction (a block or demotion waits for it), and
   * with `playerId` the player's row too, in the same statement and in id order: the order in which an
   * operator's change of a user (accounts-admin lockPair) takes the same two rows, so neither waits for
   * the other in the opposite order (a deadlock). ORDER BY runs before the row locks are taken.
   */
  lockOperator(trx: ShiftTrx, operatorId: number, playerId?: number) {
    return trx
      .selectFrom('users')
      .select(['id', 'admin', 'blocked_at'])
      .where('id', 'in', playerId === undefined ? [operatorId] : [operatorId, playerId])
      .orderBy('id')
      .forShare()
      .execute();
  },

  /** The pending requests an operator holds, row-locked in id order, with when each claim was taken. */
  lockClaimsOf(trx: ShiftTrx, operatorId: number) {
    return trx
      .selectFrom('balance_requests')
      .select(['id', 'claimed_at'])
      .where('claimed_by', '=', operatorId)
      .where('status', '=', 'pending')
      .orderBy('id')
      .forUpdate()
      .execute();
  },

  /**
   * Claims ended by their operator's block, demotion or TOTP rescue: remembered, so the player still cannot cancel.
   * A second drop keeps the first operator's name: they are the one who may have handed the adena over.
   */
  dropClaims(trx: ShiftTrx, ids: number[], operatorId: number) {
    return trx
      .updateTable('balance_requests')
      .set({ claimed_by: null, claimed_at: null, claim_started_at: null, claim_dropped_by: sql<number>`coalesce(claim_dropped_by, ${operatorId})` })
      .where('id', 'in', ids)
      .execute();
  },

  /** An operator's release: their judgement that nothing changed hands, so a dropped claim's hold on the cancel goes too. */
  clearClaim(trx: ShiftTrx, id: number) {
    return trx
      .updateTable('balance_requests')
      .set({ claimed_by: null, claimed_at: null, claim_started_at: null, claim_dropped_by: null })
      .where('id', '=', id)
      .execute();
  },

  claimState(q: Q, id: number) {
    return q
      .selectFrom('balance_requests as r')
      .leftJoin('users as c', 'c.id', 'r.claimed_by')
      .select(['r.status', 'r.user_id', 'r.claimed_by', 'c.name as claimer_name', 'r.claimed_at'])
      .where('r.id', '=', id)
      .executeTakeFirst() as Promise<ClaimState | undefined>;
  },

  /** The request with its player and claimer, as the admin calls answer it. */
  adminRow(q: Q, id: number) {
    return q
      .selectFrom('balance_requests as r')
      .innerJoin('users as u', 'u.id', 'r.user_id')
      .innerJoin('gamesservers as g', 'g.id', 'r.gamesserver_id')
      .leftJoin('users as c', 'c.id', 'r.claimed_by')
      .selectAll('r')
      .select(adminColumns)
      .select(nickSharedWithOthers)
      .select(claimDropperName)
      .select(deciderName)
      .where('r.id', '=', id)
      .executeTakeFirst();
  },

  async eventRow(q: Q, id: number, now: Date) {
    const { rows } = await sql<EventRow>`
      SELECT r.id, r.type, r.status, r.gamesserver_id, r.currency_type, r.amount,
             coalesce(u.vip_until > ${now}, false) AS vip, r.claimed_by, c.name AS claimer_name
      FROM balance_requests r JOIN users u ON u.id = r.user_id LEFT JOIN users c ON c.id = r.claimed_by
      WHERE r.id = ${id}`.execute(q);
    return rows[0];
  },

  // ── alerts ──

  /**
   * Marks a pending request of a VIP player as alerted; the row when this call marked it. Not while an
   * operator's claim stands (claimed at or after `staleBefore`), as markOverdue: the player became VIP
   * (coins, a grant) while an operator held the request, and «Возьмите её в работу» was false. The scan
   * alerts it once the claim lapses or is released, if it is still pending then.
   */
  async markVip(q: Q, id: number, now: Date, staleBefore: Date) {
    const { rows } = await sql<AlertRow>`
      UPDATE balance_requests r SET vip_alerted_at = ${now}
      FROM users u, gamesservers g
      WHERE r.id = ${id} AND u.id = r.user_id AND g.id = r.gamesserver_id
        AND r.status = 'pending' AND r.vip_alerted_at IS NULL AND u.vip_until > ${now}
        AND ${noStandingClaim(staleBefore)}
      RETURNING r.id, r.type, r.currency_type, r.amount, g.name AS gamesserver, r.nick, r.created_at`.execute(q);
    return rows[0];
  },

  /**
   * VIP requests still pending, under no standing claim, that no alert was handed out for (a process stopped
   * between COMMIT and the alert, the player became VIP later, or a claim held it until now).
   */
  async missedVip(q: Q, now: Date, staleBefore: Date, limit: number) {
    const { rows } = await sql<{ id: number }>`
      SELECT r.id FROM balance_requests r JOIN users u ON u.id = r.user_id
      WHERE r.status = 'pending' AND r.vip_alerted_at IS NULL AND u.vip_until > ${now}
        AND ${noStandingClaim(staleBefore)}
      ORDER BY r.id LIMIT ${limit}`.execute(q);
    return rows.map((r) => r.id);
  },

  /**
   * Marks pending requests created before `before`, unclaimed and not yet alerted; the rows this call marked, at most
   * `limit`. The locking SELECT is a MATERIALIZED CTE so that it runs once (a join could rescan it, see `jobs.claim`).
   */
  async markOverdue(q: Q, before: Date, now: Date, staleBefore: Date, limit: number) {
    const { rows } = await sql<AlertRow>`
      WITH due AS MATERIALIZED (
        SELECT id FROM balance_requests
         WHERE status = 'pending' AND overdue_alerted_at IS NULL AND created_at < ${before}
           AND ${noStandingClaim(staleBefore, 'balance_requests')}
         ORDER BY created_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
      UPDATE balance_requests r SET overdue_alerted_at = ${now}
      FROM due, gamesservers g
      WHERE r.id = due.id AND g.id = r.gamesserver_id
      RETURNING r.id, r.type, r.currency_type, r.amount, g.name AS gamesserver, r.nick, r.created_at`.execute(q);
    return rows;
  },

  /**
   * Operators who linked the bot: admins, not blocked, with a chat, and with TOTP on when `requireTotp` (ADMIN_REQUIRE_2FA):
   * an admin refused the admin area and the operators' channel for want of it is not told the queue by Telegram either.
   */
  operatorChats(q: Q, requireTotp: boolean) {
    return q
      .selectFrom('users')
      .select(['id', 'telegram_chat_id as chatId'])
      .where('admin', '=', true)
      .where('blocked_at', 'is', null)
      .where('telegram_chat_id', 'is not', null)
      .$if(requireTotp, (b) => b.where('totp_secret', 'is not', null))
      .orderBy('id')
      .execute() as Promise<Array<{ id: number; chatId: bigint }>>;
  },

  /**
   * Whether an alert about the request is still news when it is sent: the request is pending and no
   * operator's claim stands (none, or one taken before `staleBefore`). Read at send time: an alert that
   * waited out Telegram's 429 or an outage may go after another operator took the request.
   */
  async awaitsOperator(q: Q, id: number, staleBefore: Date) {
    const row = await q
      .selectFrom('balance_requests')
      .select('id')
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .where(noStandingClaim(staleBefore, 'balance_requests'))
      .executeTakeFirst();
    return row !== undefined;
  },

  /** Whether the chat is still the linked chat of a live operator (not blocked, not demoted, not unlinked, TOTP on when `requireTotp`). */
  async isOperatorChat(q: Q, userId: number, chatId: bigint, requireTotp: boolean) {
    const row = await q
      .selectFrom('users')
      .select('id')
      .where('id', '=', userId)
      .where('admin', '=', true)
      .where('blocked_at', 'is', null)
      .where('telegram_chat_id', '=', chatId)
      .$if(requireTotp, (b) => b.where('totp_secret', 'is not', null))
      .executeTakeFirst();
    return row !== undefined;
  },

  // ── the shift report ──

  /** Per operator who decided requests in [from, to): counts by type and outcome, and the median claim → decision of their own claims. */
  async stats(q: Q, from: Date, to: Date) {
    const { rows } = await sql<StatsRow>`
      SELECT r.processed_by AS operator_id, u.name AS operator_name,
             count(*) FILTER (WHERE r.type = 'input')::bigint AS input,
             count(*) FILTER (WHERE r.type = 'output')::bigint AS output,
             count(*) FILTER (WHERE r.status = 'completed')::bigint AS completed,
             count(*) FILTER (WHERE r.status = 'rejected')::bigint AS rejected,
             count(*) FILTER (WHERE r.claimed_by IS DISTINCT FROM r.processed_by)::bigint AS unclaimed,
             percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM r.processed_at - coalesce(r.claim_started_at, r.claimed_at)))
               FILTER (WHERE r.claimed_by = r.processed_by) AS median_seconds
      FROM balance_requests r JOIN users u ON u.id = r.processed_by
      WHERE r.processed_by IS NOT NULL AND r.status IN ('completed', 'rejected')
        AND r.processed_at >= ${from} AND r.processed_at < ${to}
      GROUP BY r.processed_by, u.name
      ORDER BY count(*) DESC, r.processed_by`.execute(q);
    return rows;
  },
};

export type AdminRow = NonNullable<Awaited<ReturnType<typeof shiftRepository.adminRow>>>;
