import { realtimeChannelFor } from '@adena/contract';
import type { Realtime } from '../../plugins/realtime';
import type { Caller, SessionCaller } from '../sessions/caller';
import type { SessionsService } from '../sessions/sessions.service';

/** Socket tokens (issued by sessions) for the caller's private channel, and the test message on it. */
export function createRealtimeService({
  sessions,
  realtime,
}: {
  sessions: Pick<SessionsService, 'issueRealtimeToken'>;
  realtime: Pick<Realtime, 'publish'>;
}) {
  return {
    async issueToken(caller: SessionCaller) {
      const { token, expiresAt } = await sessions.issueRealtimeToken(caller);
      return { token, expires_at: expiresAt.toISOString(), channel: realtimeChannelFor(caller.user.id) };
    },

    sendTest(caller: Caller) {
      realtime.publish(caller.user.id, 'test', { message: 'Проверка связи: сообщение дошло' });
      return { sent: true as const };
    },
  };
}

export type RealtimeService = ReturnType<typeof createRealtimeService>;
