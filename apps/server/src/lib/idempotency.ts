import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Trx } from '../db/schema';
import { AppError } from './app-error';
import { idempotencyRepository as repo } from './idempotency.repository';

/** The Idempotency-Key header of a money call, with what identifies the request it was first used for. */
export interface IdempotencyKey {
  key: string;
  method: string;
  path: string;
  /** SHA-256 of method, path and body: the same key with another request is refused. */
  hash: string;
  /**
   * Set when the call was let through without its step-up because the key already held its answer
   * (a retry): should the claim turn out fresh after all, this refusal is thrown and nothing moves.
   */
  freshRefused?: () => Error;
}

/** The web client's Idempotency-Key on money calls; a malformed one is a 422, not a silent no-op. */
export function idempotencyKey(request: FastifyRequest): IdempotencyKey | undefined {
  const raw = request.headers['idempotency-key'];
  if (raw === undefined) return undefined;
  const key = Array.isArray(raw) ? raw[0] : raw;
  if (!key || key.length > 100) throw new AppError('VALIDATION', { errors: { 'Idempotency-Key': ['Ключ повтора — от 1 до 100 символов'] } });
  const path = request.routeOptions.url ?? request.url;
  const hash = createHash('sha256').update(`${request.method} ${request.url}\n${JSON.stringify(request.body ?? null)}`).digest('hex');
  return { key, method: request.method, path, hash };
}

/** The answer to a key already used for another request (or, in SQL, SQLSTATE AWKEY). */
export const keyReused = () =>
  new AppError('CONFLICT', { message: 'Этот запрос уже отправлялся с другими данными: проверьте историю, не прошёл ли первый, и отправьте снова', errors: { _: ['Проверьте историю и отправьте снова'] } });

/** Thrown by `claimKey` when the key already holds a finished answer; `once` turns it into that answer. */
class Replay {
  constructor(readonly answer: unknown) {}
}

/**
 * Claims an Idempotency-Key in the call's own transaction (idempotency_claim, db/functions/
 * idempotency.sql): a parallel retry waits on the claim and, once the first call commits, gets
 * its stored answer instead of moving money again. A failed call rolls its claim back and may be
 * retried as new.
 */
export async function claimKey(trx: Trx, userId: number, idem: IdempotencyKey | undefined) {
  if (!idem) return;
  const answer = await repo.claim(trx, userId, idem).catch((err: { code?: string }) => {
    throw err?.code === 'AWKEY' ? keyReused() : err;
  });
  if (answer !== null) throw new Replay(answer);
  if (idem.freshRefused) throw idem.freshRefused();
}

/** Whether the caller's key already holds the stored answer of this very call (a retry that will be replayed). */
export function keyAnswered(db: Parameters<typeof repo.answered>[0], userId: number, idem: IdempotencyKey) {
  return repo.answered(db, userId, idem);
}

/** Stores the answer under the claimed key, in the same transaction as the movement it describes. */
export async function storeKey(trx: Trx, userId: number, idem: IdempotencyKey | undefined, answer: unknown) {
  if (!idem) return;
  await repo.store(trx, userId, idem.key, answer);
}

/** Runs a call that claims its key; a replay answers the stored first answer. */
export async function once<A>(run: () => Promise<A>): Promise<A> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof Replay) return err.answer as A;
    throw err;
  }
}
