import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { type FormEvent, useEffect, useState } from 'react';
import { useCodeField } from '../lib/second-factor-code';
import { useStepUp } from '../lib/step-up';
import { AppDialog } from './app-dialog';
import { TwoFactorCodeField } from './two-factor-code-field';

/** The code from the authenticator app, asked when a call needs the second factor (lib/step-up). */
export default function StepUpDialog() {
  const prompt = useStepUp((s) => s.prompt);
  const answer = useStepUp((s) => s.answer);
  const codeField = useCodeField();
  const code = codeField.code;
  const [shown, setShown] = useState(prompt);
  if (prompt !== shown) {
    setShown(prompt);
    codeField.clear();
  }
  // Asked again after a wrong code: the cursor back in the emptied field (the dialog stayed, so autoFocus did not fire).
  const { focus } = codeField;
  useEffect(() => {
    if (shown?.retried) focus();
  }, [shown, focus]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!code.trim()) return;
    // A code that cannot be one (letters of another script, too short) is said under the field, not sent.
    const read = codeField.read();
    if (read !== undefined) answer(read);
  };
  return (
    <AppDialog
      open={prompt !== null}
      onClose={() => answer(null)}
      title="Подтвердите действие"
      testId="step-up-dialog"
      actions={
        <>
          <Button onClick={() => answer(null)}>Отмена</Button>
          <Button variant="contained" type="submit" form="step-up-form" disabled={!code.trim()}>
            Подтвердить
          </Button>
        </>
      }
    >
      <Stack component="form" id="step-up-form" onSubmit={submit} spacing={2}>
        {shown?.about && (
          <Typography sx={{ fontWeight: 500 }} data-testid="step-up-about">
            {shown.about}
          </Typography>
        )}
        {shown && <Alert severity={shown.retried ? 'error' : 'info'}>{shown.message}</Alert>}
        <TwoFactorCodeField {...codeField.field} />
      </Stack>
    </AppDialog>
  );
}
