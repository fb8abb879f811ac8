import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import useMediaQuery from '@mui/material/useMediaQuery';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { AppDialog } from '../../../components/app-dialog';
import { useFocusAfterRemoval } from '../../../hooks/use-focus-after-removal';
import { useFocusFirstError } from '../../../hooks/use-focus-first-error';
import { useFormErrors } from '../../../hooks/use-form-errors';
import { userQueryOptions, useUser } from '../../../lib/session';
import { useBackClosesDialog } from '../../../lib/telegram-back';
import { latinKeys } from '../../../lib/keyboard-layout';
import { twoFactorDisableBody, useTwoFactorDisable } from '../api/two-factor-disable';
import { NewRecoveryCodesDialog } from './new-recovery-codes-dialog';
import { SecondFactorCodeField } from './second-factor-code-field';
import { TotpSetup } from './totp-setup';

/** The section's buttons for useFocusAfterRemoval: one row, whichever buttons TOTP on or off shows. */
const FOCUS_KEY = 'totp';

/** The profile's second-factor section: TOTP on or off. */
export function TwoFactorSection() {
  const { user } = useUser();
  const [open, setOpen] = useState<'setup' | 'disable' | 'codes' | null>(null);
  // The recovery codes are on screen: they are shown once, so only «Коды сохранены» closes the dialog.
  const [codesShown, setCodesShown] = useState(false);
  // «Включить» is on its way: its answer carries the recovery codes, so the dialog cannot be closed meanwhile.
  const [sending, setSending] = useState(false);
  const fullScreen = useMediaQuery('(max-width:600px)');
  const qc = useQueryClient();
  // Held here, not in the form: while «Выключить» is on its way the dialog stays open, so a refusal is said in it.
  const disable = useTwoFactorDisable();
  // Turning TOTP on or off swaps the section's buttons under the dialog: MUI gives focus back to the button that
  // opened it, which is gone, and the next Tab started from the page's top. Focus goes to the button in its place.
  const focusFrom = useFocusAfterRemoval('two-factor', { busy: open !== null });
  const closeDisable = () => setOpen(null);
  const disabled = () => {
    focusFrom(FOCUS_KEY, 'disable', 'enable').done();
    closeDisable();
  };
  const dismissDisable = () => {
    if (!disable.isPending) closeDisable();
  };
  // However the setup dialog closes, the user object is read again (TOTP may be on now).
  const closeSetup = () => {
    // On now (the codes were shown): «Включить» gives way to «Новые резервные коды» and «Выключить».
    if (codesShown) focusFrom(FOCUS_KEY, 'enable', 'codes').done();
    setOpen(null);
    setCodesShown(false);
    void qc.invalidateQueries({ queryKey: userQueryOptions().queryKey });
  };
  // A tap beside the dialog, Escape or Telegram's back button, which would lose the codes unseen.
  const dismissSetup = () => {
    if (!codesShown && !sending) closeSetup();
  };
  // MUI's own dialog for the setup, which keeps its own width and actions; Telegram's back button closes it as AppDialog's.
  useBackClosesDialog(open === 'setup', dismissSetup);
  if (!user) return null;
  return (
    <Paper variant="outlined" component="section" aria-labelledby="two-factor-title" sx={{ p: { xs: 2, sm: 3 } }}>
      <Stack spacing={1.5}>
        <Typography id="two-factor-title" variant="h2" sx={{ fontSize: 20 }}>
          Вход с кодом из приложения
        </Typography>
        <Typography color="textSecondary">
          {user.two_factor
            ? 'Включён. При входе по паролю, выводе средств и показе кода спросим 6 цифр из приложения.'
            : 'Выключен. Включите, чтобы украденный пароль не открыл кошелёк: при входе и выводе средств понадобится код из приложения.'}
        </Typography>
        <div data-focus-row="two-factor" data-focus-key={FOCUS_KEY}>
          {user.two_factor ? (
            <Stack direction="row" useFlexGap sx={{ flexWrap: 'wrap', gap: 1 }}>
              <Button variant="outlined" onClick={() => setOpen('codes')} data-focus-action="codes">
                Новые резервные коды
              </Button>
              <Button color="error" variant="outlined" onClick={() => setOpen('disable')} data-focus-action="disable">
                Выключить
              </Button>
            </Stack>
          ) : (
            <Button variant="contained" onClick={() => setOpen('setup')} data-focus-action="enable">
              Включить
            </Button>
          )}
        </div>
      </Stack>
      <Dialog open={open === 'setup'} onClose={dismissSetup} fullScreen={fullScreen} maxWidth="sm" fullWidth>
        <DialogTitle>Вход с кодом из приложения</DialogTitle>
        <DialogContent>{open === 'setup' && <TotpSetup onDone={closeSetup} onCodesShown={() => setCodesShown(true)} onSending={setSending} />}</DialogContent>
        {!codesShown && (
          <DialogActions>
            <Button onClick={closeSetup} disabled={sending}>
              Закрыть
            </Button>
          </DialogActions>
        )}
      </Dialog>
      <DisableDialog open={open === 'disable'} disable={disable} onClose={closeDisable} onDone={disabled} onDismiss={dismissDisable} />
      <NewRecoveryCodesDialog open={open === 'codes'} onClose={() => setOpen(null)} />
    </Paper>
  );
}

/**
 * AppDialog (full screen on a phone); `onDismiss`: Escape, a tap beside it or Telegram's back button, refused while
 * «Выключить» is on its way; `onDone`: TOTP is off, the dialog closes.
 */
function DisableDialog({
  open,
  disable,
  onClose,
  onDone,
  onDismiss,
}: {
  open: boolean;
  disable: ReturnType<typeof useTwoFactorDisable>;
  onClose(): void;
  onDone(): void;
  onDismiss(): void;
}) {
  const f = useFormErrors();
  const firstError = useFocusFirstError<HTMLFormElement>();
  const [code, setCode] = useState('');
  // Each opening starts empty: the code and the refusal of the last one are gone.
  const [wasOpen, setWasOpen] = useState(open);
  if (open !== wasOpen) {
    setWasOpen(open);
    if (open) {
      setCode('');
      f.clear();
    }
  }
  async function submit(e: React.FormEvent) {
    e.preventDefault();
    f.clear();
    // A recovery code typed on the Russian layout reads as the Latin keys it was typed with.
    const body = f.validate(twoFactorDisableBody, { code: latinKeys(code) });
    if (!body) return firstError.refused();
    try {
      await disable.mutateAsync(body.code);
      onDone();
    } catch (err) {
      f.fromError(err);
      // «Выключить» was disabled while the call ran: focus to the code field that says why.
      firstError.refused();
    }
  }
  return (
    <AppDialog
      open={open}
      onClose={onDismiss}
      title="Выключить вход с кодом"
      testId="two-factor-disable-dialog"
      actions={
        <>
          <Button onClick={onClose} disabled={disable.isPending}>
            Отмена
          </Button>
          <Button type="submit" form="two-factor-disable-form" color="error" disabled={disable.isPending}>
            Выключить
          </Button>
        </>
      }
    >
      <Stack component="form" id="two-factor-disable-form" ref={firstError.ref} noValidate onSubmit={submit} spacing={2} sx={{ pt: 1 }}>
        {f.formError && <Alert severity="error">{f.formError}</Alert>}
        <SecondFactorCodeField value={code} onChange={setCode} error={f.fieldError('code')} />
      </Stack>
    </AppDialog>
  );
}
