import Alert from '@mui/material/Alert';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { TotpSetup } from './totp-setup';

/** An operator without TOTP: admin calls answer two_factor_setup_required until it is on, so the area starts here. */
export function AdminTwoFactorWalkthrough({ onDone }: { onDone: () => void }) {
  return (
    <Paper variant="outlined" sx={{ p: { xs: 2, sm: 3 }, maxWidth: 640, mx: 'auto' }} data-view="admin-two-factor-setup">
      <Stack spacing={2}>
        <Typography variant="h1">Защитите вход оператора</Typography>
        <Alert severity="info">
          Операторы зачисляют и выводят деньги игроков, поэтому админка открывается только со вторым фактором: кодом из
          приложения-аутентификатора. Это займёт минуту.
        </Alert>
        <TotpSetup onDone={onDone} />
      </Stack>
    </Paper>
  );
}
