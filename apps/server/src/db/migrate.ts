import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Kysely, sql } from 'kysely';
import type { Database } from './schema';

const HERE = dirname(fileURLToPath(import.meta.url));
const MIGRATIONS_DIR = join(HERE, 'migrations');
const FUNCTIONS_DIR = join(HERE, 'functions');
// Any constant works; it only has to be the same in every process sharing the database.
const MIGRATION_LOCK = 482_133_901;

/**
 * Applies migrations/NNNN_name.sql in order, each once, then every functions/*.sql whose text
 * differs from the one last applied, all in one transaction under an advisory lock, so several
 * processes starting together on one PostgreSQL do not race. Migrations hold tables, types and
 * triggers (with the trigger functions their DDL needs); function files hold the live definition
 * of every other function and are written to be applied again (CREATE OR REPLACE, and DROP … IF
 * EXISTS of a signature that changed). The SQL runs unchanged on PostgreSQL 15 (Debian) and 18
 * (PGlite). A database a newer build has migrated keeps that build's function files. Answers the names
 * of what it applied.
 */
export async function migrate(db: Kysely<Database>): Promise<string[]> {
  const files = readdirSync(MIGRATIONS_DIR)
    .filter((f) => /^\d{4}_[\w-]+\.sql$/.test(f))
    .sort();
  return db.transaction().execute(async (trx) => {
    // An index built on a large table may take longer than the pool's statement limit (db/client.ts).
    await sql`SET LOCAL statement_timeout = 0`.execute(trx);
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
    // A newer build has migrated this database (a rolling deploy, a rollback, an old replica restarting):
    // its function files are the live ones, and this build's older text must not replace them for every
    // process. Newer means a migration numbered after this build's last one: a name this build does not
    // know from before it (a migration renamed since) is not. (A newer build that changed a function
    // without a migration cannot be told apart.)
    const last = files.at(-1) ?? '';
    if ([...done].some((name) => name > last)) return applied;
    const current = new Map(
      (await sql<{ name: string; sha256: string }>`SELECT name, sha256 FROM schema_functions`.execute(trx)).rows.map((r) => [r.name, r.sha256]),
    );
    for (const file of readdirSync(FUNCTIONS_DIR).filter((f) => f.endsWith('.sql')).sort()) {
      const text = readFileSync(join(FUNCTIONS_DIR, file), 'utf8');
      const sha256 = createHash('sha256').update(text).digest('hex');
      if (current.get(file) === sha256) continue;
      await sql.raw(text).execute(trx);
      await sql`INSERT INTO schema_functions (name, sha256) VALUES (${file}, ${sha256})
        ON CONFLICT (name) DO UPDATE SET sha256 = excluded.sha256, applied_at = now()`.execute(trx);
      applied.push(`functions/${file}`);
    }
    return applied;
  });
}
