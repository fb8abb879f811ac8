import type { AdminLedgerEntry, } from '@adena/contract';
import ArrowBack from '@mui/icons-material/ArrowBack';
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
import Typography from '@mui/material/Typography';
import { type ReactNode, useEffect, useState } from 'react';
import { Link as RouterLink, useSearch } from 'wouter';
import { useFocusAfterRemoval } from '../../../hooks/use-focus-after-removal';
import { ApiError } from '../../../lib/api-client';
import { cancelStepUp } from '../../../lib/step-up';
import { formatAmount } from '../../../utils/format-amount';
import { amountText, currencyWord } from '../../../utils/plural';
import { useAdminUser, userCardTag } from '../api/users';
import { searchBack, UserChips } from './admin-users';
import { AdminRoleDialog, BlockDialog, TwoFactorOffDialog, UnblockDialog, VipDialog } from './user-dialogs';
import { scrollsSideways } from '../../../components/scrolls-sideways';
import { RefreshFailed } from '../../../components/load-failed';
import { accountKeyLabel, refTypeLabel, signedAmount, transactionKindLabel } from '../../../utils/ledger-labels';

const dateTime = new Intl.DateTimeFormat('ru-RU', { dateStyle: 'short', timeStyle: 'short' });
const REQUEST_STATUS = { pending: 'Ожидает', completed: 'Выполнена', rejected: 'Отклонена', cancelled: 'Отменена' } as const;
const CODE_STATUS = { active: 'Активен', activated: 'Активирован', cancelled: 'Отменён' } as const;

function Section({ title, children, testId }: { title: string; children: ReactNode; testId?: string }) {
  return (
    <Stack spacing={1} data-testid={testId}>
      <Typography variant="h2">{title}</Typography>
      {children}
    </Stack>
  );
}

function Empty({ text }: { text: string }) {
  return <Typography color="textSecondary">{text}</Typography>;
}


