import Alert from '@mui/material/Alert';
import FormControl from '@mui/material/FormControl';
import InputLabel from '@mui/material/InputLabel';
import MenuItem from '@mui/material/MenuItem';
import Select from '@mui/material/Select';
import Skeleton from '@mui/material/Skeleton';
import { useGamesservers } from '../api/get-gamesservers';
import { useSelectedServerId } from '../selected-server';

export function ServerPicker() {
  const { data, isPending, isError } = useGamesservers();
  const [selected, setSelected] = useSelectedServerId();
  if (isPending) return <Skeleton variant="rounded" height={56} />;
  if (isError) return <Alert severity="error">Не удалось загрузить список серверов. Обновите страницу.</Alert>;
  const value = data.some((s) => s.id === selected) ? String(selected) : '';
  return (
    <FormControl fullWidth>
      <InputLabel id="server-picker-label">Игровой сервер</InputLabel>
      <Select
        labelId="server-picker-label"
        label="Игровой сервер"
        value={value}
        onChange={(e) => setSelected(Number(e.target.value))}
        data-testid="server-picker"
      >
        {data.map((s) => (
          <MenuItem key={s.id} value={String(s.id)}>
            {s.name}
          </MenuItem>
        ))}
      </Select>
    </FormControl>
  );
}
