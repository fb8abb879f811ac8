import { onlineManager } from '@tanstack/react-query';

// The last answer of a few calls, kept on this device so the shell can show something useful
// offline. Used only while the browser is offline, never as if it were live.
const PREFIX = 'last_known:';

export function remember<T>(key: string, value: T): T {
  try {
    localStorage.setItem(PREFIX + key, JSON.stringify(value));
  } catch {
    // Storage full or disabled: offline display is a nicety.
  }
  return value;
}

/** The remembered value, only while offline. */
export function recallWhileOffline<T>(key: string): T | undefined {
  if (onlineManager.isOnline()) return undefined;
  try {
    const raw = localStorage.getItem(PREFIX + key);
    return raw ? (JSON.parse(raw) as T) : undefined;
  } catch {
    return undefined;
  }
}

/** Signing out forgets everything remembered for the account. */
export function forgetAll() {
  for (const key of Object.keys(localStorage)) if (key.startsWith(PREFIX)) localStorage.removeItem(key);
}
