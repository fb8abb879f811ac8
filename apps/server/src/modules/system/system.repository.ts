import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema';

export function createSystemRepository(db: Kysely<Database>) {
  return {
    listActiveServers() {
      return db
        .selectFrom('gamesservers')
        .selectAll()
        .where('active', '=', true)
        .orderBy('sort_order')
        .orderBy('id')
        .execute();
    },
  };
}
