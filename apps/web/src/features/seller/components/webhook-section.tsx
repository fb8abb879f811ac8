import { putWebhook, WEBHOOK_EVENTS, type WebhookEvent } from '@adena/contract';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Checkbox from '@mui/material/Checkbox';
import Chip from '@mui/material/Chip';
import FormControlLabel from '@mui/material/FormControlLabel';
import FormGroup from '@mui/material/FormGroup';
import FormHelperText from '@mui/material/FormHelperText';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { type FormEvent, useEffect, useState } from 'react';
import { ConfirmDialog } from '../../../components/confirm-dialog';
import { CurrentPasswordField } from '../../../components/current-password-field';
import { errorMessage } from '@adena/contract/lite';
import { useFormErrors } from '../../../hooks/use-form-errors';
import { ApiError, refusedForSure } from '../../../lib/api-client';
import { needsStepUp } from '../../../lib/step-up';
import { sentence } from '../../../utils/sentence';
import { useUser } from '../../../lib/session';
import { useWebhook, useWebhookActions, useWebhookDeliveries } from '../api/webhook';
import { dateTime, ShownOnce } from './shown-once';
import { scrollsSideways } from '../../../components/scrolls-sideways';
import { LoadFailed } from '../../../components/load-failed';

const EVENT_TEXT: Record<WebhookEvent, string> = {
  'code.activated': 'Код активирован',
  'code.cancelled': 'Код отменён',
  'request.completed': 'Заявка выполнена',
  'request.rejected': 'Заявка отклонена',
  ping: 'Проверка (ping)',
};
/** The fields this form shows its errors under; any other is said above the buttons. */
const FIELDS = ['url', 'events', 'password'] as const;
const STATUS = { pending: ['Ждёт повтора', 'warning'], delivered: ['Доставлено', 'success'], failed: ['Не доставлено', 'error'] } as const;

/**
 * The webhook: URL and events, its secret (shown when set or rotated), a test send and the delivery log.
 * Saving and «Новый секрет» answer the secret that signs events, and the endpoint outlives logout and a
 * password change, so both ask for the TOTP code (the step-up prompt) or, without TOTP, the current
 * password (README "Second factors").
 */
