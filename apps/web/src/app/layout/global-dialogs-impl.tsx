import { NO_SERVER_DIALOG_TIMEOUT_MS } from '@adena/contract/lite';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Snackbar from '@mui/material/Snackbar';
import Typography from '@mui/material/Typography';
import { useEffect } from 'react';
import { NotSignedInDialog } from '../../features/auth/components/not-signed-in-dialog';
import { useUi } from '../../lib/ui-store';
import { AppDialog } from '../../components/app-dialog';

/** Closes the current dialog after `ms`, if it is still the same one. */
function useAutoClose(active: boolean, ms: number | undefined) {
  const close = useUi((s) => s.closeDialog);
  useEffect(() => {
    if (!active || !ms) return;
    const t = setTimeout(close, ms);
    return () => clearTimeout(t);
  }, [active, ms, close]);
}

function NoServerDialog() {
  const open = useUi((s) => s.dialog.name === 'no_server');
  const close = useUi((s) => s.closeDialog);
  useAutoClose(open, NO_SERVER_DIALOG_TIMEOUT_MS);
  return (
    <AppDialog open={open} onClose={close} title="Вы не выбрали сервер" describe actions={<Button onClick={close}>Понятно</Button>}>
      Без выбора сервера Вы не можете пополнять или выводить адену и видеть баланс адены, подарочные коды и т. д.
    </AppDialog>
  );
}

function AlertDialog() {
  const dialog = useUi((s) => s.dialog);
  const close = useUi((s) => s.closeDialog);
  const open = dialog.name === 'alert';
  useAutoClose(open, open ? dialog.timeout : undefined);
  return (
    <AppDialog open={open} onClose={close} title={open ? dialog.text : ''} describe actions={<Button onClick={close}>Закрыть</Button>} testId="alert-dialog">
      {open &&
        dialog.errors.map((e) => (
          <Typography key={e} color="error">
            {e}
          </Typography>
        ))}
    </AppDialog>
  );
}

function AppSnackbar() {
  const snackbar = useUi((s) => s.snackbar);
  const close = useUi((s) => s.closeSnackbar);
  return (
    // Under any open dialog (MUI puts snackbars above modals): a notice arriving by realtime (a code
    // activated, a request decided) must not cover a dialog's buttons, which on a phone sit where it shows.
    // Keyed by the notice: a new one is mounted with its own timer, not left the time the one before had left.
    <Snackbar
      key={snackbar.id}
      open={snackbar.open}
      autoHideDuration={snackbar.timeout}
      onClose={close}
      anchorOrigin={{ vertical: 'bottom', horizontal: 'center' }}
      sx={{ zIndex: (theme) => theme.zIndex.modal - 1 }}
    >
      <Alert severity={snackbar.status} variant="filled" onClose={close} sx={{ width: '100%' }}>
        {snackbar.text}
      </Alert>
    </Snackbar>
  );
}

/** The dialogs any screen may open through the UI store; loaded on first use (see GlobalDialogs). */
export default function GlobalDialogsImpl() {
  return (
    <>
      <NotSignedInDialog />
      <NoServerDialog />
      <AlertDialog />
      <AppSnackbar />
    </>
  );
}
