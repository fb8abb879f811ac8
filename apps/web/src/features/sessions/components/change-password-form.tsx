import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import Alert from '@mui/material/Alert';
import { useState } from 'react';
import { useFocusFirstError } from '../../../hooks/use-focus-first-error';
import { useFocusAfterRemoval } from '../../../hooks/use-focus-after-removal';
import { useFormErrors } from '../../../hooks/use-form-errors';
import { useUi } from '../../../lib/ui-store';
import { changePasswordBodySchema, useChangePassword } from '../api/change-password';

const FOCUS_KEY = 'form';

/** «Смена пароля»: the current password, then the new one twice; every other session ends. */
export function ChangePasswordForm() {
  const f = useFormErrors();
  const change = useChangePassword();
  const snackbar = useUi((s) => s.showSnackbar);
  const [values, setValues] = useState({ password: '', new_password: '', new_password_confirmation: '' });
  // «Сменить пароль» is disabled while the change is on its way, and Chromium drops focus from it to <body>: once the
  // answer is shown (the fields emptied, or an error under one) focus goes back to the button (useFocusAfterRemoval).
  const focusFrom = useFocusAfterRemoval('change-password');
  const firstError = useFocusFirstError<HTMLFormElement>();
  const set = (k: keyof typeof values) => (e: React.ChangeEvent<HTMLInputElement>) => setValues((v) => ({ ...v, [k]: e.target.value }));

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    f.clear();
    const body = f.validate(changePasswordBodySchema, values);
    if (!body) return firstError.refused();
    const spot = focusFrom(FOCUS_KEY, 'submit');
    try {
      await change.mutateAsync(body);
      setValues({ password: '', new_password: '', new_password_confirmation: '' });
      snackbar('Пароль изменён. Все другие сеансы завершены');
    } catch (err) {
      f.fromError(err);
      // Refused: to the field that says why (a wrong current password), not to the button below it.
      firstError.refused();
    } finally {
      spot.back();
    }
  }

  const field = (name: keyof typeof values, label: string, autoComplete: string) => (
    <TextField
      label={label}
      type="password"
      autoComplete={autoComplete}
      value={values[name]}
      onChange={set(name)}
      error={Boolean(f.fieldError(name))}
      helperText={f.fieldError(name)}
      size="small"
    />
  );

  return (
    <Stack
      spacing={2}
      component="form"
      noValidate
      onSubmit={submit}
      ref={firstError.ref}
      aria-labelledby="change-password-title"
      sx={{ maxWidth: 420 }}
      data-focus-row="change-password"
      data-focus-key={FOCUS_KEY}
    >
      <Typography variant="h3" id="change-password-title" sx={{ fontSize: '1.125rem', fontWeight: 600 }}>
        Смена пароля
      </Typography>
      {f.formError && <Alert severity="error">{f.formError}</Alert>}
      {field('password', 'Текущий пароль', 'current-password')}
      {field('new_password', 'Новый пароль', 'new-password')}
      {field('new_password_confirmation', 'Новый пароль ещё раз', 'new-password')}
      <Typography variant="body2" color="textSecondary">
        После смены пароля все другие устройства выйдут из аккаунта.
      </Typography>
      <Button type="submit" variant="contained" disabled={change.isPending} sx={{ alignSelf: 'flex-start' }} data-focus-action="submit">
        Сменить пароль
      </Button>
    </Stack>
  );
}
