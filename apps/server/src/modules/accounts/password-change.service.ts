import { refuseCommonPassword } from '../../lib/common-passwords';
import type { AuthResponse } from '@adena/contract';
import { AppError } from '../../lib/app-error';
import { hashPassword, verifyPassword } from '../../lib/password';
import type { SessionCaller } from '../sessions/caller';
import type { RateLimiter, RateRule } from '../sessions/rate-limit.service';
import type { SessionsService } from '../sessions/sessions.service';
import { toUser } from './accounts.mapper';
import { accountsRepository as repo, inTransaction, type Pool } from './accounts.repository';

/**
 * Wrong current passwords per account: whoever holds a stolen session cannot use this call to
 * guess the password (the login's own limit is per address; this one is per signed-in account).
 */
const WRONG_CURRENT_PASSWORD: RateRule = { limit: 5, windowMs: 15 * 60_000 };
const NO_PASSWORD = 'У аккаунта нет пароля: вы входите через Discord или Telegram';
const WRONG_PASSWORD = 'Неверный текущий пароль';

export interface PasswordChangeDeps {
  db: Pool;
  limiter: RateLimiter;
  sessions: Pick<SessionsService, 'keepOnlyThisSession' | 'announceEnded'>;
  now: () => Date;
}

/** POST /api/change_password: the signed-in player changes their password; every other session ends. */
export function createPasswordChangeService(deps: PasswordChangeDeps) {
  const { db, limiter, sessions, now } = deps;

  return {
    async changePassword(caller: SessionCaller, input: { password: string; newPassword: string }): Promise<AuthResponse> {
      const key = `change_password:user:${caller.user.id}`;
      if (!caller.user.password_hash) throw new AppError('VALIDATION', { errors: { password: [NO_PASSWORD] } });
      const tries = await limiter.take([[key, WRONG_CURRENT_PASSWORD]]);
      if (!(await verifyPassword(caller.user.password_hash, input.password))) throw new AppError('VALIDATION', { errors: { password: [WRONG_PASSWORD] } });
      await tries.giveBack();
      refuseCommonPassword(input.newPassword, 'new_password');
      const passwordHash = await hashPassword(input.newPassword);
      const { user, token, ended } = await inTransaction(db, async (trx) => {
        const kept = await sessions.keepOnlyThisSession(caller, trx);
        const updated = await repo.updateUser(trx, caller.user.id, { password_hash: passwordHash });
        return { user: updated, ...kept };
      });
      await limiter.clear(key);
      sessions.announceEnded(ended, 'password_changed');
      return { access_token: token, user: toUser(user, now()) };
    },
  };
}

export type PasswordChangeService = ReturnType<typeof createPasswordChangeService>;
