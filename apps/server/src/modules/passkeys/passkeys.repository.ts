import { type Kysely, sql, type Transaction } from 'kysely';
import '../../db/tables/second-factors';
import type { Database } from '../../db/schema';

type Q = Kysely<Database> | Transaction<Database>;

/** Passkeys and WebAuthn challenges; the owner first in every user-owned lookup. */
export const passkeysRepository = {
  transaction: <T>(db: Kysely<Database>, fn: (trx: Transaction<Database>) => Promise<T>) => db.transaction().execute(fn),

  /** Holds the user's row for update until the transaction ends (not its key: writes referring to the user go on). */
  async holdUser(trx: Transaction<Database>, userId: number) {
    await trx.selectFrom('users').select('id').where('id', '=', userId).forNoKeyUpdate().execute();
  },

  /**
   * Shares the user's row until the transaction ends: the lock a new session takes (insertSession), taken by a
   * sign-in before the passkey's row, the order of a block, a reset or a TOTP rescue (the user's row, then the passkeys).
   */
  async shareUser(trx: Transaction<Database>, userId: number) {
    await trx.selectFrom('users').select('id').where('id', '=', userId).forShare().execute();
  },

  ofUser(q: Q, userId: number) {
    return q.selectFrom('passkeys').selectAll().where('user_id', '=', userId).orderBy('id').execute();
  },

  insert(q: Q, row: { user_id: number; credential_id: string; public_key: Uint8Array; counter: number; transports: string[]; name: string }) {
    return q.insertInto('passkeys').values(row).returningAll().executeTakeFirstOrThrow();
  },

  /** Deletes the owner's passkey; false when they have none with this id. */
  async delete(q: Q, userId: number, id: number) {
    const res = await q.deleteFrom('passkeys').where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
    return res.numDeletedRows > 0n;
  },

  /** Deletes every passkey of the user (a password reset); how many. */
  async deleteAllOf(q: Q, userId: number) {
    const res = await q.deleteFrom('passkeys').where('user_id', '=', userId).executeTakeFirst();
    return Number(res.numDeletedRows);
  },

  byCredentialId(q: Q, credentialId: string) {
    return q.selectFrom('passkeys').selectAll().where('credential_id', '=', credentialId).executeTakeFirst();
  },

  /**
   * The counter only moves forward: a cloned authenticator replaying an old counter loses. An
   * authenticator that keeps none (always 0) passes; false when the counter went back or the passkey
   * is gone (its owner deleted it, or a reset did, during the ceremony).
   */
  async advanceCounter(q: Q, id: number, counter: number, at: Date) {
    const res = await q
      .updateTable('passkeys')
      .set({ counter: sql<bigint>`GREATEST(counter, ${BigInt(counter)})`, last_used_at: at })
      .where('id', '=', id)
      .where((eb) => eb.or([eb('counter', '<', BigInt(counter)), eb('counter', '=', 0n), eb.val(counter === 0)]))
      .executeTakeFirst();
    return res.numUpdatedRows > 0n;
  },

  insertChallenge(q: Q, row: { challenge: string; purpose: 'register' | 'login'; user_id: number | null; expires_at: Date }) {
    return q.insertInto('webauthn_challenges').values(row).execute();
  },

  /** Takes a live challenge of the purpose (and user, for a registration): it works once. */
  async takeChallenge(q: Q, challenge: string, purpose: 'register' | 'login', userId: number | null, at: Date) {
    let query = q.deleteFrom('webauthn_challenges').where('challenge', '=', challenge).where('purpose', '=', purpose).where('expires_at', '>', at);
    query = userId === null ? query.where('user_id', 'is', null) : query.where('user_id', '=', userId);
    const res = await query.executeTakeFirst();
    return res.numDeletedRows > 0n;
  },

  findUser(q: Q, userId: number) {
    return q.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst();
  },

};
