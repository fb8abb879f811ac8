import { createApiKey, errorMessage } from '@adena/contract';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemText from '@mui/material/ListItemText';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { type FormEvent, useState } from 'react';
import { ConfirmDialog } from '../../../components/confirm-dialog';
import { CurrentPasswordField } from '../../../components/current-password-field';
import { useFormErrors } from '../../../hooks/use-form-errors';
import { ApiError, refusedForSure } from '../../../lib/api-client';
import { needsStepUp } from '../../../lib/step-up';
import { sentence } from '../../../utils/sentence';
import { useUser } from '../../../lib/session';
import { useApiKeys, useCreateApiKey, useRevokeApiKey } from '../api/api-keys';
import { dateTime, ShownOnce } from './shown-once';
import { LoadFailed } from '../../../components/load-failed';

/**
 * API keys: create with a name (shown once), list by prefix and last use, revoke. A key issues codes
 * and outlives logout and a password change, so creating one asks for the TOTP code (the step-up
 * prompt) or, without TOTP, the current password (README "Second factors").
 */
export function ApiKeysSection() {
  const list = useApiKeys();
  const { data: keys, isPending } = list;
  const { user } = useUser();
  const create = useCreateApiKey();
  const revoke = useRevokeApiKey();
  const f = useFormErrors();
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  // Every key created on this screen, each shown once until closed on its own: a second key must not
  // take the first one's secret off the screen, which nothing can show again.
  const [fresh, setFresh] = useState<Array<{ id: number; name: string; key: string }>>([]);
  const forget = (id: number) => setFresh((cur) => cur.filter((k) => k.id !== id));
  const askPassword = user?.two_factor === false;
  const [revoking, setRevoking] = useState<{ id: number; name: string } | null>(null);
  const [revokeError, setRevokeError] = useState<string | null>(null);
  const revokeIt = () => {
    if (!revoking) return;
    const k = revoking;
    setRevoking(null);
    setRevokeError(null);
    // A refusal (no connection, a 503) is said: the seller must not believe a leaked key is revoked.
    revoke.mutate(k.id, {
      // A revoked key's secret opens nothing: it leaves the screen with the key.
      onSuccess: () => forget(k.id),
      onError: (err) =>
        setRevokeError(
          // A refusal for sure (4xx) says so; a lost answer or a 5xx may have revoked it: the list, read again, tells.
          `${refusedForSure(err) ? `Ключ «${k.name}» не отозван.` : `Не удалось подтвердить, что ключ «${k.name}» отозван: проверьте список.`} ${sentence(err instanceof ApiError ? err.message : errorMessage('INTERNAL'))}`,
        ),
    });
  };
  // Refusals that name no field of this form (the cap of keys, a stale session) are said under the name.
  const nameError = f.fieldError('name') ?? f.formError;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    f.clear();
    const body = f.validate(createApiKey.body, { name, password: (askPassword && password) || undefined });
    if (!body) return;
    try {
      const k = await create.mutateAsync(body);
      setFresh((cur) => [...cur, { id: k.id, name: k.name, key: k.key }]);
      setName('');
      setPassword('');
    } catch (err) {
      // A step-up prompt the player cancelled is no error.
      if (!needsStepUp(err)) f.fromError(err, ['name', 'password']);
    }
  };

  return (
    <Stack spacing={1.5} component="section" aria-labelledby="api-keys-title">
      <Typography variant="h2" id="api-keys-title" sx={{ fontSize: 20 }}>
        API-ключи
      </Typography>
      <Typography color="textSecondary" variant="body2">
        Ключ открывает ваши коды программе продавца через /api/v1. Храните его как пароль; ненужный отзовите.
      </Typography>
      {fresh.map((k) => (
        <ShownOnce key={k.id} label={`Новый ключ «${k.name}»`} value={k.key} onClose={() => forget(k.id)} />
      ))}
      <Stack component="form" spacing={1.5} onSubmit={submit} noValidate>
        {askPassword && (
          <CurrentPasswordField compact testId="api-key-password" value={password} onChange={setPassword} error={f.fieldError('password')} />
        )}
        <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1}>
          <TextField
            size="small"
            label="Название ключа"
            placeholder="Например, FunPay-бот"
            value={name}
            onChange={(e) => setName(e.target.value)}
            error={Boolean(nameError)}
            helperText={nameError ?? ' '}
            sx={{ flex: 1 }}
          />
          <Button type="submit" variant="contained" disabled={create.isPending} sx={{ alignSelf: { sm: 'flex-start' }, height: 40 }}>
            Создать ключ
          </Button>
        </Stack>
      </Stack>
      {list.isError && <LoadFailed query={list} testId="api-keys-load-error" />}
      {!isPending && keys?.length === 0 && <Alert severity="info" role="status">Ключей пока нет.</Alert>}
      {keys && keys.length > 0 && (
        <Paper variant="outlined">
          <List dense aria-label="API-ключи">
            {keys.map((k) => (
              <ListItem
                key={k.id}
                secondaryAction={
                  <Button
                    color="error"
                    size="small"
                    aria-label={`Отозвать ключ «${k.name}»`}
                    onClick={() => setRevoking({ id: k.id, name: k.name })}
                    disabled={revoke.isPending}
                  >
                    Отозвать
                  </Button>
                }
              >
                <ListItemText
                  primary={k.name}
                  secondary={`${k.prefix} · создан ${dateTime(k.created_at)} · ${k.last_used_at ? `использован ${dateTime(k.last_used_at)}` : 'ещё не использован'}`}
                  slotProps={{ secondary: { sx: { wordBreak: 'break-word', pr: 8 } } }}
                />
              </ListItem>
            ))}
          </List>
        </Paper>
      )}
      {revokeError && (
        <Alert severity="error" onClose={() => setRevokeError(null)}>
          {revokeError}
        </Alert>
      )}
      <ConfirmDialog
        open={revoking !== null}
        onClose={() => setRevoking(null)}
        onConfirm={revokeIt}
        title={revoking ? `Отозвать ключ «${revoking.name}»?` : ''}
        confirmLabel="Отозвать"
        danger
        testId="api-key-revoke-dialog"
      >
        Программа, которая работает с этим ключом, сразу перестанет получать доступ к вашим кодам. Вернуть ключ нельзя — только создать новый.
      </ConfirmDialog>
    </Stack>
  );
}
