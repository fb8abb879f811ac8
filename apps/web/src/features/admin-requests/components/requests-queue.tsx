import type { AdminRequest, Gamesserver } from '@adena/contract';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import MenuItem from '@mui/material/MenuItem';
import Pagination from '@mui/material/Pagination';
import Paper from '@mui/material/Paper';
import Skeleton from '@mui/material/Skeleton';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useRef, useState } from 'react';
import { AppDialog } from '../../../components/app-dialog';
import { CopyButton } from '../../../components/copy-button';
import { ReasonDialog } from '../../../components/reason-dialog';
import { ApiError } from '../../../lib/api-client';
import { UNTIL_CLOSED, useUi } from '../../../lib/ui-store';
import { formatAmount } from '../../../utils/format-amount';
import { amountText } from '../../../utils/plural';
import { PAGE_SIZE, type QueueFilters, useAdminRequests, useProcessRequest } from '../api/requests';
import { parseId } from '../../../components/id-filter-field';
import { oneOf, pageFromUrl, useFiltersInUrl } from '../../../hooks/use-filters-in-url';
import { minutesText, useMinutesSince } from '../../../hooks/use-minutes-since';
import { usePageInRange } from '../../../hooks/use-page-in-range';
import { useListTop } from '../../../hooks/use-list-top';
import { usePassed } from '../../../hooks/use-passed';
import { type FocusSpot, useFocusAfterRemoval } from '../../../hooks/use-focus-after-removal';
import { claimLapseText, completeQuestion, decidedText, queueOrderText, rejectQuestion } from '../utils/queue-texts';

const STATUS_LABEL = { pending: 'Ожидает', completed: 'Выполнена', rejected: 'Отклонена', cancelled: 'Отменена' } as const;
const STATUSES = Object.keys(STATUS_LABEL) as Array<keyof typeof STATUS_LABEL>;
const dateTime = new Intl.DateTimeFormat('ru-RU', { dateStyle: 'short', timeStyle: 'short' });

const completeLabel = (r: AdminRequest) =>
  r.currency_type === 1 ? (r.type === 'input' ? 'Адена получена' : 'Адена передана') : r.type === 'input' ? 'Монеты получены' : 'Монеты переданы';

