import { takeReturnTo } from '../../../lib/return-to';
import type { AuthResponse, SignInResponse } from '@adena/contract/lite';
import type { QueryClient } from '@tanstack/react-query';
import { startSession } from '../../../lib/session';

const KEY = 'two_factor_token';

/** Where a sign-in continues: the session starts, or (TOTP on) the code page gets the pending token. */
export function settleSignIn(qc: QueryClient, res: SignInResponse | AuthResponse): string {
  if ('two_factor_required' in res) {
    sessionStorage.setItem(KEY, res.two_factor_token);
    return '/auth/two_factor';
  }
  sessionStorage.removeItem(KEY);
  startSession(qc, res);
  return '/';
}

export const pendingSecondStep = {
  get: () => sessionStorage.getItem(KEY),
  clear: () => sessionStorage.removeItem(KEY),
};

/** The page after a sign-in call answered (its onSuccess has already settled it). */
/** Where a sign-in goes next: the second step, or back to where the player was (lib/return-to). */
export const nextAfterSignIn = (res: SignInResponse | AuthResponse) => ('two_factor_required' in res ? '/auth/two_factor' : takeReturnTo());
