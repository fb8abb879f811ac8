/**
 * Where a player was when they went to sign in (the «Вы не авторизованы» dialog, the header's
 * «Войти»), so signing in brings them back there instead of to the wallet. Kept in sessionStorage:
 * it survives the trip through Discord's or Telegram's pages and ends with the tab.
 */
const KEY = 'return_to';

/** Only a path of this site, never the sign-in pages themselves nor another origin (`//host`). */
const isOwnPath = (p: string) => p.startsWith('/') && !p.startsWith('//') && !p.includes('\\') && !/^\/auth(\/|$|\?)/.test(p);

export function rememberReturnTo(path = `${window.location.pathname}${window.location.search}`) {
  try {
    if (isOwnPath(path)) sessionStorage.setItem(KEY, path);
    else sessionStorage.removeItem(KEY);
  } catch {
    // Storage refused (private mode): the player lands on the wallet, as before.
  }
}

/** The remembered path, or the wallet. */
export function peekReturnTo(): string {
  try {
    const p = sessionStorage.getItem(KEY);
    return p && isOwnPath(p) ? p : '/';
  } catch {
    return '/';
  }
}

/** The remembered path, forgotten once used. */
export function takeReturnTo(): string {
  const p = peekReturnTo();
  try {
    sessionStorage.removeItem(KEY);
  } catch {}
  return p;
}
