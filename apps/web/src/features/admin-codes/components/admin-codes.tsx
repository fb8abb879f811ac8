import type { AdminCode, } from '@adena/contract';
import Search from '@mui/icons-material/Search';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Link from '@mui/material/Link';
import Paper from '@mui/material/Paper';
import Skeleton from '@mui/material/Skeleton';
import Stack from '@mui/material/Stack';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { type ReactNode, useRef, useState } from 'react';
import { Link as RouterLink, useSearchParams } from 'wouter';
import { ApiError } from '../../../lib/api-client';
import { useUi } from '../../../lib/ui-store';
import { agree } from '../../../utils/agree';
import { amountText } from '../../../utils/plural';
import { type CodeLookup, useAdminCancelCode, useAdminCode } from '../api/codes';
import { ReasonDialog } from '../../../components/reason-dialog';
import { scrollsSideways } from '../../../components/scrolls-sideways';
import { RefreshFailed } from '../../../components/load-failed';
import { accountKeyLabel, signedAmount, transactionKindLabel } from '../../../utils/ledger-labels';
import { type FocusSpot, useFocusAfterRemoval } from '../../../hooks/use-focus-after-removal';

const dateTime = new Intl.DateTimeFormat('ru-RU', { dateStyle: 'short', timeStyle: 'medium' });
const aden = (n: number) => amountText(n, 1, '\u00a0');
const STATUS = {
  active: { label: 'Активен', color: 'success' },
  activated: { label: 'Активирован', color: 'default' },
  cancelled: { label: 'Отменён', color: 'error' },
} as const;
const ATTEMPT = {
  activated: 'активировал',
  already_activated: 'попытка: код уже активирован',
  cancelled: 'попытка: код отменён',
  own_code: 'попытка активировать свой код',
  not_found: 'не найден',
  server_closed: 'попытка: сервер закрыт',
} as const;

type Person = { id: number; name: string; email: string | null };
/** The name, else the email (none for a player signed up by phone), else the id. */
const personName = (p: Person) => p.name || p.email || `id ${p.id}`;
function PersonLink({ p }: { p: Person }) {
  return (
    <Link component={RouterLink} to={`/admin/users/${p.id}`}>
      {personName(p)}
    </Link>
  );
}

/** `?id=12` or `?sert=ADN-…` in the address, so an incident can link to its code. */
function lookupOf(params: URLSearchParams): CodeLookup | null {
  const id = Number(params.get('id'));
  if (Number.isSafeInteger(id) && id > 0) return { id };
  const sert = params.get('sert')?.trim();
  return sert ? { sert } : null;
}

/** `focus`: called as the cancel starts; its success takes «Отменить с возвратом» away (useFocusAfterRemoval). */
function CancelDialog({ code, open, onClose, focus }: { code: AdminCode; open: boolean; onClose(): void; focus(): FocusSpot }) {
  const cancel = useAdminCancelCode();
  const showSnackbar = useUi((s) => s.showSnackbar);
  return (
    <ReasonDialog
      open={open}
      onClose={onClose}
      title={`Отменить код №${code.id}?`}
      refusedTitle={`Код №${code.id} не отменён`}
      testId="admin-cancel-code-dialog"
      explanation={`Код перестанет действовать, а его цена ${aden(code.price)} вернётся на кошелёк владельца (${personName(code.issuer)}) на ${code.gamesserver}.`}
      label="Причина (для журнала)"
      cancelLabel="Не отменять"
      confirmLabel="Отменить код"
      danger
      submit={(reason) => {
        const spot = focus();
        return cancel.mutateAsync({ id: code.id, reason }).then(
          (r) => {
            showSnackbar(`Код №${code.id} отменён, владельцу ${agree(r.summa, 'refunded')} ${aden(r.summa)}`);
            spot.done();
          },
          (err: unknown) => {
            // Refused because the code was activated meanwhile: the re-read takes the button away too.
            spot.back();
            throw err;
          },
        );
      }}
    />
  );
}

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Stack spacing={0.25} sx={{ minWidth: 150 }}>
      <Typography variant="body2" color="textSecondary">
        {label}
      </Typography>
      <Typography component="div">{children}</Typography>
    </Stack>
  );
}

