import Button from '@mui/material/Button';
import DialogContentText from '@mui/material/DialogContentText';
import { AppDialog } from '../components/app-dialog';

/** Asked inside Telegram when the app is signed in as someone other than the Telegram user who opened it. */
export default function TelegramSwitchDialog(props: {
  open: boolean;
  telegramName: string;
  currentName: string;
  onConfirm(): void;
  onCancel(): void;
}) {
  return (
    <AppDialog
      open={props.open}
      onClose={props.onCancel}
      title={`Войти как ${props.telegramName}?`}
      testId="telegram-switch-dialog"
      describe
      actions={
        <>
          <Button onClick={props.onCancel}>Остаться</Button>
          <Button variant="contained" onClick={props.onConfirm}>
            Войти
          </Button>
        </>
      }
    >
      <DialogContentText>
        Сейчас вы вошли как {props.currentName}. Если войти через Telegram, этот аккаунт в приложении сменится.
      </DialogContentText>
    </AppDialog>
  );
}
