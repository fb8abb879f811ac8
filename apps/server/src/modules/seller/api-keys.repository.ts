import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database } from '../../db/schema';
import '../../db/tables/seller';

export type Q = Kysely<Database> | Transaction<Database>;
/** The first key of the advisory lock on a user's API keys (the second is the user's id). */
export const KEYS_LOCK_SPACE = 7302;
export type ApiKeysDb = Kysely<Database>;

const KEY = ['id', 'name', 'prefix', 'created_at', 'last_used_at'] as const;

/** Queries only; a user's keys are looked up with the owner in the WHERE clause. */
export const apiKeysRepository = {
  countLive(q: Q, userId: number) {
    return q
      .selectFrom('api_keys')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null)
      .executeTakeFirstOrThrow()
      .then((r) => Number(r.n));
  },

  /**
   * A new key unless the user already has `max` live ones (undefined then): counted and written
   * with the user's keys locked (an advisory lock per user), so parallel calls cannot pass the cap.
   */
  insertBelowCap(
    db: Kysely<Database>,
    v: { userId: number; name: string; prefix: string; keyHash: string },
    max: number,
    first: (trx: Transaction<Database>) => Promise<void>,
  ) {
    return db.transaction().execute(async (trx) => {
      await first(trx);
      await sql`SELECT pg_advisory_xact_lock(${KEYS_LOCK_SPACE}::int, ${v.userId}::int)`.execute(trx);
      if ((await apiKeysRepository.countLive(trx, v.userId)) >= max) return undefined;
      return apiKeysRepository.insert(trx, v);
    });
  },

  insert(q: Q, v: { userId: number; name: string; prefix: string; keyHash: string }) {
    return q
      .insertInto('api_keys')
      .values({ user_id: v.userId, name: v.name, prefix: v.prefix, key_hash: v.keyHash })
      .returning(['id', 'name', 'created_at'])
      .executeTakeFirstOrThrow();
  },

  listLive(q: Q, userId: number) {
    return q.selectFrom('api_keys').select(KEY).where('user_id', '=', userId).where('revoked_at', 'is', null).orderBy('id', 'desc').execute();
  },

  async revoke(q: Q, userId: number, id: number) {
    const r = await q
      .updateTable('api_keys')
      .set({ revoked_at: sql`now()` })
      .where('user_id', '=', userId)
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return r.numUpdatedRows > 0n;
  },

  /** Revokes every live key of the user (a password reset); how many. */
  async revokeAll(q: Q, userId: number) {
    const r = await q.updateTable('api_keys').set({ revoked_at: sql`now()` }).where('user_id', '=', userId).where('revoked_at', 'is', null).executeTakeFirst();
    return Number(r.numUpdatedRows);
  },

  /** The live key with this hash and its user, who must not be blocked; read on every call, so a revoke holds at once everywhere. */
  async userOfKey(q: Q, keyHash: string) {
    const row = await q
      .selectFrom('api_keys as k')
      .innerJoin('users as u', 'u.id', 'k.user_id')
      .select(['k.id as keyId', 'k.last_used_at as keyLastUsedAt'])
      .selectAll('u')
      .where('k.key_hash', '=', keyHash)
      .where('k.revoked_at', 'is', null)
      .where('u.blocked_at', 'is', null)
      .executeTakeFirst();
    if (!row) return undefined;
    const { keyId, keyLastUsedAt, ...user } = row;
    return { keyId, keyLastUsedAt, user };
  },

  /**
   * Holds the key's user (shared; a block takes that row first) and then the key, and tells whether the key is still
   * live: a revoke or a block the call waited for is seen (the check is its own statement, read after the locks).
   */
  async holdLiveKey(q: Q, userId: number, keyId: number) {
    await sql`SELECT 1 FROM users WHERE id = ${userId} FOR SHARE`.execute(q);
    await sql`SELECT 1 FROM api_keys WHERE id = ${keyId} FOR SHARE`.execute(q);
    const { rows } = await sql`SELECT 1 FROM api_keys k JOIN users u ON u.id = k.user_id
      WHERE k.id = ${keyId} AND k.user_id = ${userId} AND k.revoked_at IS NULL AND u.blocked_at IS NULL`.execute(q);
    return rows.length > 0;
  },

  /** At most one write a minute per key, whatever the call rate. */
  async touch(q: Q, id: number, at: Date) {
    await q
      .updateTable('api_keys')
      .set({ last_used_at: at })
      .where('id', '=', id)
      .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', new Date(at.getTime() - 60_000))]))
      .execute();
  },

  async logCall(q: Q, v: { keyId: number; userId: number; method: string; path: string; statusCode: number; ip: string | null }) {
    await q
      .insertInto('api_key_calls')
      .values({ api_key_id: v.keyId, user_id: v.userId, method: v.method, path: v.path, status_code: v.statusCode, ip: v.ip })
      .execute();
  },
};

export type ApiKeyRow = Awaited<ReturnType<typeof apiKeysRepository.listLive>>[number];
