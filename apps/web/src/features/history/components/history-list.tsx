import { HISTORY_PAGE_SIZE, type Request } from '@adena/contract/lite';
import DeleteOutline from '@mui/icons-material/DeleteOutlineOutlined';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import IconButton from '@mui/material/IconButton';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import Pagination from '@mui/material/Pagination';
import Skeleton from '@mui/material/Skeleton';
import Stack from '@mui/material/Stack';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import { useState } from 'react';
import { AppDialog } from '../../../components/app-dialog';
import { usePageInRange } from '../../../hooks/use-page-in-range';
import { useListTop } from '../../../hooks/use-list-top';
import { type FocusSpot, useFocusAfterRemoval } from '../../../hooks/use-focus-after-removal';
import { ApiError } from '../../../lib/api-client';
import { useUi } from '../../../lib/ui-store';
import { amountText } from '../../../utils/plural';
import { useCancelRequest, useHideRequest, useHistory } from '../../../lib/requests-history';
import { useUser } from '../../../lib/session';
import { useWallets } from '../../../lib/wallets';

const STATUS: Record<Request['status'], { label: string; color: 'warning' | 'success' | 'error' | 'default' }> = {
  pending: { label: 'В обработке', color: 'warning' },
  completed: { label: 'Выполнена', color: 'success' },
  rejected: { label: 'Отклонена', color: 'error' },
  cancelled: { label: 'Отменена', color: 'default' },
};

const dateFormat = new Intl.DateTimeFormat('ru-RU', { dateStyle: 'short', timeStyle: 'short' });

/** `focusFrom`: the list's, which outlives an entry hidden with its button (useFocusAfterRemoval). */
function HistoryItem({ item, focusFrom }: { item: Request; focusFrom(key: number, action: string, to?: string): FocusSpot }) {
  const cancel = useCancelRequest();
  const hide = useHideRequest();
  const alert = useUi((s) => s.alert);
  const snackbar = useUi((s) => s.showSnackbar);
  const onError = (err: unknown) => alert(err instanceof ApiError ? err.message : 'Не удалось выполнить действие');
  const status = STATUS[item.status];
  const incoming = item.type === 'input';
  const undone = item.status === 'rejected' || item.status === 'cancelled';
  // Cancelling is never one tap: a deposit's adena already handed to the cashier is not returned by it.
  const [confirming, setConfirming] = useState(false);
  const amount = amountText(item.amount, item.currency_type, '\u00a0', 'gen');
  return (
    <ListItem divider data-testid="history-item" sx={{ px: 0, alignItems: 'flex-start' }} data-focus-row="history" data-focus-key={item.id}>
      <Stack spacing={0.5} sx={{ flexGrow: 1, minWidth: 0 }}>
        <Stack direction="row" spacing={1} useFlexGap sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
          <Typography sx={{ fontWeight: 600 }}>
            {incoming ? 'Пополнение' : 'Вывод'} №{item.id}
          </Typography>
          <Chip size="small" label={status.label} color={status.color} variant={item.status === 'pending' ? 'filled' : 'outlined'} />
        </Stack>
        {/* Only money that moved looks like it: a rejected or cancelled amount is struck through. */}
        <Typography
          sx={{
            color: item.status === 'completed' && incoming ? 'success.main' : undone ? 'text.secondary' : 'text.primary',
            textDecoration: undone ? 'line-through' : 'none',
            fontWeight: 600,
          }}
        >
          {incoming ? '+' : '−'}
          {amountText(item.amount, item.currency_type, '\u00a0')}
        </Typography>
        <Typography variant="body2" color="textSecondary">
          {item.gamesserver} · {item.nick ?? '—'}
          {incoming && item.status === 'pending' && item.cashier_nick ? ` → кассир ${item.cashier_nick}` : ''} ·{' '}
          <Box component="span" sx={{ whiteSpace: 'nowrap' }}>
            {dateFormat.format(new Date(item.created_at))}
          </Box>
        </Typography>
        {item.comment && (
          <Typography variant="body2" color="textSecondary">
            Комментарий оператора: {item.comment}
          </Typography>
        )}
      </Stack>
      {item.status === 'pending' ? (
        <>
          <Button
            size="small"
            color="error"
            disabled={cancel.isPending}
            onClick={() => setConfirming(true)}
            aria-label={`Отменить заявку №${item.id}`}
            sx={{ flexShrink: 0 }}
            data-focus-action="cancel"
          >
            Отменить
          </Button>
          <AppDialog
            open={confirming}
            onClose={() => setConfirming(false)}
            title={`Отменить заявку №${item.id}?`}
            testId="confirm-cancel-request"
            actions={
              <>
                <Button onClick={() => setConfirming(false)}>Не отменять</Button>
                <Button
                  color="error"
                  variant="contained"
                  disabled={cancel.isPending}
                  onClick={() => {
                    // The cancelled entry stays, «Убрать из истории» in place of «Отменить»: focus goes there.
                    const spot = focusFrom(item.id, 'cancel', 'hide');
                    cancel.mutate(item.id, {
                      onError: (err) => {
                        onError(err);
                        spot.back();
                      },
                      onSettled: () => setConfirming(false),
                      onSuccess: () => {
                        snackbar(incoming ? `Заявка №${item.id} отменена` : `Заявка №${item.id} отменена, сумма вернулась на баланс`);
                        spot.done();
                      },
                    });
                  }}
                >
                  Отменить заявку
                </Button>
              </>
            }
          >
            {incoming ? (
              <Stack spacing={1.5}>
                <Typography>
                  Заявка на пополнение <b>{amount}</b> будет отменена, и оператор её не увидит.
                </Typography>
                <Alert severity="warning">
                  Если вы уже передали {item.currency_type === 1 ? 'адену' : 'монеты'} кассиру{item.cashier_nick ? ` ${item.cashier_nick}` : ''}, отмена не вернёт
                  переданное, и на баланс оно не поступит. В этом случае не отменяйте заявку — дождитесь оператора.
                </Alert>
              </Stack>
            ) : (
              <Typography>
                Заявка на вывод <b>{amount}</b> будет отменена, сумма вернётся на баланс.
              </Typography>
            )}
          </AppDialog>
        </>
      ) : (
        <Tooltip title="Убрать из истории">
          <IconButton
            size="small"
            edge="end"
            aria-label={`Убрать заявку №${item.id} из истории`}
            disabled={hide.isPending}
            data-focus-action="hide"
            onClick={() => {
              // The entry leaves with its button: focus goes to the next entry's (useFocusAfterRemoval). Its answer may
              // come after the entry has gone, to callbacks no longer called: the list watches for that.
              const spot = focusFrom(item.id, 'hide');
              hide.mutate(item.id, {
                onError: (err) => {
                  onError(err);
                  spot.back();
                },
                onSuccess: () => spot.done(),
              });
            }}
          >
            <DeleteOutline />
          </IconButton>
        </Tooltip>
      )}
    </ListItem>
  );
}

