import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema';
import { hashPassword } from '../../lib/password';
import { DEMO_SERVERS } from './demo-servers';

/** An empty database gets the demo servers; a database that has any server is left alone. */
export async function seedDemoServers(db: Kysely<Database>): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const any = await trx.selectFrom('gamesservers').select('id').limit(1).executeTakeFirst();
    if (any) return 0;
    await trx.insertInto('gamesservers').values(DEMO_SERVERS).execute();
    return DEMO_SERVERS.length;
  });
}

/** ADMIN_EMAIL/ADMIN_PASSWORD create the first admin, or bring an existing account up to date. */
export async function ensureAdmin(db: Kysely<Database>, email: string, password: string) {
  const normalized = email.trim().toLowerCase();
  const passwordHash = await hashPassword(password);
  await db
    .insertInto('users')
    .values({ email: normalized, password_hash: passwordHash, admin: true, name: 'Администратор' })
    .onConflict((oc) =>
      oc.column('email').doUpdateSet({ password_hash: passwordHash, admin: true, blocked_at: null, updated_at: new Date() }),
    )
    .execute();
}
