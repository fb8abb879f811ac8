import { AppError } from '../../lib/app-error';
import { verifyPassword } from '../../lib/password';
import type { User } from '../sessions/caller';
import type { RateLimiter, RateRule } from '../sessions/rate-limit.service';

/**
 * Wrong current passwords per account, over every call that asks for it (password change, turning
 * TOTP on, adding a passkey, creating an API key, setting the webhook or rotating its secret): whoever
 * holds a stolen session cannot use them to guess the password (the login's own limit is per address;
 * this one is per signed-in account).
 */
const WRONG_CURRENT_PASSWORD: RateRule = { limit: 5, windowMs: 15 * 60_000 };
const NO_PASSWORD = 'У аккаунта нет пароля: вы входите через Discord или Telegram';
const MISSING = 'Введите текущий пароль';
const WRONG = 'Неверный текущий пароль';

const keyOf = (userId: number) => `change_password:user:${userId}`;

/**
 * The signed-in user's current password, for a call that a stolen session alone must not make.
 * `optional`: an account without a password (Discord or Telegram only) passes; otherwise it is 422.
 */
export function createCurrentPasswordCheck(limiter: RateLimiter) {
  return {
    async check(user: User, password: string | undefined, opts: { optional?: boolean } = {}) {
      if (!user.password_hash) {
        if (opts.optional) return;
        throw new AppError('VALIDATION', { errors: { password: [NO_PASSWORD] } });
      }
      if (!password) throw new AppError('VALIDATION', { errors: { password: [MISSING] } });
      const tries = await limiter.take([[keyOf(user.id), WRONG_CURRENT_PASSWORD]]);
      if (!(await verifyPassword(user.password_hash, password))) throw new AppError('VALIDATION', { errors: { password: [WRONG] } });
      await tries.giveBack();
    },
    /** After a good password changed it: the count of wrong ones starts again. */
    forget: (userId: number) => limiter.clear(keyOf(userId)),
  };
}

export type CurrentPasswordCheck = ReturnType<typeof createCurrentPasswordCheck>;