/** Find a code by its sert or number and read its whole story; cancel an unactivated one with a refund. */
export function AdminCodes() {
  const [params, setParams] = useSearchParams();
  const lookup = lookupOf(params);
  const [text, setText] = useState(() => params.get('sert') ?? params.get('id') ?? '');
  // Back and Forward (or an incident's link) change the address: the box shows the code the page shows.
  const searched = params.get('sert') ?? params.get('id') ?? '';
  const [shownFor, setShownFor] = useState(searched);
  if (searched !== shownFor) {
    setShownFor(searched);
    setText(searched);
  }
  // The code whose cancel dialog is open: one gone from the page meanwhile (a 404, another code looked up) closes it,
  // so it neither holds focus's move nor opens uninvited over the next code shown.
  const [cancelling, setCancelling] = useState<number | null>(null);
  // A cancel takes «Отменить с возвратом» away: focus goes to the code's status that says it is cancelled, not to
  // the page's top (README «Keyboard and screen-reader users keep their place»). A code gone meanwhile (404) takes
  // its whole card away: focus goes to the page's heading, just before the search box.
  const heading = useRef<HTMLHeadingElement>(null);
  const focusFrom = useFocusAfterRemoval('admin-code', { busy: cancelling !== null, fallback: () => heading.current });
  const code = useAdminCode(lookup);
  const { isFetching, isError, error } = code;
  // A code gone (404) is said alone; another failed re-read keeps the card, the open cancel dialog and its reason.
  const gone = error instanceof ApiError && error.status === 404;
  const data = gone ? undefined : code.data;
  if (cancelling !== null && data?.code.id !== cancelling) setCancelling(null);
  const find = () => {
    const q = text.trim();
    if (!q) return;
    setParams(/^\d+$/.test(q) ? { id: q } : { sert: q.toUpperCase() });
  };

  const story: Array<{ at: string; text: ReactNode; key: string }> = [];
  if (data) {
    const c = data.code;
    story.push({ key: 'issued', at: c.created_at, text: <>Выпущен владельцем <PersonLink p={c.issuer} /> за {aden(c.price)}</> });
    for (const a of data.attempts) {
      story.push({
        key: `a${a.id}`,
        at: a.created_at,
        text: (
          <>
            <PersonLink p={a.user} /> — {ATTEMPT[a.result]}
            {a.ip && <Typography component="span" variant="body2" color="textSecondary">{` · IP ${a.ip}`}</Typography>}
          </>
        ),
      });
    }
    for (const i of data.incidents) {
      story.push({
        key: `i${i.id}`,
        at: i.created_at,
        text: (
          <>
            Инцидент №{i.id}: владелец уведомлён о повторной попытке <PersonLink p={i.attempted_by} />
            {i.acknowledged_at ? ` · прочитан ${dateTime.format(new Date(i.acknowledged_at))}` : ' · не прочитан'}
          </>
        ),
      });
    }
    if (c.cancelled_at) story.push({ key: 'cancelled', at: c.cancelled_at, text: <>Отменён{c.cancelled_by ? ` (пользователь ${c.cancelled_by})` : ''}</> });
    story.sort((x, y) => x.at.localeCompare(y.at));
  }

  return (
    <Stack spacing={2.5} data-view="admin-codes">
      <Typography variant="h1" ref={heading} tabIndex={-1}>
        Коды
      </Typography>
      <Stack
        component="form"
        direction="row"
        spacing={1}
        onSubmit={(e) => {
          e.preventDefault();
          find();
        }}
      >
        <TextField
          size="small"
          label="Код или номер кода"
          placeholder="ADN-7KQ2-M9XD-4TPW-H3RC или 1234"
          value={text}
          onChange={(e) => setText(e.target.value)}
          sx={{ flex: 1, maxWidth: 480 }}
          autoComplete="off"
        />
        <Button type="submit" variant="contained" startIcon={<Search />}>
          Найти
        </Button>
      </Stack>

      {!lookup ? (
        <Typography color="textSecondary">Введите код целиком или его номер. По коду видна вся его история: выпуск, попытки активации, инциденты, проводки.</Typography>
      ) : isFetching && !data ? (
        <Skeleton variant="rounded" height={260} />
      ) : isError && !data ? (
        <Alert severity={gone ? 'info' : 'error'}>
          {error instanceof ApiError ? (error.status === 404 ? 'Такого кода нет.' : (error.fieldErrors.sert?.[0] ?? error.message)) : 'Не удалось найти код'}
        </Alert>
      ) : data ? (
        <>
          {isError && <RefreshFailed query={code} testId="admin-code-stale" />}
          <Paper variant="outlined" sx={{ p: 2 }} data-testid="admin-code">
            <Stack spacing={2}>
              <Stack
                direction="row"
                spacing={1.5}
                useFlexGap
                sx={{ alignItems: 'center', flexWrap: 'wrap', justifyContent: 'space-between' }}
                data-focus-row="admin-code"
                data-focus-key={data.code.id}
              >
                <Stack direction="row" spacing={1.5} sx={{ alignItems: 'center' }}>
                  <Typography variant="h2" component="p" sx={{ fontFamily: 'monospace', letterSpacing: 1 }}>
                    {data.code.sert}
                  </Typography>
                  <Chip
                    size="small"
                    variant="outlined"
                    label={STATUS[data.code.status].label}
                    color={STATUS[data.code.status].color}
                    tabIndex={-1}
                    data-focus-action="status"
                  />
                </Stack>
                {data.code.status === 'active' && (
                  <Button color="error" variant="outlined" onClick={() => setCancelling(data.code.id)} data-focus-action="cancel">
                    Отменить с возвратом
                  </Button>
                )}
              </Stack>
              {data.code.sert_masked && (
                <Typography variant="body2" color="textSecondary">
                  Код скрыт: целиком его видно, только если искать по самому коду.
                </Typography>
              )}
              <Stack direction="row" spacing={3} useFlexGap sx={{ flexWrap: 'wrap' }}>
                <Field label="Номер">№{data.code.id}</Field>
                <Field label="Сервер">{data.code.gamesserver}</Field>
                <Field label="Номинал">{aden(data.code.nominal)}</Field>
                <Field label="Комиссия">{aden(data.code.fee)}</Field>
                <Field label="Цена">{aden(data.code.price)}</Field>
                <Field label="Владелец">
                  <PersonLink p={data.code.issuer} />
                </Field>
                {data.code.activated_by && (
                  <Field label="Активировал">
                    <PersonLink p={data.code.activated_by} />
                  </Field>
                )}
                {data.code.pricekod_id !== null && <Field label="Свой вариант">№{data.code.pricekod_id}</Field>}
              </Stack>
            </Stack>
          </Paper>

          <Stack spacing={1}>
            <Typography variant="h2">История</Typography>
            <Paper variant="outlined">
              <Table size="small" aria-label="История кода">
                <TableBody>
                  {story.map((e) => (
                    <TableRow key={e.key}>
                      <TableCell sx={{ whiteSpace: 'nowrap', width: 180 }}>{dateTime.format(new Date(e.at))}</TableCell>
                      <TableCell>{e.text}</TableCell>
                    </TableRow>
                  ))}
                </TableBody>
              </Table>
            </Paper>
          </Stack>

          <Stack spacing={1}>
            <Typography variant="h2">Проводки</Typography>
            {data.ledger.length === 0 ? (
              <Typography color="textSecondary">Проводок нет.</Typography>
            ) : (
              <Paper variant="outlined" sx={scrollsSideways}>
                <Table size="small" aria-label="Проводки кода">
                  <TableHead>
                    <TableRow>
                      <TableCell>Когда</TableCell>
                      <TableCell>Проводка</TableCell>
                      <TableCell>Счёт</TableCell>
                      <TableCell align="right">Сумма</TableCell>
                    </TableRow>
                  </TableHead>
                  <TableBody>
                    {data.ledger.map((e) => (
                      <TableRow key={e.id}>
                        <TableCell sx={{ whiteSpace: 'nowrap' }}>{dateTime.format(new Date(e.created_at))}</TableCell>
                        <TableCell>
                          №{e.transaction_id} · {transactionKindLabel(e.transaction_kind)}
                        </TableCell>
                        <TableCell>
                          <Link component={RouterLink} to={`/admin/ledger/accounts/${e.account_id}`}>
                            {accountKeyLabel(e.account_key, [{ id: data.code.gamesserver_id, name: data.code.gamesserver }])}
                          </Link>
                        </TableCell>
                        <TableCell align="right" sx={{ color: e.amount < 0 ? 'error.main' : 'success.main', whiteSpace: 'nowrap' }}>
                          {signedAmount(e.amount)}
                        </TableCell>
                      </TableRow>
                    ))}
                  </TableBody>
                </Table>
              </Paper>
            )}
          </Stack>
          <CancelDialog
            key={data.code.id}
            code={data.code}
            open={cancelling === data.code.id}
            onClose={() => setCancelling(null)}
            focus={() => focusFrom(data.code.id, 'cancel', 'status')}
          />
        </>
      ) : null}
    </Stack>
  );
}
