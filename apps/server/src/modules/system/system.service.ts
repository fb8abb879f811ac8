import { gamesservers } from '@adena/contract';
import type { Db, DbKind } from '../../db/client';
import { cached } from '../../lib/cached';
import { toGamesserver } from './system.mapper';
import { createSystemRepository } from './system.repository';

// Other processes on the same database pick an operator's change up within this time.
const GAME_SERVERS_TTL_MS = 2_000;

/** Health and the public list of game servers. */
export function createSystemService({ db, kind }: { db: Db['kysely']; kind: DbKind }) {
  const repo = createSystemRepository(db);
  // Every page asks for this list; it changes only when an operator edits a server. The answer
  // is checked against the contract once per load and kept as the ready JSON text.
  const list = cached(GAME_SERVERS_TTL_MS, async () => {
    const [servers, medians] = await Promise.all([repo.listActiveServers(), repo.medianProcessingMinutes()]);
    return JSON.stringify(gamesservers.response.parse(servers.map((s) => toGamesserver(s, medians.get(s.id) ?? null))));
  });

  return {
    health: () => ({ status: 'ok' as const, ok: true as const, db: kind }),
    /** The active servers as JSON text (GET /api/gamesservers). */
    gameServersJson: list.get,
    /** Call after an operator changes a server, so this process answers the change at once. */
    gameServersChanged: list.invalidate,
  };
}

export type SystemService = ReturnType<typeof createSystemService>;
