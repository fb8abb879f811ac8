import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { ServerPicker } from '../../features/servers/components/server-picker';

export function HomeRoute() {
  return (
    <Stack spacing={3}>
      <div>
        <Typography variant="h1" gutterBottom>
          Кошелёк адены
        </Typography>
        <Typography color="text.secondary">
          Пополняйте и выводите адену и монеты эйнхасад через кассира сервиса и превращайте баланс в подарочные коды.
        </Typography>
      </div>
      <ServerPicker />
    </Stack>
  );
}
