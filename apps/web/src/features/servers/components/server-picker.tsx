import Alert from '@mui/material/Alert';
import Skeleton from '@mui/material/Skeleton';
import { OutlinedNativeSelect } from '../../../components/outlined-native-select';
import { useGamesservers } from '../../../lib/gamesservers';
import { SERVERS_READ_FAILED, useSelectedGameServerId } from '../selected-server';

/**
 * The game server choice. A native select: the phone's own picker (also inside Telegram), and
 * none of MUI's Menu/Popover/Modal or input code on the first page.
 */
export function ServerPicker() {
  const { data, isPending, isError } = useGamesservers();
  const [selected, setSelected] = useSelectedGameServerId();
  if (isPending) return <Skeleton variant="rounded" height={56} />;
  if (isError) return <Alert severity="error">{SERVERS_READ_FAILED}</Alert>;
  const value = data.some((s) => s.id === selected) ? String(selected) : '';
  return (
    <OutlinedNativeSelect id="server-picker" label="Игровой сервер" value={value} onChange={(e) => setSelected(Number(e.target.value))} data-testid="server-picker">
      {value === '' && (
        <option value="" disabled>
          Выберите сервер
        </option>
      )}
      {data.map((s) => (
        <option key={s.id} value={String(s.id)}>
          {s.name}
        </option>
      ))}
    </OutlinedNativeSelect>
  );
}
