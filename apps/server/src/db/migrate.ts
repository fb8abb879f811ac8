import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Kysely, sql } from 'kysely';
import type { Database } from './schema';

const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'migrations');
// Any constant works; it only has to be the same in every process sharing the database.
const MIGRATION_LOCK = 482_133_901;

/**
 * Applies migrations/NNNN_name.sql in order, each once, in one transaction under an
 * advisory lock, so several processes starting together on one PostgreSQL do not race.
 * The SQL is written to run unchanged on PostgreSQL 15 (Debian) and 18 (PGlite).
 */
export async function migrate(db: Kysely<Database>): Promise<string[]> {
  const files = readdirSync(MIGRATIONS_DIR)
    .filter((f) => /^\d{4}_[\w-]+\.sql$/.test(f))
    .sort();
  return db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`.execute(trx);
    await sql`CREATE TABLE IF NOT EXISTS schema_migrations (
      name text PRIMARY KEY,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`.execute(trx);
    const done = new Set(
      (await sql<{ name: string }>`SELECT name FROM schema_migrations`.execute(trx)).rows.map((r) => r.name),
    );
    const applied: string[] = [];
    for (const file of files) {
      if (done.has(file)) continue;
      await sql.raw(readFileSync(join(MIGRATIONS_DIR, file), 'utf8')).execute(trx);
      await sql`INSERT INTO schema_migrations (name) VALUES (${file})`.execute(trx);
      applied.push(file);
    }
    return applied;
  });
}
