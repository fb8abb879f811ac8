import type { Gamesserver } from '@adena/contract/lite';
import { type ServerWait, useGamesservers } from '../../lib/gamesservers';
import { holdLocalState, useLocalState } from '../../lib/local-state';
import { useUi } from '../../lib/ui-store';

const KEY = 'gamesserver_id';

const parse = (raw: string | null) => {
  const n = Number(raw);
  return Number.isInteger(n) && n > 0 ? n : null;
};
const serialize = (id: number | null) => (id === null ? null : String(id));

// A dialog open on this page acts on the server the page showed when it opened (a withdrawal, a code,
// a batch, VIP): another tab's choice of server waits until it closes, so the page, its dialog and
// the request it sends stay on one server.
holdLocalState(KEY, useUi.getState().dialog.name !== 'none');
useUi.subscribe((s) => holdLocalState(KEY, s.dialog.name !== 'none'));

/** The chosen game server, kept in local storage and shared by every component (and every tab, but not under an open dialog). */
export const useSelectedGameServerId = () => useLocalState(KEY, parse, serialize);

/** What the list of servers said when it could not be read (the picker and the tabs under it say the same). */
export const SERVERS_READ_FAILED = 'Не удалось загрузить список серверов. Обновите страницу.';


/**
 * The chosen server as the list read gives it, and, while there is none to show for a saved choice, why: the list
 * is still being read ('loading') or could not be read (`failed`, SERVERS_READ_FAILED). `wait` is null when no server
 * is saved or the saved one is not in the list read: only then is the player to choose one («Вы не выбрали сервер»).
 */
export function useSelectedServer(): { server: Gamesserver | undefined; wait: ServerWait } {
  const { data, isError } = useGamesservers();
  const [gameServerId] = useSelectedGameServerId();
  const server = data?.find((s) => s.id === gameServerId);
  return { server, wait: gameServerId === null || data ? null : isError ? { failed: SERVERS_READ_FAILED } : 'loading' };
}
