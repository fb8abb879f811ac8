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