function EntriesTable({ entries }: { entries: AdminLedgerEntry[] }) {
  return (
    <Paper variant="outlined" sx={scrollsSideways}>
      <Table size="small" aria-label="Записи журнала">
        <TableHead>
          <TableRow>
            <TableCell>Когда</TableCell>
            <TableCell>Операция</TableCell>
            <TableCell>Счёт</TableCell>
            <TableCell align="right">Сумма</TableCell>
            <TableCell align="right">Остаток</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {entries.map((e) => (
            <TableRow key={e.id}>
              <TableCell sx={{ whiteSpace: 'nowrap' }}>{dateTime.format(new Date(e.created_at))}</TableCell>
              <TableCell>
                {transactionKindLabel(e.transaction_kind)}
                {e.ref_type && (
                  <Typography component="span" variant="body2" color="textSecondary">
                    {' '}
                    · {refTypeLabel(e.ref_type)} №{e.ref_id}
                  </Typography>
                )}
              </TableCell>
              <TableCell>
                <Link component={RouterLink} to={`/admin/ledger/accounts/${e.account_id}`}>
                  {accountKeyLabel(e.account_key)}
                </Link>
              </TableCell>
              <TableCell align="right" sx={{ color: e.amount < 0 ? 'error.main' : 'success.main', whiteSpace: 'nowrap' }}>
                {signedAmount(e.amount)} {currencyWord(e.amount, e.currency_type)}
              </TableCell>
              <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
                {e.balance_after === null ? '—' : formatAmount(e.balance_after)}
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </Paper>
  );
}

/** One user's card: who they are, their wallets, requests, codes and ledger entries, and the admin's actions. */
export function UserDetails({ id, currentUserId }: { id: number; currentUserId: number | null }) {
  const card = useAdminUser(id);
  const { data, isPending, isError, error } = card;
  const [dialog, setDialog] = useState<'block' | 'stolen' | 'unblock' | 'vip' | 'admin' | 'two-factor' | null>(null);
  // The operator's code asked for an action on this player is not asked over another player's card.
  useEffect(() => () => cancelStepUp(userCardTag(id)), [id]);
  // A block, an unblock or a TOTP rescue takes away the button that opened its dialog: focus goes to the one that
  // takes its place, not to the page's top (README «Keyboard and screen-reader users keep their place»).
  const focusFrom = useFocusAfterRemoval('admin-user-actions', { busy: dialog !== null });
  // The search the card was opened from (its row's link carries it): «К поиску» goes back to it.
  const search = useSearch();

  if (isPending) return <Skeleton variant="rounded" height={320} />;
  // Only with nothing read is the error all there is: a failed re-read keeps the card, an open dialog and its reason.
  if (data === undefined) return <Alert severity="error">{error instanceof ApiError ? error.message : 'Не удалось загрузить пользователя'}</Alert>;
  const { user, wallets, requests, codes, ledger } = data;
  // An admin never blocks or demotes themselves (the server refuses it too).
  const self = currentUserId === user.id;
  const serverName = (gid: number) => wallets.find((w) => w.gamesserver_id === gid)?.gamesserver ?? `сервер ${gid}`;

  return (
    <Stack spacing={3} data-view="admin-user">
      {isError && <RefreshFailed query={card} testId="user-stale" />}
      <div>
        <Button component={RouterLink} to={`/admin/users${searchBack(search)}`} startIcon={<ArrowBack />} size="small" sx={{ mb: 1 }}>
          К поиску
        </Button>
        <Stack direction={{ xs: 'column', md: 'row' }} spacing={2} sx={{ justifyContent: 'space-between' }}>
          <Stack spacing={0.5}>
            <Stack direction="row" spacing={1} useFlexGap sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
              <Typography variant="h1">{user.name || 'Без имени'}</Typography>
              <UserChips u={user} />
            </Stack>
            {/* A long e-mail breaks inside itself at 390 px rather than running off the screen. */}
            <Typography color="textSecondary" data-testid="user-subtitle" sx={{ overflowWrap: 'anywhere' }}>
              id {user.id}
              {user.email && ` · ${user.email}`}
              {user.phone && ` · ${user.phone}`}
              {user.telegram_id && ` · Telegram ${user.telegram_id}`}
              {user.discord_id && ` · Discord ${user.discord_id}`}
            </Typography>
            <Typography variant="body2" color="textSecondary">
              Зарегистрирован {dateTime.format(new Date(user.created_at))}
              {user.blocked_at && ` · заблокирован ${dateTime.format(new Date(user.blocked_at))}`}
            </Typography>
          </Stack>
          <Stack
            direction="row"
            spacing={1}
            useFlexGap
            sx={{ flexWrap: 'wrap', alignItems: 'flex-start' }}
            data-focus-row="admin-user-actions"
            data-focus-key={user.id}
          >
            <Button variant="outlined" disabled={self} onClick={() => setDialog('vip')}>
              {user.vip ? 'VIP…' : 'Выдать VIP'}
            </Button>
            <Button variant="outlined" disabled={self} onClick={() => setDialog('admin')}>
              {user.admin ? 'Снять админа' : 'Сделать админом'}
            </Button>
            {user.two_factor && !self && (
              <Button variant="outlined" color="warning" onClick={() => setDialog('two-factor')} data-focus-action="two-factor">
                Отключить вход с кодом
              </Button>
            )}
            {user.blocked_at ? (
              <>
                <Button variant="outlined" color="error" onClick={() => setDialog('stolen')} data-focus-action="stolen">
                  Аккаунт угнан…
                </Button>
                <Button variant="contained" onClick={() => setDialog('unblock')} data-focus-action="unblock">
                  Разблокировать
                </Button>
              </>
            ) : (
              <Button variant="contained" color="error" disabled={self} onClick={() => setDialog('block')} data-focus-action="block">
                Заблокировать
              </Button>
            )}
          </Stack>
        </Stack>
      </div>

      <Section title="Кошельки" testId="user-wallets">
        {wallets.length === 0 ? (
          <Empty text="Кошельков нет." />
        ) : (
          <Paper variant="outlined" sx={scrollsSideways}>
            <Table size="small" aria-label="Кошельки">
              <TableHead>
                <TableRow>
                  <TableCell>Сервер</TableCell>
                  <TableCell>Ник</TableCell>
                  <TableCell align="right">Адена</TableCell>
                  <TableCell align="right">Монеты</TableCell>
                  <TableCell align="right">Порог Telegram</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {wallets.map((w) => (
                  <TableRow key={w.id}>
                    <TableCell>{w.gamesserver}</TableCell>
                    <TableCell>{w.nick ?? '—'}</TableCell>
                    {([1, 2] as const).map((c) => {
                      const account = w.accounts[c];
                      const value = formatAmount(c === 1 ? w.balance : w.balance_second);
                      return (
                        <TableCell key={c} align="right">
                          {account ? (
                            <Link component={RouterLink} to={`/admin/ledger/accounts/${account}`} title="Записи счёта">
                              {value}
                            </Link>
                          ) : (
                            value
                          )}
                        </TableCell>
                      );
                    })}
                    <TableCell align="right">{w.telegram_price === null ? '—' : formatAmount(w.telegram_price)}</TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </Paper>
        )}
      </Section>

      <Section title="Заявки" testId="user-requests">
        {requests.length === 0 ? (
          <Empty text="Заявок нет." />
        ) : (
          <Paper variant="outlined" sx={scrollsSideways}>
            <Table size="small" aria-label="Заявки">
              <TableHead>
                <TableRow>
                  <TableCell>№</TableCell>
                  <TableCell>Когда</TableCell>
                  <TableCell>Сервер</TableCell>
                  <TableCell>Тип</TableCell>
                  <TableCell align="right">Сумма</TableCell>
                  <TableCell>Статус</TableCell>
                  <TableCell>Комментарий</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {requests.map((r) => (
                  <TableRow key={r.id}>
                    <TableCell>{r.id}</TableCell>
                    <TableCell sx={{ whiteSpace: 'nowrap' }}>{dateTime.format(new Date(r.created_at))}</TableCell>
                    <TableCell sx={{ whiteSpace: 'nowrap' }}>{r.gamesserver}</TableCell>
                    <TableCell>{r.type === 'input' ? 'Пополнение' : 'Вывод'}</TableCell>
                    <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
                      {amountText(r.amount, r.currency_type, '\u00a0')}
                    </TableCell>
                    <TableCell>
                      <Chip size="small" variant="outlined" label={REQUEST_STATUS[r.status]} color={r.status === 'pending' ? 'warning' : 'default'} />
                      {r.hidden && <Chip size="small" label="скрыта игроком" sx={{ ml: 0.5 }} />}
                    </TableCell>
                    <TableCell>{r.comment ?? ''}</TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </Paper>
        )}
      </Section>

      <Section title="Коды" testId="user-codes">
        {codes === null ? (
          <Empty text="Коды недоступны." />
        ) : codes.length === 0 ? (
          <Empty text="Кодов нет." />
        ) : (
          <Paper variant="outlined" sx={scrollsSideways}>
            <Table size="small" aria-label="Коды">
              <TableHead>
                <TableRow>
                  <TableCell>№</TableCell>
                  <TableCell>Выпущен</TableCell>
                  <TableCell>Сервер</TableCell>
                  <TableCell align="right">Номинал</TableCell>
                  <TableCell align="right">Цена</TableCell>
                  <TableCell>Статус</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {codes.map((c) => (
                  <TableRow key={c.id}>
                    <TableCell>
                      <Link component={RouterLink} to={`/admin/codes?id=${c.id}`}>
                        {c.id}
                      </Link>
                    </TableCell>
                    <TableCell sx={{ whiteSpace: 'nowrap' }}>{dateTime.format(new Date(c.created_at))}</TableCell>
                    <TableCell>{serverName(c.gamesserver_id)}</TableCell>
                    <TableCell align="right">{formatAmount(c.nominal)}</TableCell>
                    <TableCell align="right">{formatAmount(c.price)}</TableCell>
                    <TableCell>{CODE_STATUS[c.status]}</TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </Paper>
        )}
      </Section>

      <Section title="Движения по кошелькам" testId="user-ledger">
        {ledger.length === 0 ? <Empty text="Движений нет." /> : <EntriesTable entries={ledger} />}
      </Section>

      <BlockDialog user={user} open={dialog === 'block'} onClose={() => setDialog(null)} focus={() => focusFrom(user.id, 'block', 'unblock')} />
      <BlockDialog user={user} stolen open={dialog === 'stolen'} onClose={() => setDialog(null)} />
      <UnblockDialog user={user} open={dialog === 'unblock'} onClose={() => setDialog(null)} focus={() => focusFrom(user.id, 'unblock', 'block')} />
      {/* VIP and the admin role keep their button (only its text changes): MUI gives focus back to it. */}
      {dialog === 'vip' && <VipDialog user={user} open onClose={() => setDialog(null)} />}
      <AdminRoleDialog user={user} open={dialog === 'admin'} onClose={() => setDialog(null)} />
      {/* The rescue's button leaves with nothing in its place: focus goes to the next one along. */}
      <TwoFactorOffDialog
        user={user}
        open={dialog === 'two-factor'}
        onClose={() => setDialog(null)}
        focus={() => focusFrom(user.id, 'two-factor', user.blocked_at ? 'stolen' : 'block')}
      />
    </Stack>
  );
}
