import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database } from '../../db/schema';
import '../../db/tables/seller';

export type Q = Kysely<Database> | Transaction<Database>;
export type WebhooksDb = Kysely<Database>;

const DELIVERY = ['id', 'type', 'status', 'attempts', 'last_status_code', 'next_attempt_at', 'created_at'] as const;

/** Queries only; every lookup of a user's endpoint or deliveries has the owner in its WHERE clause. */
export const webhooksRepository = {
  endpoint(q: Q, userId: number) {
    return q.selectFrom('webhooks').select(['url', 'events', 'secret', 'created_at']).where('user_id', '=', userId).executeTakeFirst();
  },

  /** Sets the URL and events; a new endpoint takes `secret`, an existing one keeps its own. */
  upsert(q: Q, userId: number, v: { url: string; events: string[]; secret: string }) {
    return q
      .insertInto('webhooks')
      .values({ user_id: userId, url: v.url, events: v.events, secret: v.secret })
      .onConflict((oc) => oc.column('user_id').doUpdateSet({ url: v.url, events: v.events, updated_at: sql`now()` }))
      .returning(['url', 'events', 'secret', 'created_at'])
      .executeTakeFirstOrThrow();
  },

  async setSecret(q: Q, userId: number, secret: string) {
    const r = await q.updateTable('webhooks').set({ secret, updated_at: sql`now()` }).where('user_id', '=', userId).executeTakeFirst();
    return r.numUpdatedRows > 0n;
  },

  /** Removes the endpoint, and with it the deliveries still waiting (a later endpoint starts clean). */
  async remove(q: Q, userId: number) {
    const r = await q.deleteFrom('webhooks').where('user_id', '=', userId).executeTakeFirst();
    if (r.numDeletedRows === 0n) return false;
    await q
      .updateTable('webhook_deliveries')
      .set({ status: 'failed', last_error: 'endpoint removed', next_attempt_at: null })
      .where('user_id', '=', userId)
      .where('status', '=', 'pending')
      .execute();
    return true;
  },

  /**
   * Whether the user's endpoint wants this event type. FOR KEY SHARE, held to the event's commit: the endpoint's
   * removal (a DELETE) waits for it and then fails the delivery this event writes; without it, the removal ran
   * between the delivery's row and its commit, missed it, and the endpoint set next received it. Settings and
   * secret changes (no key changed) do not wait.
   */
  async wants(q: Q, userId: number, type: string) {
    const row = await q
      .selectFrom('webhooks')
      .select('user_id')
      .where('user_id', '=', userId)
      .where(sql<boolean>`${type} = ANY(events)`)
      .forKeyShare()
      .executeTakeFirst();
    return row !== undefined;
  },

  async insertDelivery(q: Q, v: { userId: number; type: string; body: string; createdAt: Date }) {
    const row = await q
      .insertInto('webhook_deliveries')
      .values({ user_id: v.userId, type: v.type, body: v.body, created_at: v.createdAt, next_attempt_at: v.createdAt })
      .returning(DELIVERY)
      .executeTakeFirstOrThrow();
    return row;
  },

  latest(q: Q, userId: number, limit: number) {
    return q.selectFrom('webhook_deliveries').select(DELIVERY).where('user_id', '=', userId).orderBy('id', 'desc').limit(limit).execute();
  },

  /** A delivery with its owner's endpoint as it is now (null when the endpoint was removed). */
  forSend(q: Q, id: bigint) {
    return q
      .selectFrom('webhook_deliveries as d')
      .leftJoin('webhooks as w', 'w.user_id', 'd.user_id')
      .select(['d.id', 'd.user_id', 'd.type', 'd.body', 'd.status', 'd.created_at', 'w.url', 'w.secret', 'w.events'])
      .where('d.id', '=', id)
      .executeTakeFirst();
  },

  async finish(
    q: Q,
    id: bigint,
    v: { status: 'pending' | 'delivered' | 'failed'; attempts: number; statusCode: number | null; error: string | null; nextAttemptAt: Date | null },
  ) {
    await q
      .updateTable('webhook_deliveries')
      .set({ status: v.status, attempts: v.attempts, last_status_code: v.statusCode, last_error: v.error, next_attempt_at: v.nextAttemptAt })
      .where('id', '=', id)
      // Only a delivery still pending: one the seller's removal of the endpoint failed meanwhile stays failed.
      .where('status', '=', 'pending')
      .execute();
  },
};

export type DeliveryRow = Awaited<ReturnType<typeof webhooksRepository.latest>>[number];