function RequestCard({ r, meId, onReject, onComplete }: { r: AdminRequest; meId: number; onReject(r: AdminRequest): void; onComplete(r: AdminRequest): void }) {
  const { claim, release } = useProcessRequest();
  const alert = useUi((s) => s.alert);
  const snackbar = useUi((s) => s.showSnackbar);
  const deposit = r.type === 'input';
  const mine = r.claimed_by?.id === meId;
  // While another operator's claim stands only they decide; once it lapses (the server says when) anyone may take it over.
  const othersClaim = r.claimed_by !== null && !mine;
  // The admin area renews the operator's own claims (useClaimKeeper); one that lapsed all the same (the tab
  // was closed, the network down) is said on its card: another operator may take it over.
  const lapsed = usePassed(r.status === 'pending' && r.claimed_by !== null ? r.claim_lapses_at : null);
  const othersStanding = othersClaim && !lapsed;
  const claimer = r.claimed_by ? r.claimed_by.name || `оператор №${r.claimed_by.id}` : '';
  const waited = useMinutesSince(r.status === 'pending' ? r.created_at : null);
  const claimAge = useMinutesSince(r.status === 'pending' && othersStanding ? r.claimed_at : null);
  // Said with the request's number: the answer may come after the operator has turned to another card.
  const failed = (fallback: string) => (err: unknown) => alert(`Заявка №${r.id}: ${err instanceof ApiError ? err.message : fallback}`, [], UNTIL_CLOSED);
  // «Взять в работу» and «Отпустить» take each other's place; Chromium drops focus from the button disabled while
  // its call runs, and it comes back once the answer is shown.
  const focusFrom = useFocusAfterRemoval('queue');
  const keepFocus = (call: Promise<unknown>) => {
    const spot = focusFrom(r.id, 'claim');
    void call.finally(() => spot.back());
  };
  const decided = decidedText(r, meId);
  const releaseIt = () => keepFocus(release.mutateAsync(r.id).then(() => snackbar(`Заявка №${r.id} снова свободна`), failed('не удалось отпустить')));
  return (
    <Paper variant="outlined" sx={{ p: 2 }} data-testid="admin-request" data-focus-row="queue" data-focus-key={r.id}>
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} sx={{ justifyContent: 'space-between' }}>
        <Stack spacing={0.5} sx={{ minWidth: 0 }}>
          <Stack direction="row" spacing={1} useFlexGap sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
            <Typography sx={{ fontWeight: 700 }}>
              {deposit ? 'Пополнение' : 'Вывод'} №{r.id}
            </Typography>
            <Chip size="small" label={STATUS_LABEL[r.status]} color={r.status === 'pending' ? 'warning' : 'default'} />
            {r.user.vip && <Chip size="small" label="VIP" color="secondary" />}
            {r.user.blocked && <Chip size="small" label="Игрок заблокирован" color="error" data-testid="blocked-chip" />}
            {r.status === 'pending' && r.claimed_by && (
              <Chip
                size="small"
                data-testid="claim-chip"
                color={mine ? (lapsed ? 'error' : 'success') : lapsed ? 'default' : 'info'}
                variant={mine && lapsed ? 'outlined' : 'filled'}
                label={mine ? (lapsed ? 'Ваш захват истёк' : 'В работе у вас') : lapsed ? `Захват истёк: ${claimer}` : `В работе: ${claimer}`}
                title={r.claimed_at ? `Взята ${dateTime.format(new Date(r.claimed_at))}` : undefined}
              />
            )}
          </Stack>
          <Typography variant="h3" component="p">
            {amountText(r.amount, r.currency_type, '\u00a0')}
          </Typography>
          <Typography variant="body2">
            {r.gamesserver}: {deposit ? 'персонаж' : 'передать персонажу'}{' '}
            {/* The copy button stays with the nick it copies (at 390 px it wrapped next to the cashier's; walk 15). */}
            <span style={{ whiteSpace: 'nowrap' }}>
              <b>{r.nick}</b>
              <CopyButton text={r.nick} label={`Скопировать ник ${r.nick}`} />
            </span>
            {deposit && (
              <>
                {' '}
                <span style={{ whiteSpace: 'nowrap' }}>
                  → кассир <b>{r.cashier_nick}</b>
                </span>
              </>
            )}
          </Typography>
          {r.user.blocked && r.status === 'pending' && !deposit && (
            // The server refuses to complete it: a blocked account's withdrawal may be a thief's, to their own character.
            <Alert severity="error" variant="outlined" sx={{ py: 0 }} data-testid="blocked-payout">
              Игрок заблокирован: вывод не выдавайте, заявку можно только отклонить (сумма вернётся на кошелёк).
            </Alert>
          )}
          {r.claim_dropped_by && r.status === 'pending' && (
            // Its operator was blocked or demoted while holding it: they may have handed the adena over (or taken it).
            <Alert severity="warning" variant="outlined" sx={{ py: 0 }} data-testid="claim-dropped">
              {`Заявку вёл ${r.claim_dropped_by.name || `оператор №${r.claim_dropped_by.id}`}, его захват снят без решения: проверьте в игре, не ${
                deposit ? (r.currency_type === 1 ? 'получена ли уже адена' : 'получены ли уже монеты') : 'передана ли уже сумма'
              }. Игрок не может отменить заявку, пока оператор не выполнит или не отклонит её (или не возьмёт и отпустит).`}
            </Alert>
          )}
          {r.nick_shared && r.status === 'pending' && (
            // Nicks are not unique: the adena may come from (or must go to) another player's character of that name.
            <Alert severity="warning" variant="outlined" sx={{ py: 0 }} data-testid="nick-shared">
              {deposit
                ? 'Этот ник указал и другой игрок на этом сервере: убедитесь, что адену передал владелец заявки.'
                : 'Этот ник указал и другой игрок на этом сервере: убедитесь, что персонаж принадлежит владельцу заявки.'}
            </Alert>
          )}
          {/* A long e-mail breaks inside itself at 390 px rather than widening the card past the screen. */}
          <Typography variant="body2" color="textSecondary" data-testid="request-player" sx={{ overflowWrap: 'anywhere' }}>
            {r.user.name || 'Без имени'} · {r.user.email ?? r.user.phone ?? `id ${r.user.id}`} · {dateTime.format(new Date(r.created_at))}
            {waited !== null && ` · ждёт ${minutesText(waited)}`}
          </Typography>
          {decided && (
            // The time above is when it was created: a decided card says who decided it and when.
            <Typography variant="body2" color="textSecondary" data-testid="decided">
              {decided}
            </Typography>
          )}
          {r.comment && (
            <Typography variant="body2" color="textSecondary" sx={{ overflowWrap: 'anywhere' }}>
              Комментарий: {r.comment}
            </Typography>
          )}
        </Stack>
        {r.status === 'pending' && r.user.id === meId && (
          // The server refuses an operator their own request (403): another operator decides it.
          <Typography variant="body2" color="textSecondary" sx={{ flexShrink: 0, maxWidth: { sm: 200 } }}>
            Ваша заявка: её выполнит другой оператор
          </Typography>
        )}
        {r.status === 'pending' && r.user.id !== meId && (
          <Stack direction={{ xs: 'row', sm: 'column' }} spacing={1} useFlexGap sx={{ flexShrink: 0, flexWrap: 'wrap' }}>
            {r.claimed_by === null || lapsed ? (
              <Button
                variant="outlined"
                disabled={claim.isPending}
                onClick={() => keepFocus(claim.mutateAsync(r.id).then(() => snackbar(`Заявка №${r.id} у вас в работе`), failed('не удалось взять')))}
                data-focus-action="claim"
              >
                Взять в работу
              </Button>
            ) : mine ? (
              <Button color="inherit" disabled={release.isPending} onClick={releaseIt} data-focus-action="claim">
                Отпустить
              </Button>
            ) : (
              // While the claim stands only its holder decides; the card says when anyone may take it over.
              <Typography variant="body2" color="textSecondary" data-testid="claim-lapse" sx={{ maxWidth: { sm: 200 } }}>
                {claimLapseText(r.claim_lapses_at, claimAge)}
              </Typography>
            )}
            <Button
              variant="contained"
              disabled={othersStanding || (r.user.blocked && !deposit)}
              // Asks first, naming the request: a list the live feed re-sorts between hover and click,
              // or the second click of a double click, must not complete the card that moved under it.
              onClick={() => onComplete(r)}
              data-focus-action="complete"
            >
              {completeLabel(r)}
            </Button>
            <Button color="error" disabled={othersStanding} onClick={() => onReject(r)} data-focus-action="reject">
              Отклонить
            </Button>
          </Stack>
        )}
      </Stack>
    </Paper>
  );
}

