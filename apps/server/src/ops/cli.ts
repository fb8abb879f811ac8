import { resolve } from 'node:path';
import { ConfigError, loadConfig } from '../config';
import { BackupError, backup, restore } from '../db/backup';
import { DataDirLocked, lockDataDir } from '../lib/data-dir-lock';

const USAGE = 'usage: npm run backup -- FILE | npm run restore -- FILE';

/**
 * `backup FILE` and `restore FILE` for whichever database the settings name (DATABASE_URL, or
 * the embedded one in DATA_DIR). The embedded one is locked for the run, so its server must be
 * stopped first; PostgreSQL is dumped from a snapshot while its servers run. One line out, exit 0
 * or 1.
 */
async function main(argv: string[]): Promise<number> {
  // Files this process and pg_dump / pg_restore create are this user's alone (0600, folders 0700):
  // a backup holds gift-code serts, TOTP and webhook secrets; a restored DATA_DIR holds the ledger.
  process.umask(0o077);
  const [command, file, ...extra] = argv;
  if ((command !== 'backup' && command !== 'restore') || !file || extra.length > 0) {
    console.error(USAGE);
    return 1;
  }
  try {
    const config = loadConfig();
    const target = { databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR, pgBinDir: config.PG_BIN_DIR };
    const lock = config.DATABASE_URL ? null : lockDataDir(config.DATA_DIR);
    try {
      const path = resolve(file);
      if (command === 'backup') {
        // Ctrl-C or a stop ends pg_dump and removes the half-written copy (it holds the same secrets as a backup).
        const stop = new AbortController();
        for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(sig, () => stop.abort());
        const r = await backup(target, path, { signal: stop.signal });
        console.log(`backup of the ${r.kind === 'postgres' ? 'PostgreSQL' : 'embedded'} database written to ${path} (${r.bytes} bytes)`);
      } else {
        const r = await restore(target, path);
        console.log(`${path} restored into the ${r.kind === 'postgres' ? 'PostgreSQL' : 'embedded'} database`);
      }
    } finally {
      lock?.release();
    }
    return 0;
  } catch (err) {
    if (err instanceof ConfigError || err instanceof BackupError || err instanceof DataDirLocked) {
      console.error(err.message);
      return 1;
    }
    throw err;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : err);
    process.exit(1);
  },
);
