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
import { addressKey } from '../../lib/address-key';

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
      // Throttled per (login, address) and per address, never per login alone: a stranger's wrong
      // passwords slow the stranger down and never lock the owner out (PRODUCT.md section 8).
      // Each try is claimed before the password is checked, so a parallel burst waits its turn.
      const ipKey = `login:ip:${addressKey(client.ip)}`;
      const pairKey = `login:acct-ip:${method}:${address}:${addressKey(client.ip)}`;
      // The pair first: a try the pair refuses does not count against the address, which other players
      // behind the same carrier address share.
      await limiter.claim(pairKey, limits.loginPerAccountIp);
      await limiter.claim(ipKey, limits.loginPerIp);
      const user = await findByAddress(db, method, address);
      if (!(await verifyPassword(user?.password_hash ?? null, password)) || !user) throw new AppError('INVALID_CREDENTIALS');
      // Only someone who knows the password learns that the account is blocked.
      refuseBlocked(user);
      await limiter.clear(pairKey);
      await limiter.refund(ipKey);
      return (deps.signInAsking ?? signIn)(db, user, { method, client });
    },

    /** GET /api/user: the caller's own user object. */
    me: (caller: Caller): WireUser => toUser(caller.user, now()),
  };
}

export type AccountsService = ReturnType<typeof createAccountsService>;
