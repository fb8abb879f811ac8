import { refuseCommonPassword } from '../../lib/common-passwords';
import type { AuthResponse } from '@adena/contract';
import { hashPassword } from '../../lib/password';
import type { SessionCaller } from '../sessions/caller';
import type { SessionsService } from '../sessions/sessions.service';
import { toUser } from './accounts.mapper';
import { accountsRepository as repo, inTransaction, type Pool } from './accounts.repository';
import type { CurrentPasswordCheck } from './current-password';

export interface PasswordChangeDeps {
  db: Pool;
  currentPassword: CurrentPasswordCheck;
  sessions: Pick<SessionsService, 'keepOnlyThisSession' | 'announceEnded'>;
  now: () => Date;
}

/** POST /api/change_password: the signed-in player changes their password; every other session ends. */
export function createPasswordChangeService(deps: PasswordChangeDeps) {
  const { db, currentPassword, sessions, now } = deps;

  return {
    async changePassword(caller: SessionCaller, input: { password: string; newPassword: string }): Promise<AuthResponse> {
      await currentPassword.check(caller.user, input.password);
      refuseCommonPassword(input.newPassword, 'new_password');
      const passwordHash = await hashPassword(input.newPassword);
      const { user, token, ended } = await inTransaction(db, async (trx) => {
        // The user's row first: a sign-in with the old password still running then either finished
        // before (its session ends below) or finds the password changed (sessions.issueAccessToken).
        const updated = await repo.updateUser(trx, caller.user.id, { password_hash: passwordHash });
        // A reset started before the change (its code seen by someone else) no longer sets a password. Closed
        // before the new-password tokens go: a code check under way holds its flow's row, so this waits for it
        // and the token it then issued is among those deleted next (the other order left it alive).
        await repo.closeResetFlows(trx, caller.user.id);
        const kept = await sessions.keepOnlyThisSession(caller, trx);
        return { user: updated, ...kept };
      });
      await currentPassword.forget(caller.user.id);
      sessions.announceEnded(ended, 'password_changed');
      return { access_token: token, user: toUser(user, now()) };
    },
  };
}

export type PasswordChangeService = ReturnType<typeof createPasswordChangeService>;