const names = (list: string[]) => (list.length < 2 ? (list[0] ?? '') : `${list.slice(0, -1).join(', ')} и ${list.at(-1)}`);

/**
 * The tab's dot counts unread decisions on every server, while the tab shows (and reads) the chosen
 * server's history only: this says where the others are, so the dot is not left unexplained.
 */
function UnreadElsewhere({ gameServerId }: { gameServerId: number }) {
  const others = useWallets().data?.filter((w) => w.new_message && w.gamesserver_id !== gameServerId) ?? [];
  if (others.length === 0) return null;
  return (
    <Alert severity="info" data-testid="history-unread-elsewhere">
      Есть новые решения по заявкам на {others.length === 1 ? 'сервере' : 'серверах'} {names(others.map((w) => w.gamesserver))}. Выберите{' '}
      {others.length === 1 ? 'его' : 'сервер'} выше, чтобы их увидеть.
    </Alert>
  );
}

export function HistoryList({ gameServerId }: { gameServerId: number | null }) {
  const { user } = useUser();
  return (
    <Stack spacing={2}>
      {gameServerId !== null && <UnreadElsewhere gameServerId={gameServerId} />}
      {/* Another server's or another player's history (the mini app's account switch) starts again from its first page. */}
      <ServerHistory key={`${user?.id ?? 'none'}:${gameServerId ?? 'all'}`} gameServerId={gameServerId} />
    </Stack>
  );
}

function ServerHistory({ gameServerId }: { gameServerId: number | null }) {
  const [page, setPage] = useState(1);
  const { data, isPending, isError, isFetching, isPlaceholderData, refetch } = useHistory(page, gameServerId);
  // Removing the last entry of the last page (or decisions read elsewhere) leaves a page past the end: the last page there is shows instead.
  const pages = usePageInRange(data, HISTORY_PAGE_SIZE, page, setPage, isPlaceholderData);
  // The pager is under the list: a new page starts at the list's top, not scrolled to its bottom.
  const top = useListTop<HTMLDivElement>(page);
  // A hidden entry leaves with its button: focus goes to the next entry's, the previous one's after the last, or to the
  // list (or what says it is empty) when no entry has one.
  const focusFrom = useFocusAfterRemoval('history');
  const retry = (
    <Button color="inherit" size="small" disabled={isFetching} onClick={() => void refetch()}>
      Повторить
    </Button>
  );
  if (isPending) return <Skeleton variant="rounded" height={160} />;
  // Nothing read yet: said, with a way to read again. A failed re-read of a list on show keeps the list (below).
  if (!data)
    return (
      <Alert severity="error" data-testid="history-error" action={retry}>
        Не удалось загрузить историю. Проверьте подключение и повторите.
      </Alert>
    );
  const stale = isError && (
    <Alert severity="warning" data-testid="history-stale" action={retry}>
      Не удалось обновить историю: показана загруженная раньше.
    </Alert>
  );
  if (data.total === 0)
    return (
      <Stack spacing={2}>
        {stale}
        <Typography color="textSecondary" tabIndex={-1} data-focus-list="history">
          Заявок пока нет. Пополните кошелёк — заявка появится здесь.
        </Typography>
      </Stack>
    );
  return (
    <Stack spacing={2} ref={top}>
      {stale}
      <List disablePadding tabIndex={-1} data-focus-list="history">
        {data.data.map((item) => (
          <HistoryItem key={item.id} item={item} focusFrom={focusFrom} />
        ))}
      </List>
      {pages > 1 && <Pagination count={pages} page={Math.min(page, pages)} onChange={(_, p) => setPage(p)} sx={{ alignSelf: 'center' }} />}
    </Stack>
  );
}
