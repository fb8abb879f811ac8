import { activationCode } from '@adena/contract';
import { errorMessage } from '@adena/contract/lite';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import { useEffect, useRef, useState } from 'react';
import { ApiError } from '../../../lib/api-client';
import { useFormErrors } from '../../../hooks/use-form-errors';
import { useUi } from '../../../lib/ui-store';
import { useUser } from '../../../lib/session';
import { useUnsavedInput } from '../../../lib/telegram-back';
import { USER_READ_FAILED_ACTION } from '../../../components/user-read-failed';
import { useActivationCode } from '../api/activation-code';
import { aden } from './code-format';

/**
 * Activation by code. A refusal shows once, under the field, and stays until the player edits the
 * code: a one-second alert was too short to read on a phone and repeated the message twice.
 */
export function ActivationForm({ serverName }: { serverName: (id: number) => string | undefined }) {
  const { isSignedIn, readFailed } = useUser();
  const openDialog = useUi((s) => s.openDialog);
  const alert = useUi((s) => s.alert);
  const snackbar = useUi((s) => s.showSnackbar);
  const activate = useActivationCode();
  const f = useFormErrors();
  const [text, setText] = useState('');
  const [refusal, setRefusal] = useState<string | null>(null);
  // A typed code not yet activated: Telegram asks before the mini app closes.
  useUnsavedInput(text.trim() !== '');
  const error = f.fieldError('sert') ?? refusal ?? undefined;
  // The form is keyed by server: switched meanwhile, it is gone, and a refusal has no field to show under.
  const mounted = useRef(false);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);
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
        setRefusal(null);
        if (!isSignedIn) return readFailed ? alert(USER_READ_FAILED_ACTION) : openDialog({ name: 'not_signed_in' });
        const body = f.validate(activationCode.body, { sert: text });
        if (!body) return;
        // mutateAsync, not mutate's callbacks: TanStack skips those once this form unmounted (the player
        // switched server before the answer), and the adena arrived all the same.
        void activate.mutateAsync(body.sert).then(
          ({ success }) => {
            setText('');
            const where = serverName(success.gamesserver_id);
            snackbar(`Код активирован: +${aden(success.nominal)}${where ? ` на ${where}` : ''}`);
          },
          (err: unknown) => {
            // The field's own message when the server names one (it is the fuller text), else the answer's.
            const why = err instanceof ApiError ? (err.fieldErrors.sert?.[0] ?? err.message) : errorMessage('INTERNAL');
            if (mounted.current) setRefusal(why);
            else snackbar(`Код не активирован: ${why.charAt(0).toLowerCase()}${why.slice(1)}`, 'error');
          },
        );
      }}
    >
      <TextField
        label="Код"
        placeholder="ADN-XXXX-XXXX-XXXX-XXXX"
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          f.clear();
          setRefusal(null);
        }}
        error={Boolean(error)}
        helperText={error ?? 'Адена поступит на ваш кошелёк на сервере кода'}
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