/** `focusFrom`: the decided card leaves the queue with its button; focus goes on to the next card's (useFocusAfterRemoval). */
function RejectDialog({ target, onClose, focusFrom }: { target: AdminRequest | null; onClose(): void; focusFrom(key: number, action: string): FocusSpot }) {
  const { reject } = useProcessRequest();
  const snackbar = useUi((s) => s.showSnackbar);
  return (
    <ReasonDialog
      open={target !== null}
      onClose={onClose}
      title={target ? `Отклонить заявку №${target.id}` : ''}
      refusedTitle={target ? `Заявка №${target.id} не отклонена` : ''}
      testId="reject-dialog"
      // Named as the complete dialog names it: the live queue re-sorts, and the number alone is easy to misread.
      explanation={
        target && (
          <>
            <span style={{ display: 'block', marginBottom: 8, overflowWrap: 'anywhere' }} data-testid="reject-question">
              {rejectQuestion(target)}
            </span>
            {target.type === 'output' ? 'Удержанная сумма вернётся на баланс игрока.' : 'Баланс игрока не изменится.'} Причину увидит игрок.
          </>
        )
      }
      label="Причина"
      confirmLabel="Отклонить"
      danger
      submit={(reason) => {
        if (!target) return Promise.resolve();
        const spot = focusFrom(target.id, 'reject');
        return reject.mutateAsync({ id: target.id, reason }).then(
          () => {
            snackbar(`Заявка №${target.id} отклонена`);
            spot.done();
          },
          (err: unknown) => {
            spot.back();
            throw err;
          },
        );
      }}
    />
  );
}