export function WebhookSection() {
  const webhook = useWebhook();
  const { data: hook, isPending } = webhook;
  const { user } = useUser();
  const { save, remove, rotate, test } = useWebhookActions();
  const deliveries = useWebhookDeliveries();
  const f = useFormErrors();
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<WebhookEvent[]>(['code.activated', 'code.cancelled']);
  const [password, setPassword] = useState('');
  const [secret, setSecret] = useState<string | null>(null);
  const askPassword = user?.two_factor === false;
  const givenPassword = (askPassword && password) || undefined;

  useEffect(() => {
    if (hook) {
      setUrl(hook.url);
      setEvents(hook.events);
    }
  }, [hook]);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    f.clear();
    const body = f.validate(putWebhook.body, { url, events, password: givenPassword });
    if (!body) return;
    try {
      const saved = await save.mutateAsync(body);
      if (!hook) setSecret(saved.secret);
      setPassword('');
    } catch (err) {
      // A step-up prompt the player cancelled is no error.
      if (!needsStepUp(err)) f.fromError(err, FIELDS);
    }
  };
  // «Новый секрет» asks first: the old secret stops signing at once, and the seller's receiver refuses every
  // delivery (retries included) until the new one is put into it.
  const [confirmRotate, setConfirmRotate] = useState(false);
  // Once per opening (ConfirmDialog fires once too): a second click while the dialog fades out rotated again, and
  // the secret shown could be one the server no longer keeps.
  const newSecret = async () => {
    if (!confirmRotate) return;
    setConfirmRotate(false);
    f.clear();
    try {
      setSecret((await rotate.mutateAsync(givenPassword === undefined ? undefined : { password: givenPassword })).secret);
      setPassword('');
    } catch (err) {
      if (!needsStepUp(err)) f.fromError(err, FIELDS);
    }
  };
  // «Отправить тест» (10 in 10 minutes) and «Отключить» say why they were refused, where the form says it.
  const sendTest = () => {
    f.clear();
    test.mutate(undefined, { onError: (err) => f.fromError(err, FIELDS) });
  };
  const [confirmRemove, setConfirmRemove] = useState(false);
  // Said naming what failed, with a close button: the form's own error line is for the save.
  const [removeError, setRemoveError] = useState<string | null>(null);
  const removeIt = () => {
    // Once per opening: a second DELETE answered 404, and the screen said «Вебхук не отключён» about a removed one.
    if (!confirmRemove) return;
    f.clear();
    setConfirmRemove(false);
    setRemoveError(null);
    remove.mutate(undefined, {
      // The secret shown belongs to the endpoint just removed: it signs nothing any more.
      onSuccess: () => {
        setSecret(null);
        setUrl('');
      },
      // A refusal for sure (4xx) says so; a lost answer or a 5xx may have removed it: the page, read again, tells.
      onError: (err) =>
        setRemoveError(
          `${refusedForSure(err) ? 'Вебхук не отключён.' : 'Не удалось подтвердить, что вебхук отключён: проверьте, что показано выше.'} ${sentence(err instanceof ApiError ? err.message : errorMessage('INTERNAL'))}`,
        ),
    });
  };
  const toggle = (ev: WebhookEvent) => setEvents((cur) => (cur.includes(ev) ? cur.filter((x) => x !== ev) : [...cur, ev]));

  return (
    <Stack spacing={1.5} component="section" aria-labelledby="webhook-title">
      <Typography variant="h2" id="webhook-title" sx={{ fontSize: 20 }}>
        Вебхук
      </Typography>
      <Typography color="textSecondary" variant="body2">
        Мы отправим POST на ваш адрес, когда случится выбранное событие, с подписью по стандарту Standard Webhooks. Если сервер не ответит 2xx — повторим
        через 5 с, 10 с, 20 с… в течение трёх суток.
      </Typography>
      {secret && <ShownOnce label="Секрет вебхука" value={secret} onClose={() => setSecret(null)} />}
      {webhook.isError && <LoadFailed query={webhook} testId="webhook-load-error" />}
      {/* Not read, the endpoint is unknown: an empty «Подключить вебхук» form would overwrite the real one. */}
      {!isPending && !webhook.isError && (
        <Stack component="form" spacing={1} onSubmit={submit} noValidate>
          <TextField
            size="small"
            label="Адрес (https://…)"
            value={url}
            onChange={(e) => setUrl(e.target.value)}
            error={Boolean(f.fieldError('url'))}
            helperText={f.fieldError('url') ?? ' '}
            inputMode="url"
          />
          <FormGroup row role="group" aria-label="События">
            {WEBHOOK_EVENTS.filter((ev) => ev !== 'ping').map((ev) => (
              <FormControlLabel key={ev} control={<Checkbox size="small" checked={events.includes(ev)} onChange={() => toggle(ev)} />} label={EVENT_TEXT[ev]} />
            ))}
          </FormGroup>
          {f.fieldError('events') && <FormHelperText error>{f.fieldError('events')}</FormHelperText>}
          {askPassword && (
            <CurrentPasswordField compact testId="webhook-password" value={password} onChange={setPassword} error={f.fieldError('password')} />
          )}
          {f.formError && <Alert severity="error">{f.formError}</Alert>}
          {removeError && (
            <Alert severity="error" onClose={() => setRemoveError(null)} data-testid="webhook-remove-error">
              {removeError}
            </Alert>
          )}
          <Stack direction="row" sx={{ flexWrap: 'wrap', gap: 1 }}>
            <Button type="submit" variant="contained" disabled={save.isPending}>
              {hook ? 'Сохранить' : 'Подключить вебхук'}
            </Button>
            {hook && (
              <>
                <Button variant="outlined" onClick={sendTest} disabled={test.isPending}>
                  Отправить тест
                </Button>
                <Button onClick={() => setConfirmRotate(true)} disabled={rotate.isPending}>
                  Новый секрет
                </Button>
                <Button color="error" onClick={() => setConfirmRemove(true)} disabled={remove.isPending}>
                  Отключить
                </Button>
              </>
            )}
          </Stack>
        </Stack>
      )}
      <ConfirmDialog
        open={confirmRotate}
        onClose={() => setConfirmRotate(false)}
        onConfirm={newSecret}
        pending={rotate.isPending}
        title="Выдать новый секрет?"
        confirmLabel="Выдать новый"
        testId="webhook-rotate-dialog"
      >
        Текущий секрет сразу перестанет подписывать события. Пока вы не замените его в своей программе, она будет
        отклонять доставки, в том числе повторы тех, что ждут.
      </ConfirmDialog>
      <ConfirmDialog
        open={confirmRemove}
        onClose={() => setConfirmRemove(false)}
        onConfirm={removeIt}
        pending={remove.isPending}
        title="Отключить вебхук?"
        confirmLabel="Отключить"
        danger
        testId="webhook-remove-dialog"
      >
        События перестанут приходить на{' '}
        <Box component="span" sx={{ overflowWrap: 'anywhere' }}>
          {hook?.url}
        </Box>
        , а доставки, которые ждут повтора, не будут отправлены. Подключить вебхук снова можно в любой момент — с
        новым секретом.
      </ConfirmDialog>
      {hook && (
        <>
          <Typography variant="h3" sx={{ fontSize: 16, pt: 1 }}>
            Журнал доставок
          </Typography>
          {deliveries.data?.length === 0 && <Alert severity="info" role="status">Пока ничего не отправлялось. Нажмите «Отправить тест».</Alert>}
          {deliveries.data && deliveries.data.length > 0 && (
            <Paper variant="outlined" sx={scrollsSideways}>
              <Table size="small" aria-label="Журнал доставок">
                <TableHead>
                  <TableRow>
                    <TableCell>Событие</TableCell>
                    <TableCell>Статус</TableCell>
                    <TableCell align="right">Попыток</TableCell>
                    <TableCell align="right">Ответ</TableCell>
                    <TableCell>Когда</TableCell>
                  </TableRow>
                </TableHead>
                <TableBody>
                  {deliveries.data.map((d) => (
                    <TableRow key={d.id} data-testid="delivery-row">
                      <TableCell>{EVENT_TEXT[d.type]}</TableCell>
                      <TableCell>
                        <Chip size="small" color={STATUS[d.status][1]} label={STATUS[d.status][0]} />
                        {d.next_attempt_at && d.status === 'pending' && (
                          <Typography variant="caption" sx={{ display: 'block' }}>
                            следующая {dateTime(d.next_attempt_at)}
                          </Typography>
                        )}
                      </TableCell>
                      <TableCell align="right">{d.attempts}</TableCell>
                      <TableCell align="right">{d.last_status_code ?? '—'}</TableCell>
                      <TableCell>{dateTime(d.created_at)}</TableCell>
                    </TableRow>
                  ))}
                </TableBody>
              </Table>
            </Paper>
          )}
        </>
      )}
    </Stack>
  );
}
