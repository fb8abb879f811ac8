import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Kysely, Selectable } from 'kysely';
import type { Database, TokenKind, UsersTable } from '../db/schema';
import { AppError } from '../lib/app-error';
import { bearerOf, hashToken } from '../lib/tokens';

export type AuthUser = Selectable<UsersTable>;

declare module 'fastify' {
  interface FastifyRequest {
    /** The bearer's user, looked up lazily at most once per request. */
    currentUser(): Promise<AuthUser | null>;
  }
}

/** Finds the live user behind a bearer token of the given kind; blocked users have none. */
export async function userByToken(db: Kysely<Database>, token: string | undefined, kind: TokenKind) {
  if (!token) return null;
  const row = await db
    .selectFrom('tokens')
    .innerJoin('users', 'users.id', 'tokens.user_id')
    .selectAll('users')
    .select(['tokens.id as token_id'])
    .where('tokens.token_hash', '=', hashToken(token))
    .where('tokens.kind', '=', kind)
    .where((eb) => eb.or([eb('tokens.expires_at', 'is', null), eb('tokens.expires_at', '>', new Date())]))
    .where('users.blocked_at', 'is', null)
    .executeTakeFirst();
  if (!row) return null;
  const { token_id, ...user } = row;
  return { user: user as AuthUser, tokenId: token_id };
}

export function registerAuth(app: FastifyInstance, db: Kysely<Database>) {
  app.decorateRequest('currentUser', function (this: FastifyRequest) {
    const req = this as FastifyRequest & { _user?: Promise<AuthUser | null> };
    req._user ??= userByToken(db, bearerOf(req.headers.authorization), 'access').then((r) => r?.user ?? null);
    return req._user;
  });
}

export async function requireUser(request: FastifyRequest): Promise<AuthUser> {
  const user = await request.currentUser();
  if (!user) throw new AppError('UNAUTHENTICATED');
  return user;
}

/**
 * The caller of a call that authenticates inside its own database statement (`caller_id` in
 * migration 0011): the SHA-256 of the bearer, to be checked there, and the usual lookup for the
 * paths that need the user first; found once per request. A request without a bearer is refused
 * here at once.
 */
export interface Caller {
  tokenHash: string;
  user(): Promise<AuthUser>;
}

export function requireCaller(request: FastifyRequest): Caller {
  const req = request as FastifyRequest & { _caller?: Caller };
  if (req._caller) return req._caller;
  const token = bearerOf(request.headers.authorization);
  if (!token) throw new AppError('UNAUTHENTICATED');
  req._caller = { tokenHash: hashToken(token), user: () => requireUser(request) };
  return req._caller;
}

export async function requireAdmin(request: FastifyRequest): Promise<AuthUser> {
  const user = await requireUser(request);
  if (!user.admin) throw new AppError('FORBIDDEN');
  return user;
}
