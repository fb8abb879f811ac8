import type { UserRow } from '../../db/schema';

/** A user as the server's modules know it (the row of `users`; the wire shape is `toUser`). */
export type User = UserRow;

/** Anyone making a call, signed in or not: what rate limits and the audit log key on. */
export interface Client {
  ip: string | null;
}

/** A signed-in user making a call: the one shape every service takes as its first argument. */
export interface Caller extends Client {
  user: User;
}
