import { PASSKEYS_MAX, passkeyRegisterVerify, TWO_FACTOR_MESSAGES } from '@adena/contract';
import DeleteIcon from '@mui/icons-material/DeleteOutlined';
import KeyIcon from '@mui/icons-material/Key';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import IconButton from '@mui/material/IconButton';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemIcon from '@mui/material/ListItemIcon';
import ListItemText from '@mui/material/ListItemText';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useState } from 'react';
import { ConfirmDialog } from '../../../components/confirm-dialog';
import { CurrentPasswordField } from '../../../components/current-password-field';
import { useFormErrors } from '../../../hooks/use-form-errors';
import { ApiError } from '../../../lib/api-client';
import { useUser } from '../../../lib/session';
import { needsStepUp } from '../../../lib/step-up';
import { usePasskeyDelete } from '../api/passkey-delete';
import { usePasskeyRegister } from '../api/passkey-register';
import { usePasskeys } from '../api/passkeys-list';
import { LoadFailed } from '../../../components/load-failed';

const dateOf = (iso: string) => new Date(iso).toLocaleDateString('ru-RU', { day: 'numeric', month: 'long', year: 'numeric' });

/**
 * The profile's passkeys: list, add with a name, remove. A passkey signs in without a password or code,
 * so adding one asks for the TOTP code (the step-up prompt) or, without TOTP, the current password.
 */
export function PasskeysSection() {
  const list = usePasskeys();
  const keys = list.data ?? [];
  const { user } = useUser();
  const register = usePasskeyRegister();
  const remove = usePasskeyDelete();
  const f = useFormErrors();
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const askPassword = user?.two_factor === false;
  // A removal asks first: a key removed by a slip signs nobody in, and only its device can add it again.
  const [removing, setRemoving] = useState<{ id: number; name: string } | null>(null);
  const removeIt = () => {
    if (!removing) return;
    remove.mutate(removing.id);
    setRemoving(null);
  };
  // A step-up prompt the player cancelled is no error, as for a removal.
  const error =
    register.error && !needsStepUp(register.error)
      ? register.error instanceof ApiError
        ? f.fieldError('password')
          ? null
          : register.error.message
        : (register.error as Error).name === 'NotAllowedError'
          ? 'Добавление ключа отменено'
          : 'Браузер не смог создать ключ доступа'
      : null;
  // A refused removal is said (a 429, a key already gone, no connection); a step-up prompt the player cancelled is not.
  const removeError =
    remove.error && !needsStepUp(remove.error)
      ? remove.error instanceof ApiError
        ? remove.error.message
        : 'Нет связи: ключ не удалён. Попробуйте ещё раз'
      : null;
  function add() {
    f.clear();
    // The name is checked before the browser's prompt: refused after it, the device would keep a key the
    // server never recorded (an emoji joined by a zero-width joiner is such a name).
    const named = f.validate(passkeyRegisterVerify.body.pick({ name: true }), { name: name.trim() || undefined });
    if (!named) return;
    register.mutateAsync({ name: named.name, password: (askPassword && password) || undefined }).then(
      () => {
        setName('');
        setPassword('');
      },
      (err: unknown) => {
        if (err instanceof ApiError && err.fieldErrors.password) f.fromError(err);
      },
    );
  }
  return (
    <Paper variant="outlined" component="section" aria-labelledby="passkeys-title" sx={{ p: { xs: 2, sm: 3 } }}>
      <Stack spacing={1.5}>
        <Typography id="passkeys-title" variant="h2" sx={{ fontSize: 20 }}>
          Ключи доступа
        </Typography>
        <Typography color="textSecondary">Вход отпечатком, лицом или PIN-кодом устройства — без пароля и кода.</Typography>
        {list.isError && <LoadFailed query={list} testId="passkeys-load-error" />}
        {keys.length > 0 && (
          <List dense data-testid="passkeys-list">
            {keys.map((k) => (
              <ListItem
                key={k.id}
                secondaryAction={
                  <IconButton edge="end" aria-label={`Удалить ключ «${k.name}»`} disabled={remove.isPending} onClick={() => setRemoving({ id: k.id, name: k.name })}>
                    <DeleteIcon />
                  </IconButton>
                }
              >
                <ListItemIcon>
                  <KeyIcon />
                </ListItemIcon>
                <ListItemText primary={k.name} secondary={`Добавлен ${dateOf(k.created_at)}`} />
              </ListItem>
            ))}
          </List>
        )}
        {removeError && (
          <Alert severity="error" data-testid="passkey-remove-error">
            {removeError}
          </Alert>
        )}
        {error && <Alert severity="error">{error}</Alert>}
        {keys.length >= PASSKEYS_MAX ? (
          <Typography variant="body2" color="textSecondary" data-testid="passkeys-full">
            {TWO_FACTOR_MESSAGES.passkeysMax}
          </Typography>
        ) : (
        <Stack spacing={1.5}>
          {askPassword && (
            <CurrentPasswordField compact testId="passkey-password" value={password} onChange={setPassword} error={f.fieldError('password')} />
          )}
          <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1}>
            <TextField
              size="small"
              sx={{ minWidth: { sm: 280 } }}
              label="Название (необязательно)"
              value={name}
              onChange={(e) => setName(e.target.value)}
              error={Boolean(f.fieldError('name'))}
              helperText={f.fieldError('name')}
              slotProps={{ htmlInput: { maxLength: 64 } }}
            />
            <Button variant="outlined" startIcon={<KeyIcon />} disabled={register.isPending} onClick={add}>
              Добавить ключ доступа
            </Button>
          </Stack>
        </Stack>
        )}
      </Stack>
      <ConfirmDialog
        open={removing !== null}
        onClose={() => setRemoving(null)}
        onConfirm={removeIt}
        title={removing ? `Удалить ключ «${removing.name}»?` : ''}
        confirmLabel="Удалить"
        danger
        testId="passkey-remove-dialog"
      >
        Войти этим ключом больше не получится. Устройство может и дальше предлагать его при входе — удалите ключ и в настройках устройства.
      </ConfirmDialog>
    </Paper>
  );
}
