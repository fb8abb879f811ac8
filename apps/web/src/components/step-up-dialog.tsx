import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { type FormEvent, useState } from 'react';
import { readSecondFactorCode } from '../lib/second-factor-code';
import { useStepUp } from '../lib/step-up';
import { AppDialog } from './app-dialog';
import { TwoFactorCodeField } from './two-factor-code-field';

/** The code from the authenticator app, asked when a call needs the second factor (lib/step-up). */
export default function StepUpDialog() {
  const prompt = useStepUp((s) => s.prompt);
  const answer = useStepUp((s) => s.answer);
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [shown, setShown] = useState(prompt);
  if (prompt !== shown) {
    setShown(prompt);
    setCode('');
    setError(null);
  }
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!code.trim()) return;
    // A code that cannot be one (letters of another script, too short) is said under the field, not sent.
    const read = readSecondFactorCode(code);
    if (read.error !== undefined) setError(read.error);
    else answer(read.code);
  };
  const edit = (typed: string) => {
    setCode(typed);
    setError(null);
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
        {shown && <Alert severity="info">{shown.message}</Alert>}
        <TwoFactorCodeField value={code} onChange={edit} error={error} />
      </Stack>
    </AppDialog>
  );
}
