import type { Kysely } from 'kysely';
import type { Database } from './schema';

/**
 * `fn`'s reads see one moment of the database (REPEATABLE READ, read-only): a page's rows and its total, read
 * by two statements, agree while movements commit between them.
 */
export function readSnapshot<T>(db: Kysely<Database>, fn: (q: Kysely<Database>) => Promise<T>) {
  return db
    .transaction()
    .setIsolationLevel('repeatable read')
    .setAccessMode('read only')
    .execute((trx) => fn(trx));
}
