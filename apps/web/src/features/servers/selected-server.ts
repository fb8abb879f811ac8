import { useLocalState } from '../../lib/local-state';

const parse = (raw: string | null) => {
  const n = Number(raw);
  return Number.isInteger(n) && n > 0 ? n : null;
};
const serialize = (id: number | null) => (id === null ? null : String(id));

/** The chosen game server, kept in local storage and shared by every component. */
export const useSelectedGameServerId = () => useLocalState('gamesserver_id', parse, serialize);
