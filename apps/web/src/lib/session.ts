import { forgetCodeFlows } from './code-flows';
import { type AuthResponse, routes, type User } from '@adena/contract/lite';
import { queryOptions, useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { ApiError, request, tokenStore } from './api-client';
import { forgetAll, recallWhileOffline, remember } from './last-known';
import { useRequestKeys } from '../hooks/use-request-key';
import { useStepUp } from './step-up';
import { isTelegramLaunch } from './telegram';
import { useUi } from './ui-store';

export const userQueryOptions = () =>
  queryOptions<User | null, Error, User | null, ['user']>({
    queryKey: ['user'],
    queryFn: async ({ client }): Promise<User | null> => {
      const token = tokenStore.get();
      if (!token) return null;
      // Another sign-in replaced the token while this read was on its way: its answer (the old account, or the
      // old token's 401) is not this tab's any more; the new sign-in cached its user already.
      const replaced = () => tokenStore.get() !== token;
      try {
        const user = await request(routes.getUser);
        return replaced() ? (client.getQueryData<User | null>(['user']) ?? null) : remember('user', user);
      } catch (err) {
        const refused = err instanceof ApiError && (err.status === 401 || err.status === 403);
        // This tab's password change was on its way: the server gave the session its new token when the change
        // committed, before the answer carrying it came, so a read sent with the old one meanwhile answers 401. Once
        // the change has answered, the tab holds the new token (the read's answer is the old token's) or the change
        // failed and the 401 stands. Without the wait the player who only changed the password was signed out and
        // told their session had ended, and the change's answer was dropped (diff review, 2026-11-29).
        if (refused && tokenReplacements.size > 0) await Promise.allSettled([...tokenReplacements]);
        if (replaced()) return client.getQueryData<User | null>(['user']) ?? null;
        // SPEC.md section 4: a failed user fetch signs out, and forgets what it held as a logout does.
        if (err instanceof ApiError && refused) {
          const hadUser = client.getQueryData<User | null>(['user']) != null;
          tokenStore.clear();
          forgetUserData(client, 'reset');
          // Said, not only done: a tab reloaded after «Завершить» on another device, a block or an expiry showed the
          // guest's page with no word of why. (A session ended while the tab is open is said by its socket's notice,
          // and its token is gone before any read.) The mini app at its launch signs in again by itself with its
          // launch data, unasked: said there only when it was signed in, as its launch data serves once.
          if (!isTelegramLaunch() || hadUser) useUi.getState().showSnackbar(err.status === 403 ? err.message : sessionEndedText(''), 'warning', 10_000);
          return null;
        }
        throw err;
      }
    },
    staleTime: 60_000,
    // A failed read is said with «Повторить» (useUser's readFailed): a screen mounting then (that very error) reads
    // again only when asked, on refocus or on reconnect, not each time it mounts.
    retryOnMount: false,
    // Offline (the shell from the service worker): the last known user, so the wallets show.
    placeholderData: () => (tokenStore.get() ? recallWhileOffline<User>('user') : undefined),
  });

/** This tab's calls that give its own session a new token (a password change), until that token is stored. */
const tokenReplacements = new Set<Promise<unknown>>();

/**
 * Runs a call that gives this session a new token, storing the token in `run` itself: a read of the user that the
 * old token's 401 answers meanwhile waits for it (userQueryOptions) instead of signing the tab out.
 */
export function replacingToken<T>(run: () => Promise<T>): Promise<T> {
  const call = run();
  tokenReplacements.add(call);
  const done = () => void tokenReplacements.delete(call);
  call.then(done, done);
  return call;
}

/**
 * Who is signed in. `readFailed`: a token is held but reading the user failed (a 5xx, no connection; the token is
 * kept then): who it is is not known, which is not signed out (no token, or the server's 401). Screens say so with
 * «Повторить» (`read`, components/user-read-failed) and neither redirect to sign-in nor offer «Войти».
 */
export function useUser() {
  const q = useQuery(userQueryOptions());
  // Failed, and not answered since: a re-read («Повторить», a refocus) starts over as pending (no data), and the
  // screens keep saying the failure meanwhile rather than blank out and come back.
  const readFailed = !q.data && q.errorUpdatedAt > q.dataUpdatedAt;
  return { user: q.data ?? null, isPending: q.isPending && !readFailed, isSignedIn: Boolean(q.data), readFailed, read: q };
}

/**
 * What the tab holds for the signed-in user besides the token: the copies kept for offline, the
 * Idempotency-Keys (and amounts) of requests in doubt, every cached read but the user and the server list.
 * The next user of this tab must not see them (a shared device, a Telegram account switch). `reads`: a
 * logout removes the cached reads (its screens go); a session ended under a screen that stays (a 401, the mini
 * app's account switch) resets them, so the screens on show drop the data and read again as who is signed in now.
 */
function forgetUserData(qc: QueryClient, reads: 'remove' | 'reset') {
  accountGeneration += 1;
  forgetAll();
  useRequestKeys.setState({ kept: {} });
  // A dialog left open (an incident's, a withdrawal's) and an incident offered are the last user's.
  useUi.setState({ dialog: { name: 'none' }, queued: null });
  // So is a second-factor prompt: its call fails as cancelled rather than go again, under whoever's token is current.
  useStepUp.getState().answer(null);
  const predicate = (q: { queryKey: readonly unknown[] }) => q.queryKey[0] !== 'user' && q.queryKey[0] !== 'gamesservers';
  if (reads === 'remove') qc.removeQueries({ predicate });
  else void qc.resetQueries({ predicate });
}

/**
 * After a login, a verified sign-up, a new password or Discord/Telegram: keep the token, merge the user.
 * Another account than the one signed in (the mini app's «Войти как …?») starts from nothing of the first's.
 */
export function startSession(qc: QueryClient, auth: AuthResponse) {
  const before = qc.getQueryData<User | null>(userQueryOptions().queryKey);
  tokenStore.set(auth.access_token);
  forgetCodeFlows();
  if (before && before.id !== auth.user.id) forgetUserData(qc, 'reset');
  qc.setQueryData(userQueryOptions().queryKey, auth.user);
  void qc.invalidateQueries({ predicate: (q) => q.queryKey[0] !== 'user' });
}

/**
 * Which account this tab holds: counted up each time what the tab holds for a user is forgotten (a sign-out, a
 * sign-in of another account here or in another tab, the mini app's account switch), not when the same account
 * gets a new token (a password change here or in another tab keeps the session under a new token).
 */
let accountGeneration = 0;

/**
 * Whose a call is, for what its answer writes: `onMutate: callAccount` keeps the account the call starts under (its
 * mutation's context), and `sameAccount(context)` tells, when the answer comes, that this tab still holds it. After
 * a sign-out, or another account's sign-in here or in another tab, the late answer is the last account's: it writes
 * nothing into the cache (code texts, the user) and signs nobody in again. The same account under a new token (its
 * password changed meanwhile) still gets its answer: a code it paid for is shown, a withdrawal's balance drops.
 */
export const callAccount = (): CallAccount => ({ generation: accountGeneration });
export interface CallAccount {
  generation: number;
}
export const sameAccount = (call: CallAccount | undefined) => call !== undefined && call.generation === accountGeneration;

/** Everything held for the signed-in user goes; the server's answer does not matter (SPEC.md: errors ignored). */
export function endSession(qc: QueryClient) {
  tokenStore.clear();
  forgetCodeFlows();
  forgetUserData(qc, 'remove');
  qc.setQueryData(userQueryOptions().queryKey, null);
}

/**
 * Follows another tab's sign-in or sign-out (the token is shared by the tabs): signed out there, this tab signs
 * out as after a logout; another account's token there, this tab forgets what it held for the last one once the
 * user read with the new token answers, so that it neither shows one account while its calls act as another nor
 * keeps the last one's socket. Started with the query client, before the first screen's reads.
 */
export function followOtherTabs(qc: QueryClient) {
  let seen = tokenStore.get();
  return tokenStore.subscribe((fromAnotherTab) => {
    const was = seen;
    seen = tokenStore.get();
    if (!fromAnotherTab || seen === was) return;
    if (seen === null) return endSession(qc);
    const token = seen;
    const before = qc.getQueryData<User | null>(userQueryOptions().queryKey);
    // Whose is the new token? A password change there gives the same session a new token: the same account keeps
    // what this tab holds (a dialog being filled, the keys of requests in doubt, which must not be sent again under
    // new keys), as a sign-in of the same account in this tab does. Unknown (no answer): forgotten, to be safe.
    void request(routes.getUser).then(
      (user) => settle(user),
      () => settle(null),
    );
    function settle(user: User | null) {
      if (tokenStore.get() !== token) return; // changed again meanwhile: that change is followed on its own
      if (before && user && before.id === user.id) {
        qc.setQueryData(userQueryOptions().queryKey, user);
        void qc.invalidateQueries({ predicate: (q) => q.queryKey[0] !== 'user' });
        return;
      }
      forgetCodeFlows();
      forgetUserData(qc, 'reset');
      void qc.invalidateQueries({ queryKey: userQueryOptions().queryKey });
    }
  });
}

const SESSION_ENDED: Record<string, string> = {
  revoked: 'Этот сеанс завершён с другого устройства. Войдите снова',
  password_changed: 'Пароль изменён на другом устройстве. Войдите с новым паролем',
  password_reset: 'Пароль сброшен. Войдите с новым паролем',
  blocked: 'Ваш аккаунт заблокирован. Обратитесь в поддержку',
  expired: 'Сеанс истёк. Войдите снова',
};

/** Why the server ended this session (`session_ended`'s reason), in Russian. */
export const sessionEndedText = (reason: string) => SESSION_ENDED[reason] ?? 'Сеанс завершён. Войдите снова';

export function useLogout() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async () => {
      try {
        await request(routes.logout);
      } catch {
        // Logout errors are ignored.
      }
    },
    onSettled: () => endSession(qc),
  });
}
