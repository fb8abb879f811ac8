import { gamesservers } from '@adena/contract';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema';
import { cached } from '../../lib/cached';
import { toGamesserver } from './system.mapper';
import { createSystemRepository } from './system.repository';

export interface ServerList {
  /** The public list of active servers as JSON text (GET /api/gamesservers). */
  json(): Promise<string>;
  /** Call after an operator changes a server, so this process answers the change at once. */
  invalidate(): void;
}

// Other processes on the same database pick a change up within this time.
const TTL_MS = 2_000;

export function createServerList(db: Kysely<Database>): ServerList {
  const repo = createSystemRepository(db);
  const list = cached(TTL_MS, async () => {
    const [servers, medians] = await Promise.all([repo.listActiveServers(), repo.medianProcessingMinutes()]);
    return JSON.stringify(gamesservers.response.parse(servers.map((s) => toGamesserver(s, medians.get(s.id) ?? null))));
  });
  return { json: list.get, invalidate: list.invalidate };
}
