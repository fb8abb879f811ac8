import { activationCode } from '@adena/contract';
import { ACTIVATION_ALERT_TIMEOUT_MS } from '@adena/contract/lite';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import { useState } from 'react';
import { useFormErrors } from '../../../hooks/use-form-errors';
import { useUi } from '../../../lib/ui-store';
import { useUser } from '../../../lib/session';
import { useActivationCode } from '../api/activation-code';
import { aden, alertList } from './code-format';

/** Activation by code; the server's errors show in the alert dialog for ACTIVATION_ALERT_TIMEOUT_MS (SPEC.md section 9). */
export function ActivationForm({ serverName }: { serverName: (id: number) => string | undefined }) {
  const { isSignedIn } = useUser();
  const openDialog = useUi((s) => s.openDialog);
  const alert = useUi((s) => s.alert);
  const snackbar = useUi((s) => s.showSnackbar);
  const activate = useActivationCode();
  const f = useFormErrors();
  const [text, setText] = useState('');
  return (
    <Stack
      component="form"
      direction={{ xs: 'column', sm: 'row' }}
      spacing={1}
      sx={{ alignItems: { sm: 'flex-start' } }}
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        f.clear();
        if (!isSignedIn) return openDialog({ name: 'not_signed_in' });
        const body = f.validate(activationCode.body, { sert: text });
        if (!body) return;
        activate.mutate(body.sert, {
          onSuccess: ({ success }) => {
            setText('');
            const where = serverName(success.gamesserver_id);
            snackbar(`Код активирован: +${aden(success.nominal)}${where ? ` на ${where}` : ''}`);
          },
          onError: (err) => {
            const { text: title, errors } = alertList('Код не активирован', err);
            alert(title, errors, ACTIVATION_ALERT_TIMEOUT_MS);
          },
        });
      }}
    >
      <TextField
        label="Код"
        placeholder="ADN-XXXX-XXXX-XXXX-XXXX"
        value={text}
        onChange={(e) => setText(e.target.value)}
        error={Boolean(f.fieldError('sert'))}
        helperText={f.fieldError('sert') ?? 'Адена поступит на ваш кошелёк на сервере кода'}
        fullWidth
        autoComplete="off"
        slotProps={{ htmlInput: { 'data-testid': 'activation-input', spellCheck: false, autoCapitalize: 'characters' } }}
      />
      <Button type="submit" variant="contained" size="large" disabled={activate.isPending} sx={{ flexShrink: 0, minHeight: 56 }}>
        Активировать
      </Button>
    </Stack>
  );
}
