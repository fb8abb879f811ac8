import { createApiKey } from '@adena/contract';
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
import { ApiError } from '../../../lib/api-client';
import { useApiKeys, useCreateApiKey, useRevokeApiKey } from '../api/api-keys';
import { dateTime, ShownOnce } from './shown-once';

/** API keys: create with a name (shown once), list by prefix and last use, revoke. */
export function ApiKeysSection() {
  const { data: keys, isPending } = useApiKeys();
  const create = useCreateApiKey();
  const revoke = useRevokeApiKey();
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [fresh, setFresh] = useState<string | null>(null);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const parsed = createApiKey.body.safeParse({ name });
    if (!parsed.success) return setError(parsed.error.issues[0]?.message ?? 'Проверьте название');
    setError(null);
    try {
      const k = await create.mutateAsync(parsed.data.name);
      setFresh(k.key);
      setName('');
    } catch (err) {
      setError(err instanceof ApiError ? (err.fieldErrors.name?.[0] ?? err.message) : 'Не удалось создать ключ');
    }
  };

  return (
    <Stack spacing={1.5} component="section" aria-labelledby="api-keys-title">
      <Typography variant="h2" id="api-keys-title" sx={{ fontSize: 20 }}>
        API-ключи
      </Typography>
      <Typography color="text.secondary" variant="body2">
        Ключ открывает ваши коды программе продавца через /api/v1. Храните его как пароль; ненужный отзовите.
      </Typography>
      {fresh && <ShownOnce label="Новый ключ" value={fresh} onClose={() => setFresh(null)} />}
      <Stack component="form" direction={{ xs: 'column', sm: 'row' }} spacing={1} onSubmit={submit} noValidate>
        <TextField
          size="small"
          label="Название ключа"
          placeholder="Например, FunPay-бот"
          value={name}
          onChange={(e) => setName(e.target.value)}
          error={Boolean(error)}
          helperText={error ?? ' '}
          sx={{ flex: 1 }}
        />
        <Button type="submit" variant="contained" disabled={create.isPending} sx={{ alignSelf: { sm: 'flex-start' }, height: 40 }}>
          Создать ключ
        </Button>
      </Stack>
      {!isPending && keys?.length === 0 && <Alert severity="info">Ключей пока нет.</Alert>}
      {keys && keys.length > 0 && (
        <Paper variant="outlined">
          <List dense aria-label="API-ключи">
            {keys.map((k) => (
              <ListItem
                key={k.id}
                secondaryAction={
                  <Button color="error" size="small" onClick={() => revoke.mutate(k.id)} disabled={revoke.isPending}>
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
    </Stack>
  );
}
