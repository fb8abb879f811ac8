import { AppError } from '../../lib/app-error';
import { apiKeysRepository as repo, type Q } from './api-keys.repository';

export const KEY_GONE = 'API-ключ не найден или отозван';

/**
 * For a seller's call made with an API key, first in the transaction of what it buys: holds the key's user and the
 * key, and refuses (401) when the key was revoked or its user blocked meanwhile. The key is checked as the call
 * arrives; a revoke or a block (with `revoke_keys`) committed while the call waited for one of those rows would
 * otherwise be passed by, and codes paid from the seller's wallet issued to whoever holds the key.
 */
export async function requireLiveKey(trx: Q, userId: number, keyId: number) {
  if (!(await repo.holdLiveKey(trx, userId, keyId))) throw new AppError('UNAUTHENTICATED', { message: KEY_GONE });
}
