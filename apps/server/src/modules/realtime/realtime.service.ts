import { realtimeChannelFor } from '@adena/contract';
import type { Db } from '../../db/client';
import { hashToken, newToken } from '../../lib/tokens';
import type { Realtime } from '../../plugins/realtime';
import type { Caller } from '../sessions/caller';
import { createRealtimeRepository } from './realtime.repository';

/** A socket token lives long enough to connect; the client fetches a fresh one for every reconnect. */
export const REALTIME_TOKEN_TTL_MS = 5 * 60_000;

/** Socket tokens for the caller's private channel, and the test message on it. */
export function createRealtimeService({ db, realtime }: { db: Db['kysely']; realtime: Pick<Realtime, 'publish'> }) {
  const repo = createRealtimeRepository(db);
  return {
    async issueToken(caller: Caller) {
      const token = newToken();
      const expiresAt = new Date(Date.now() + REALTIME_TOKEN_TTL_MS);
      await repo.replaceExpiredTokens(caller.user.id, hashToken(token), expiresAt);
      return { token, expires_at: expiresAt.toISOString(), channel: realtimeChannelFor(caller.user.id) };
    },

    sendTest(caller: Caller) {
      realtime.publish(caller.user.id, 'test', { message: 'Проверка связи: сообщение дошло' });
      return { sent: true as const };
    },
  };
}

export type RealtimeService = ReturnType<typeof createRealtimeService>;
