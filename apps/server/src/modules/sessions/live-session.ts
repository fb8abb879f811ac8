import { AppError } from '../../lib/app-error';
import { requireLiveKey } from '../seller/live-key';
import type { Caller } from './caller';
import { type Queryable, sessionsRepository as repo } from './sessions.repository';

/**
 * For a write a session leaves behind (a seller API key, a passkey), in that write's transaction:
 * holds the user's row and refuses (401) when the session has ended meanwhile. A password reset
 * takes the same row before it ends the sessions and revokes keys and passkeys, so the write either
 * commits first (and the reset revokes it) or finds its session gone: nothing a thief's session makes
 * while the owner resets outlives the reset. A seller's API key caller has its key checked the same way
 * (requireLiveKey: a revoke or a block it waited for is seen).
 */
export async function requireLiveSession(trx: Queryable, caller: Caller) {
  if (caller.sessionId === null) {
    if (caller.apiKeyId !== undefined) await requireLiveKey(trx, caller.user.id, caller.apiKeyId);
    return;
  }
  if (!(await repo.holdLiveSession(trx, caller.user.id, caller.sessionId))) throw new AppError('UNAUTHENTICATED');
}

/**
 * Whether the caller's session is still live, read as its own statement in the caller's transaction:
 * after a row lock the caller waited for, it sees what the lock's holder committed (a second factor
 * turned off, a password changed: both end the sessions in the transaction that held the row). A
 * seller's API key caller has no session: true.
 */
export async function sessionStillLive(trx: Queryable, caller: Pick<Caller, 'sessionId'>) {
  return caller.sessionId === null || (await repo.liveSessions(trx, [caller.sessionId])).length > 0;
}
