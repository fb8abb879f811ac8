import type { User as WireUser } from '@adena/contract';
import { AppError } from '../../lib/app-error';
import { verifyPassword } from '../../lib/password';
import type { Caller, Client } from '../sessions/caller';
import { toUser } from './accounts.mapper';
import type { Pool } from './accounts.repository';
import type { Method } from './code-flows';
import type { RateLimiter } from '../sessions/rate-limit.service';
import type { Limits } from './limits';
import { findByAddress, refuseBlocked, type SignIn, type SignInAsking } from './sign-in';

export interface AccountsDeps {
  db: Pool;
  limiter: RateLimiter;
  limits: Limits;
  signIn: SignIn;
  /** With TOTP on, the second step's token instead of a session. */
  signInAsking?: SignInAsking;
  now: () => Date;
}

/** Sign-in with a password, and the signed-in user's own object. */
export function createAccountsService(deps: AccountsDeps) {
  const { db, limiter, limits, signIn, now } = deps;

  return {
    /** Email or phone and password. Unknown login and wrong password answer alike, in the same time. */
    async login(client: Client, method: Method, address: string, password: string) {
      const accountKey = `login:acct:${method}:${address}`;
      const ipKey = `login:ip:${client.ip}`;
      await limiter.check(ipKey, limits.loginFailuresPerIp);
      // Counted before the password is checked and cleared on success, so a burst of parallel
      // guesses at one account is cut off at the limit rather than after all of them ran.
      await limiter.count(accountKey, limits.loginFailuresPerAccount);
      const user = await findByAddress(db, method, address);
      if (!(await verifyPassword(user?.password_hash ?? null, password)) || !user) {
        await limiter.record(ipKey, limits.loginFailuresPerIp);
        throw new AppError('INVALID_CREDENTIALS');
      }
      // Only someone who knows the password learns that the account is blocked.
      refuseBlocked(user);
      await limiter.clear(accountKey);
      return (deps.signInAsking ?? signIn)(db, user, { method, client });
    },

    /** GET /api/user: the caller's own user object. */
    me: (caller: Caller): WireUser => toUser(caller.user, now()),
  };
}

export type AccountsService = ReturnType<typeof createAccountsService>;
