import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { type FormEvent, useState } from 'react';
import { useStepUp } from '../lib/step-up';
import { AppDialog } from './app-dialog';
import { TwoFactorCodeField } from './two-factor-code-field';

/** The code from the authenticator app, asked when a call needs the second factor (lib/step-up). */
export default function StepUpDialog() {
  const prompt = useStepUp((s) => s.prompt);
  const answer = useStepUp((s) => s.answer);
  const [code, setCode] = useState('');
  const [shown, setShown] = useState(prompt);
  if (prompt !== shown) {
    setShown(prompt);
    setCode('');
  }
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (code.trim()) answer(code);
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
        <TwoFactorCodeField value={code} onChange={setCode} />
      </Stack>
    </AppDialog>
  );
}
