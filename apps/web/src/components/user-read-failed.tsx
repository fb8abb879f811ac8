import { useRef } from 'react';
import { useUser } from '../lib/session';
import { LoadFailed } from './load-failed';

/** Said where a screen needs the signed-in user and its read failed (useUser's `readFailed`). */
export const USER_READ_FAILED = 'Не удалось загрузить данные вашего аккаунта.';

/** What an action that needs the user says while its read has failed (not «Вы не авторизованы»). */
export const USER_READ_FAILED_ACTION = `${USER_READ_FAILED} Повторите чуть позже.`;

/**
 * The user's read failed while a token is held (the service is down a moment, no connection): not «Войдите», which
 * would have a signed-in player sign in again. The reason, with «Повторить» reading the user again.
 */
export function UserReadFailed() {
  const { read } = useUser();
  // A re-read starts without the error (TanStack clears it): the reason stays on show until it answers.
  const last = useRef<unknown>(null);
  if (read.error) last.current = read.error;
  return <LoadFailed query={{ error: read.error ?? last.current, isFetching: read.isFetching, refetch: read.refetch }} testId="user-read-failed" lead={USER_READ_FAILED} />;
}
