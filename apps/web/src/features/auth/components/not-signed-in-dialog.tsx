import Button from '@mui/material/Button';
import { useLocation } from 'wouter';
import { AppDialog } from '../../../components/app-dialog';
import { rememberReturnTo } from '../../../lib/return-to';
import { useUi } from '../../../lib/ui-store';

export function NotSignedInDialog() {
  const open = useUi((s) => s.dialog.name === 'not_signed_in');
  const close = useUi((s) => s.closeDialog);
  const [, navigate] = useLocation();
  return (
    <AppDialog
      open={open}
      onClose={close}
      title="Вы не авторизованы"
      describe
      actions={
        <>
          <Button onClick={close}>Позже</Button>
          <Button
            variant="contained"
            onClick={() => {
              close();
              rememberReturnTo();
              navigate('/auth/login_methods/email');
            }}
          >
            Войти
          </Button>
        </>
      }
    >
      Необходимо выполнить вход
    </AppDialog>
  );
}
