import Divider from '@mui/material/Divider';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { ChangePasswordForm } from './change-password-form';
import { SessionsList } from './sessions-list';

/** The profile's «Безопасность» section: signed-in devices and the password. */
export function SecuritySection() {
  return (
    <Paper variant="outlined" component="section" aria-labelledby="security-title" sx={{ p: { xs: 2, sm: 3 } }}>
      <Stack spacing={3}>
        <Typography variant="h2" id="security-title" sx={{ fontSize: '1.375rem', fontWeight: 600 }}>
          Безопасность
        </Typography>
        <SessionsList />
        <Divider />
        <ChangePasswordForm />
      </Stack>
    </Paper>
  );
}
