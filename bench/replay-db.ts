import { createDb } from '../apps/server/src/db/client';
import { migrate } from '../apps/server/src/db/migrate';
import { seedDemoServers } from '../apps/server/src/modules/system/seed';
import { createUser, createWallet, firstServerId, fund } from '../apps/server/test/factories';

/**
 * The app's schema on a throwaway database with `wallets` funded wallets on the first game server,
 * each with an access token whose hash a replayed statement can compute ('replay-' || wallet id):
 * what the statement benchmarks replay the app's withdrawal against.
 */
export async function replayDatabase(databaseUrl: string, wallets: number): Promise<{ serverId: number; lo: number; hi: number }> {
  const db = await createDb({ databaseUrl, dataDir: '', poolSize: 4 });
  try {
    const k = db.kysely;
    await migrate(k);
    await seedDemoServers(k);
    const serverId = await firstServerId(k);
    for (let i = 0; i < wallets; i += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, wallets - i) }, async (_, j) => {
          const p = await createUser(k, { name: `Игрок ${i + j}` });
          await fund(k, await createWallet(k, p.id, serverId, `Hero${i + j}`), 10n ** 15n);
        }),
      );
    }
    await db.pgPool!.query(`INSERT INTO tokens (user_id, kind, token_hash) SELECT user_id, 'access', 'replay-' || id FROM wallets WHERE gamesserver_id = $1`, [serverId]);
    const { rows } = await db.pgPool!.query(`SELECT min(id) AS lo, max(id) AS hi FROM wallets WHERE gamesserver_id = $1`, [serverId]);
    return { serverId, lo: Number(rows[0].lo), hi: Number(rows[0].hi) };
  } finally {
    await db.close();
  }
}
