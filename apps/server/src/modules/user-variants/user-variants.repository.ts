import { type Kysely, sql, type Transaction } from 'kysely';
import '../../db/tables/codes';
import type { Database } from '../../db/schema';

export type UserVariantsDb = Kysely<Database>;
export type UserVariantsTrx = Transaction<Database>;
type Q = Kysely<Database> | Transaction<Database>;

/** A user variant (a user's own batch of codes of one nominal; table `pricekods`) under the domain's names. */
const VARIANT = ['id', 'user_id as ownerId', 'wallet_id as walletId', 'gamesserver_id as gameServerId', 'nominal', 'created_at as createdAt'] as const;

/** Queries only; every lookup takes the owner first, so another user's variant is simply not found. */
export const userVariantsRepository = {
  insert(q: Q, v: { ownerId: number; walletId: number; gameServerId: number; nominal: bigint }) {
    return q
      .insertInto('pricekods')
      .values({ user_id: v.ownerId, wallet_id: v.walletId, gamesserver_id: v.gameServerId, nominal: v.nominal })
      .returning(VARIANT)
      .executeTakeFirstOrThrow();
  },

  /** Locks the owner's live variant: every change of one batch queues behind the previous one. */
  lockOwn(trx: UserVariantsTrx, ownerId: number, id: number) {
    return trx
      .selectFrom('pricekods')
      .select(VARIANT)
      .where('user_id', '=', ownerId)
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .forUpdate()
      .executeTakeFirst();
  },

  /** The open codes of the owner's variant: how many, and what their removal would refund. */
  async openTotals(q: Q, ownerId: number, id: number) {
    const row = await q
      .selectFrom('codes')
      .select([sql<string>`count(*)`.as('count'), sql<string>`coalesce(sum(price), 0)`.as('price')])
      .where('user_id', '=', ownerId)
      .where('pricekod_id', '=', id)
      .where('status', '=', 'active')
      .executeTakeFirstOrThrow();
    return { count: Number(row.count), price: BigInt(row.price) };
  },

  update(q: Q, ownerId: number, id: number, set: { nominal?: bigint; deleted?: boolean }) {
    return q
      .updateTable('pricekods')
      .set({
        ...(set.nominal !== undefined ? { nominal: set.nominal } : {}),
        ...(set.deleted ? { deleted_at: sql`now()` } : {}),
        updated_at: sql`now()`,
      })
      .where('user_id', '=', ownerId)
      .where('id', '=', id)
      .returning('id')
      .executeTakeFirstOrThrow();
  },

  /** The owner's live variants on a server with their counts: codes not cancelled, and open ones. */
  listWithCounts(q: Q, ownerId: number, gameServerId: number, onlyId?: number) {
    let query = q
      .selectFrom('pricekods as p')
      .select([
        'p.id',
        'p.gamesserver_id as gameServerId',
        'p.nominal',
        'p.created_at as createdAt',
        sql<string>`(SELECT count(*) FROM codes c WHERE c.pricekod_id = p.id AND c.status <> 'cancelled')`.as('count'),
        sql<string>`(SELECT count(*) FROM codes c WHERE c.pricekod_id = p.id AND c.status = 'active')`.as('openCount'),
      ])
      .where('p.user_id', '=', ownerId)
      .where('p.gamesserver_id', '=', gameServerId)
      .where('p.deleted_at', 'is', null);
    if (onlyId !== undefined) query = query.where('p.id', '=', onlyId);
    return query.orderBy('p.id', 'desc').execute();
  },
};

export type UserVariantRow = NonNullable<Awaited<ReturnType<typeof userVariantsRepository.lockOwn>>>;
export type UserVariantWithCounts = Awaited<ReturnType<typeof userVariantsRepository.listWithCounts>>[number];
