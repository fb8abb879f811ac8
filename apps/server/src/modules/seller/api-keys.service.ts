import { randomBytes } from 'node:crypto';
import { API_KEYS_MAX } from '@adena/contract';
import { AppError } from '../../lib/app-error';
import { hashToken } from '../../lib/tokens';
import type { Caller, Client } from '../sessions/caller';
import { requireLiveSession } from '../sessions/live-session';
import { KEY_GONE } from './live-key';
import { createRateLimiter, type RateRule } from '../sessions/rate-limit.service';
import { toApiKey } from './api-keys.mapper';
import { type ApiKeysDb, apiKeysRepository as repo } from './api-keys.repository';

/** `aw_` + 256 random bits: the prefix lets secret scanners recognise a leaked key. */
export const API_KEY_PREFIX = 'aw_';
const newApiKey = () => `${API_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
/** What the list shows of a key: enough to tell keys apart, far too little to use. */
const shownPrefix = (key: string) => `${key.slice(0, API_KEY_PREFIX.length + 6)}…`;

/** A key call's caller: the user behind the key and the key's id (the call log names it). */
export interface KeyCaller extends Caller {
  apiKeyId: number;
}

/** Calls per key per minute (PRODUCT.md section 10: at least 120). */
export const DEFAULT_KEY_RATE: RateRule = { limit: 120, windowMs: 60_000 };

const keyNotFound = () => new AppError('NOT_FOUND', { message: 'Ключ не найден', errors: { id: ['Ключ не найден'] } });

/** API keys: made and revoked from the profile; the caller behind a key on /api/v1; the call log. */
export function createApiKeysService({ db, rate = DEFAULT_KEY_RATE, clock = () => new Date() }: { db: ApiKeysDb; rate?: RateRule; clock?: () => Date }) {
  const limiter = createRateLimiter(db, clock);
  return {
    /** A new key, returned in clear only here; the database keeps its SHA-256. */
    async create(caller: Caller, name: string) {
      const key = newApiKey();
      // In the key's transaction, the session must still be live (a reset ending it revokes what it made).
      const row = await repo.insertBelowCap(db, { userId: caller.user.id, name, prefix: shownPrefix(key), keyHash: hashToken(key) }, API_KEYS_MAX, (trx) =>
        requireLiveSession(trx, caller),
      );
      if (!row) {
        throw new AppError('CONFLICT', { message: `Не больше ${API_KEYS_MAX} ключей: отзовите ненужный`, errors: { name: [`Не больше ${API_KEYS_MAX} ключей`] } });
      }
      return { id: row.id, name: row.name, key, created_at: new Date(row.created_at).toISOString() };
    },

    async list(caller: Caller) {
      return (await repo.listLive(db, caller.user.id)).map(toApiKey);
    },

    /** A password reset, in its transaction: every key of the user is revoked (a thief may have made one). */
    revokeAllOf: (userId: number, q: Parameters<typeof repo.revokeAll>[0]) => repo.revokeAll(q, userId),

    async revoke(caller: Caller, id: number) {
      // As a key's creation: the session checked under the user's row first, so a thief's revoke that waited for the key's
      // row (a /v1 call holds it) does not land after the owner's password change or a block.
      const revoked = await db.transaction().execute(async (trx) => {
        await requireLiveSession(trx, caller);
        return repo.revoke(trx, caller.user.id, id);
      });
      if (!revoked) throw keyNotFound();
      return { success: id };
    },

    /**
     * The caller behind an API key, or 401: an access token (no `aw_`), an unknown or revoked key,
     * a blocked user.
     */
    async callerOfKey(key: string | undefined, client: Client): Promise<KeyCaller> {
      if (!key?.startsWith(API_KEY_PREFIX)) {
        throw new AppError('UNAUTHENTICATED', { message: 'Нужен API-ключ (Authorization: Bearer aw_…); токен входа здесь не действует' });
      }
      const found = await repo.userOfKey(db, hashToken(key));
      if (!found) throw new AppError('UNAUTHENTICATED', { message: KEY_GONE });
      const at = clock();
      if (!found.keyLastUsedAt || at.getTime() - new Date(found.keyLastUsedAt).getTime() > 60_000) await repo.touch(db, found.keyId, at);
      return { user: found.user, ip: client.ip, sessionId: null, apiKeyId: found.keyId };
    },

    /** Counts a call against its key's rate; 429 past it. */
    checkRate: (c: KeyCaller) => limiter.count(`apikey:${c.apiKeyId}`, rate),

    /** The call log: one row per call made with a key, with its answer's status. */
    logCall: (c: { keyId: number; userId: number; method: string; path: string; statusCode: number; ip: string | null }) => repo.logCall(db, c),
  };
}

export type ApiKeysService = ReturnType<typeof createApiKeysService>;
