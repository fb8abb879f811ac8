import { takeReturnTo } from '../../../lib/return-to';
import type { AuthResponse, SignInResponse } from '@adena/contract/lite';
import type { QueryClient } from '@tanstack/react-query';
import { startSession } from '../../../lib/session';

const KEY = 'two_factor_token';
/** The reset's method ('email' | 'phone') when the pending sign-in carries a password reset. */
const RESET_KEY = 'two_factor_reset';

/**
 * Where a sign-in continues: the session starts, or (TOTP on) the code page gets the pending token.
 * `reset`: the sign-in is a password reset's (its method), whose new password waits for the code.
 */
export function settleSignIn(qc: QueryClient, res: SignInResponse | AuthResponse, reset?: 'email' | 'phone'): string {
  if ('two_factor_required' in res) {
    sessionStorage.setItem(KEY, res.two_factor_token);
    if (reset) sessionStorage.setItem(RESET_KEY, reset);
    else sessionStorage.removeItem(RESET_KEY);
    return '/auth/two_factor';
  }
  pendingSecondStep.clear();
  startSession(qc, res);
  return '/';
}

export const pendingSecondStep = {
  get: () => sessionStorage.getItem(KEY),
  /**
   * The method of the password reset the pending sign-in carries, or null: its new password is saved only by
   * the code, so once the sign-in expires the way on is the reset again, not a sign-in with that password.
   */
  reset: (): 'email' | 'phone' | null => {
    const method = sessionStorage.getItem(RESET_KEY);
    return method === 'email' || method === 'phone' ? method : null;
  },
  clear: () => {
    sessionStorage.removeItem(KEY);
    sessionStorage.removeItem(RESET_KEY);
  },
};

/** The page after a sign-in call answered (its onSuccess has already settled it). */
/** Where a sign-in goes next: the second step, or back to where the player was (lib/return-to). */
export const nextAfterSignIn = (res: SignInResponse | AuthResponse) => ('two_factor_required' in res ? '/auth/two_factor' : takeReturnTo());
