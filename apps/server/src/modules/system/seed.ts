import type { Db } from '../../db/client';
import { hashPassword } from '../../lib/password';
import { DEMO_SERVERS } from './demo-servers';
import { createSystemRepository } from './system.repository';

/** An empty database gets the demo servers; a database that has any server is left alone. */
export function seedDemoServers(db: Db['kysely']): Promise<number> {
  return createSystemRepository(db).insertServersIfNone(DEMO_SERVERS);
}

/** ADMIN_EMAIL/ADMIN_PASSWORD create the first admin, or bring an existing account up to date. */
export async function ensureAdmin(db: Db['kysely'], email: string, password: string) {
  await createSystemRepository(db).upsertAdmin({ email: email.trim().toLowerCase(), password_hash: await hashPassword(password), name: 'Администратор' });
}
