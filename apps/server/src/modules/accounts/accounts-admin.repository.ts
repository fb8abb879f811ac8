import { type Kysely, sql, type Transaction } from 'kysely';
import { phoneE164 } from '@adena/contract';
import type { Database } from '../../db/schema';

type Queryable = Kysely<Database> | Transaction<Database>;

export interface UserSearch {
  q?: string;
  role?: 'admin' | 'vip' | 'blocked';
  /** Only users with id <= this: the list as it stood when its first page was read (page and total count from here). */
  beforeId?: number;
  page: number;
  perPage: number;
}

export interface UserChange {
  admin?: boolean;
  vip_until?: Date | null;
  blocked_at?: Date | null;
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

/** Users as operators find and change them. Admins see every user, so none of these is owner-scoped. */
export function createAccountsAdminRepository(db: Kysely<Database>) {
  return {
    transaction: <T>(fn: (trx: Transaction<Database>) => Promise<T>) => db.transaction().execute(fn),

    /** `from`: a snapshot (db/snapshot), so the page and its total are counted at one moment. */
    async searchUsers(s: UserSearch, from: Queryable) {
      let q = from.selectFrom('users');
      const text = s.q?.trim();
      if (text) {
        const like = `%${escapeLike(text.toLowerCase())}%`;
        const digits = /^\d{1,18}$/.test(text) ? text : null;
        // A whole phone as operators type it (8 900 123-45-67) is the stored E.164 (+79001234567).
        const phone = /\d{10}/.test(text.replace(/\D/g, '')) ? phoneE164(text) : null;
        // A part of a phone as typed, without its spaces, brackets and hyphens, when it has a digit: a text of only those
        // (or a lone «+») matched every phone.
        const phonePart = text.replace(/[\s()-]/g, '');
        q = q.where((eb) =>
          eb.or([
            eb(sql`lower(email)`, 'like', like),
            ...(/\d/.test(phonePart) ? [eb('phone', 'like', `%${escapeLike(phonePart)}%`)] : []),
            ...(phone ? [eb('phone', '=', phone)] : []),
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
      if (s.beforeId !== undefined) q = q.where('id', '<=', s.beforeId);
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

    findUser(id: number, q: Kysely<Database> = db) {
      return q.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    },
    /**
     * Locks the operator's row and the user's, always in id order (two operators changing each
     * other lock the same two rows in the same order, so one waits for the other instead of a
     * deadlock), and returns both as they are now. FOR NO KEY UPDATE, not FOR UPDATE: nothing here
     * changes a user's id, and FOR UPDATE also waits for the foreign-key checks (FOR KEY SHARE) of
     * writes that refer to the user: the same operator completing the player's request (their own row
     * held FOR SHARE, then a wallet row or ledger entry of the player written) deadlocked with it.
     */
    async lockPair(trx: Queryable, operatorId: number, id: number) {
      const rows = await trx
        .selectFrom('users')
        .selectAll()
        .where('id', 'in', [operatorId, id])
        .orderBy('id')
        .forNoKeyUpdate()
        .execute();
      return { operator: rows.find((u) => u.id === operatorId), user: rows.find((u) => u.id === id) };
    },
    updateUser(trx: Queryable, id: number, set: UserChange) {
      return trx
        .updateTable('users')
        .set({ ...set, updated_at: new Date() })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
    },
  };
}