/** «Адена получена/передана» asks once more, with the request's number, amount and nick. */
function CompleteDialog({ target, onClose, focusFrom }: { target: AdminRequest | null; onClose(): void; focusFrom(key: number, action: string): FocusSpot }) {
  const { complete } = useProcessRequest();
  const alert = useUi((s) => s.alert);
  const snackbar = useUi((s) => s.showSnackbar);
  const r = target;
  // Requests whose completion is on its way: each holds only its own button (the mutation's `variables`
  // name only the latest call, so a second request's completion would free the first one's button).
  const [sending, setSending] = useState<ReadonlySet<number>>(() => new Set());
  const confirm = () => {
    if (!r) return;
    onClose();
    const spot = focusFrom(r.id, 'complete');
    setSending((s) => new Set(s).add(r.id));
    // The promise, not mutate's callbacks: the operators' feed may remove the card before the answer
    // arrives, and the snackbar must still say it is done.
    complete
      .mutateAsync(r.id)
      .then(
        () => {
          snackbar(`Заявка №${r.id} выполнена`);
          spot.done();
        },
        (err: unknown) => {
          alert(`Заявка №${r.id}: ${err instanceof ApiError ? err.message : 'не удалось выполнить'}`, [], UNTIL_CLOSED);
          spot.back();
        },
      )
      .finally(() =>
        setSending((s) => {
          const next = new Set(s);
          next.delete(r.id);
          return next;
        }),
      );
  };
  return (
    <AppDialog
      open={r !== null}
      onClose={onClose}
      title={r ? `Выполнить заявку №${r.id}?` : ''}
      testId="complete-dialog"
      describe
      actions={
        <>
          <Button onClick={onClose}>Не выполнять</Button>
          {/* Only this request's completion in flight holds the button: another request's («Адена получена» of the
              next card) is not greyed out by it; a second completion of the same one the server refuses (409). */}
          <Button variant="contained" onClick={confirm} disabled={r !== null && sending.has(r.id)}>
            {r ? completeLabel(r) : ''}
          </Button>
        </>
      }
    >
      {r && <Typography>{completeQuestion(r)}</Typography>}
    </AppDialog>
  );
}

