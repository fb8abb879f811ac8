import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useState } from 'react';
import { AppDialog } from '../../../components/app-dialog';
import { useFocusFirstError } from '../../../hooks/use-focus-first-error';
import { useFormErrors } from '../../../hooks/use-form-errors';
import { latinKeys } from '../../../lib/keyboard-layout';
import { twoFactorRecoveryCodesBody, useNewRecoveryCodes } from '../api/two-factor-recovery-codes';
import { RecoveryCodes } from './recovery-codes';
import { SecondFactorCodeField } from './second-factor-code-field';

/**
 * New recovery codes for a code from the app (or a recovery code): the old list stops working. Once the new codes are
 * on screen only «Коды сохранены» closes the dialog (they are shown once), and nor can it be closed while the call is
 * on its way (its answer carries them).
 */
export function NewRecoveryCodesDialog({ open, onClose }: { open: boolean; onClose(): void }) {
  const f = useFormErrors();
  const firstError = useFocusFirstError<HTMLFormElement>();
  const renew = useNewRecoveryCodes();
  const [code, setCode] = useState('');
  const [codes, setCodes] = useState<string[] | null>(null);
  // Each opening starts empty: the code, the refusal and the codes of the last one are gone.
  const [wasOpen, setWasOpen] = useState(open);
  if (open !== wasOpen) {
    setWasOpen(open);
    if (open) {
      setCode('');
      setCodes(null);
      f.clear();
    }
  }
  const dismiss = () => {
    if (!renew.isPending && codes === null) onClose();
  };
  async function submit(e: React.FormEvent) {
    e.preventDefault();
    f.clear();
    // A recovery code typed on the Russian layout reads as the Latin keys it was typed with.
    const body = f.validate(twoFactorRecoveryCodesBody, { code: latinKeys(code) });
    if (!body) return firstError.refused();
    try {
      setCodes((await renew.mutateAsync(body.code)).recovery_codes);
    } catch (err) {
      f.fromError(err);
      // «Получить» was disabled while the call ran: focus to the code field that says why.
      firstError.refused();
    }
  }
  return (
    <AppDialog
      open={open}
      onClose={dismiss}
      title="Новые резервные коды"
      testId="new-recovery-codes-dialog"
      actions={
        codes ? (
          <Button variant="contained" onClick={onClose}>
            Коды сохранены
          </Button>
        ) : (
          <>
            <Button onClick={onClose} disabled={renew.isPending}>
              Отмена
            </Button>
            <Button type="submit" form="new-recovery-codes-form" variant="contained" disabled={renew.isPending}>
              Получить
            </Button>
          </>
        )
      }
    >
      {codes ? (
        <RecoveryCodes codes={codes} />
      ) : (
        <Stack component="form" id="new-recovery-codes-form" ref={firstError.ref} noValidate onSubmit={submit} spacing={2} sx={{ pt: 1 }}>
          {f.formError && <Alert severity="error">{f.formError}</Alert>}
          <Typography>Старые резервные коды перестанут работать, даже неиспользованные. Подтвердите кодом из приложения или одним из старых резервных кодов.</Typography>
          <SecondFactorCodeField value={code} onChange={setCode} error={f.fieldError('code')} />
        </Stack>
      )}
    </AppDialog>
  );
}
