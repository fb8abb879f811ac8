import type { AuthResponse, SignInResponse } from '@adena/contract';
import { AppError } from '../../lib/app-error';
import type { User } from '../sessions/caller';
import type { Queryable, SessionOrigin, SessionsService } from '../sessions/sessions.service';
import { toUser } from './accounts.mapper';
import { accountsRepository as repo } from './accounts.repository';
import type { Method } from './code-flows';

export const ALREADY_REGISTERED = 'Аккаунт с этим адресом уже есть. Войдите или восстановите пароль';

/** What every way in ends with: a new session and the user object (PRODUCT.md's auth answer). */
export function createSignIn(deps: { sessions: Pick<SessionsService, 'issueAccessToken'>; now: () => Date }) {
  return async (q: Queryable, user: User, origin: SessionOrigin): Promise<AuthResponse> => {
    // A TOTP user's browser is remembered (its own reset minute and wrong-code allowance) only by a
    // sign-in that showed the second factor: a Telegram one is not asked for it.
    const remember = !user.totp_secret || origin.method === 'two_factor' || origin.method === 'passkey';
    const token = await deps.sessions.issueAccessToken(user, q, remember ? origin : { ...origin, client: { ...origin.client, browser: null } });
    return { access_token: token, user: toUser(user, deps.now()) };
  };
}

export type SignIn = ReturnType<typeof createSignIn>;
/** A sign-in that asks for the second factor when TOTP is on (modules/two-factor; PRODUCT.md section 7). */
/** `linkDiscordId`: a Discord id to link once the second factor is given (a user with TOTP on). */
export type SignInAsking = (q: Queryable, user: User, origin: SessionOrigin, pending?: { linkDiscordId?: string }) => Promise<SignInResponse>;

export function refuseBlocked(user: User) {
  if (user.blocked_at) throw new AppError('USER_BLOCKED');
}

export const isUniqueViolation = (err: unknown) => (err as { code?: unknown } | null)?.code === '23505';

/** A unique-key race lost to a parallel request: a 409 with this message, never a 500. */
export async function withConflictAs<T>(message: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (isUniqueViolation(err)) throw new AppError('CONFLICT', { message });
    throw err;
  }
}

export const findByAddress = (q: Queryable, method: Method, address: string) =>
  repo.findUserBy(q, method === 'email' ? 'email' : 'phone', address);
