import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema';
import '../../db/tables/secret-keys';

export type SecretKeysDb = Kysely<Database>;

export const secretKeysRepository = {
  /** The key stored under `name`; `fresh` is stored first when there is none (the first process wins). */
  async getOrCreate(db: SecretKeysDb, name: string, fresh: string): Promise<string> {
    await db.insertInto('secret_keys').values({ name, key: fresh }).onConflict((oc) => oc.column('name').doNothing()).execute();
    const row = await db.selectFrom('secret_keys').select('key').where('name', '=', name).executeTakeFirstOrThrow();
    return row.key;
  },
};