export function RequestsQueue({ servers, meId, live = false }: { servers: Array<Pick<Gamesserver, 'id' | 'name'>>; meId: number; live?: boolean }) {
  // In the address as the other lists keep theirs (useFiltersInUrl): Back from a player's card opened beside the queue,
  // or a reload, returns to the same status, type, server, currency and page. The pending ones are the default, so
  // every status is `status=all`.
  const [filters, setFilters] = useFiltersInUrl<QueueFilters>(
    (p) => ({
      status: p.get('status') === 'all' ? undefined : (oneOf(p.get('status'), STATUSES) ?? 'pending'),
      type: oneOf(p.get('type'), ['input', 'output'] as const),
      gamesserver_id: parseId(p.get('gamesserver_id') ?? '') ?? undefined,
      currency_type: p.get('currency_type') === '1' ? 1 : p.get('currency_type') === '2' ? 2 : undefined,
      page: pageFromUrl(p.get('page')),
    }),
    (x) => ({
      status: x.status === 'pending' ? undefined : (x.status ?? 'all'),
      type: x.type,
      gamesserver_id: x.gamesserver_id,
      currency_type: x.currency_type,
      page: x.page > 1 ? x.page : undefined,
    }),
  );
  const [rejecting, setRejecting] = useState<AdminRequest | null>(null);
  const [completing, setCompleting] = useState<AdminRequest | null>(null);
  const { data, isPending, isError, error, isPlaceholderData } = useAdminRequests(filters, live);
  const set = (patch: Partial<QueueFilters>) => setFilters((f) => ({ ...f, ...patch, page: patch.page ?? 1 }));
  // A decision takes its card (or, with every status shown, its buttons) away: focus goes to the next card's same
  // button, the previous card's after the last one, and to «Заявок нет.» (or the heading) when none is left.
  const heading = useRef<HTMLHeadingElement>(null);
  const empty = useRef<HTMLParagraphElement>(null);
  const focusFrom = useFocusAfterRemoval('queue', { busy: rejecting !== null || completing !== null, fallback: () => empty.current ?? heading.current });
  // A page the live feed emptied (its requests decided by others) moves to the last page there still is.
  // The pager is under the list: a new page starts at the list's top, not scrolled to its bottom.
  const top = useListTop<HTMLDivElement>(filters.page);
  const lastPage = usePageInRange(data, PAGE_SIZE, filters.page, (page) => set({ page }), isPlaceholderData);
  const select = (label: string, value: string, options: Array<[string, string]>, onChange: (v: string) => void) => (
    // «Все» is the empty value: displayEmpty shows it, and the label stays above it rather than over it.
    <TextField
      select
      size="small"
      label={label}
      value={value}
      onChange={(e) => onChange(e.target.value)}
      slotProps={{ select: { displayEmpty: true }, inputLabel: { shrink: true } }}
      sx={{ minWidth: 150 }}
    >
      {options.map(([v, l]) => (
        <MenuItem key={v} value={v}>
          {l}
        </MenuItem>
      ))}
    </TextField>
  );
  return (
    <Stack spacing={2} ref={top}>
      <Typography variant="h1" ref={heading} tabIndex={-1}>
        Очередь заявок
      </Typography>
      <Stack direction="row" spacing={1} useFlexGap sx={{ flexWrap: 'wrap' }}>
        {select('Статус', filters.status ?? '', [['', 'Все'], ...Object.entries(STATUS_LABEL)], (v) => set({ status: (v || undefined) as QueueFilters['status'] }))}
        {select('Тип', filters.type ?? '', [['', 'Все'], ['input', 'Пополнения'], ['output', 'Выводы']], (v) => set({ type: (v || undefined) as QueueFilters['type'] }))}
        {select('Сервер', String(filters.gamesserver_id ?? ''), [['', 'Все'], ...servers.map((s): [string, string] => [String(s.id), s.name])], (v) =>
          set({ gamesserver_id: v ? Number(v) : undefined }),
        )}
        {select('Валюта', String(filters.currency_type ?? ''), [['', 'Обе'], ['1', 'Адена'], ['2', 'Монеты']], (v) =>
          set({ currency_type: v ? (Number(v) as 1 | 2) : undefined }),
        )}
      </Stack>
      {/* A failed refresh is said above the queue it could not refresh, which stays on screen. */}
      {isError && <Alert severity="error">{error instanceof ApiError ? error.message : 'Не удалось загрузить заявки'}</Alert>}
      {isPending ? (
        !isError && <Skeleton variant="rounded" height={200} />
      ) : data === undefined ? null : data.total === 0 ? (
        <Typography color="textSecondary" ref={empty} tabIndex={-1}>
          Заявок нет.
        </Typography>
      ) : (
        <>
          <Typography variant="body2" color="textSecondary">
            {queueOrderText(filters.status)} Всего: {formatAmount(data.total)}
          </Typography>
          {data.data.map((r) => (
            <RequestCard key={r.id} r={r} meId={meId} onReject={setRejecting} onComplete={setCompleting} />
          ))}
          {(data.total > PAGE_SIZE || filters.page > 1) && (
            <Pagination count={lastPage} page={filters.page} onChange={(_, page) => set({ page })} sx={{ alignSelf: 'center' }} />
          )}
        </>
      )}
      <RejectDialog target={rejecting} onClose={() => setRejecting(null)} focusFrom={focusFrom} />
      <CompleteDialog target={completing} onClose={() => setCompleting(null)} focusFrom={focusFrom} />
    </Stack>
  );
}
