/**
 * Ties a Discord or Telegram Login Widget callback to the browser tab that started that sign-in
 * (PRODUCT.md section 8): the tab keeps the Discord `state` it was sent with, or a random nonce it
 * put into the widget's return_to, in sessionStorage (one per tab, gone with the tab). A callback
 * link opened anywhere else, such as an attacker's `#tgAuthResult` or `?code&state`, finds nothing
 * to match and is refused before the server hears of it. Each value is used once.
 */

const DISCORD_KEY = 'aw/discordState';
const TELEGRAM_KEY = 'aw/telegramNonce';

function keep(key: string, value: string) {
  try {
    sessionStorage.setItem(key, value);
  } catch {
    // No storage: the callback will refuse, and the player can sign in another way.
  }
}

/** Reads and forgets what this tab kept; null when it started nothing. */
function take(key: string): string | null {
  try {
    const v = sessionStorage.getItem(key);
    sessionStorage.removeItem(key);
    return v;
  } catch {
    return null;
  }
}

/** Called as the tab leaves for Discord: remembers the state the server put into the authorize URL. */
export function startDiscordSignIn(authorizeUrl: string) {
  const state = new URL(authorizeUrl).searchParams.get('state');
  if (state) keep(DISCORD_KEY, state);
}

/** True when this tab started the Discord sign-in that came back with `state`. */
export const discordStateIsOurs = (state: string) => take(DISCORD_KEY) === state;

export function newNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(18));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_');
}

/** Where Telegram's login page returns to: our callback with the tab's nonce (Telegram appends #tgAuthResult). */
export const telegramReturnTo = (nonce: string) => `${window.location.origin}/auth/telegram/callback?state=${encodeURIComponent(nonce)}`;

/** Called as the tab leaves for Telegram's login page with `nonce` in its return_to. */
export const startTelegramSignIn = (nonce: string) => keep(TELEGRAM_KEY, nonce);

/** True when this tab started the Telegram sign-in whose return_to carried `nonce`. */
export const telegramNonceIsOurs = (nonce: string | null) => {
  const kept = take(TELEGRAM_KEY);
  return nonce !== null && kept === nonce;
};
