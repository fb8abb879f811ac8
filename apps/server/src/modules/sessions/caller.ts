import type { UserRow } from '../../db/schema';

/** A user as the server's modules know it (the row of `users`; the wire shape is `toUser`). */
export type User = UserRow;

/** Anyone making a call, signed in or not: what rate limits and the audit log key on. */
export interface Client {
  ip: string | null;
  /** The User-Agent header, kept with a session so its owner can tell their devices apart. */
  userAgent?: string | null;
  /** The hash of the browser's `aw_browser` key (plugins/browser.ts), when it sent one. */
  browser?: string | null;
}

/** A signed-in user making a call: the one shape every service takes as its first argument. */
export interface Caller extends Client {
  user: User;
  /** The session (access token row) the call was made with; null for a seller's API key. */
  sessionId: number | null;
  /** The seller's API key the call was made with (sessionId null). */
  apiKeyId?: number;
}

/** A caller signed in through a session (not an API key): what the sessions calls act on. */
export interface SessionCaller extends Caller {
  sessionId: number;
}

/** How a session was signed in; the profile's session list shows it. */
export type SessionMethod = 'email' | 'phone' | 'discord' | 'telegram' | 'telegram_app' | (string & {});
