import Divider from '@mui/material/Divider';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useUser } from '../../../lib/session';
import { ChangePasswordForm } from './change-password-form';
import { SessionsList } from './sessions-list';

/**
 * The profile's «Безопасность» section: signed-in devices and the password. An account made by Telegram or
 * Discord sign-in has no password: it is told so instead of a change form that could only be refused. Only a
 * known `false` hides the form (an offline copy of the user kept by an older version has no `has_password`).
 */
export function SecuritySection() {
  const { user } = useUser();
  return (
    <Paper variant="outlined" component="section" aria-labelledby="security-title" sx={{ p: { xs: 2, sm: 3 } }}>
      <Stack spacing={3}>
        <Typography variant="h2" id="security-title" sx={{ fontSize: '1.375rem', fontWeight: 600 }}>
          Безопасность
        </Typography>
        <SessionsList />
        <Divider />
        {user?.has_password === false ? (
          <Typography color="textSecondary" data-testid="no-password">
            Вы входите через Telegram или Discord, пароля у аккаунта нет.
          </Typography>
        ) : (
          <ChangePasswordForm />
        )}
      </Stack>
    </Paper>
  );
}
