import { CURRENCIES } from '@adena/contract';
import ArrowBack from '@mui/icons-material/ArrowBack';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Link from '@mui/material/Link';
import Pagination from '@mui/material/Pagination';
import Paper from '@mui/material/Paper';
import Skeleton from '@mui/material/Skeleton';
import Stack from '@mui/material/Stack';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import { useState } from 'react';
import { Link as RouterLink } from 'wouter';
import { ApiError } from '../../../lib/api-client';
import { useListTop } from '../../../hooks/use-list-top';
import { formatAmount } from '../../../utils/format-amount';
import { amountText } from '../../../utils/plural';
import { ENTRIES_PAGE_SIZE, useAdminAccountEntries } from '../api/ledger';
import { scrollsSideways } from '../../../components/scrolls-sideways';
import { RefreshFailed } from '../../../components/load-failed';
import { ACCOUNT_KINDS, refTypeLabel, signedAmount, transactionKindLabel } from '../../../utils/ledger-labels';

const dateTime = new Intl.DateTimeFormat('ru-RU', { dateStyle: 'short', timeStyle: 'medium' });

/** Any ledger account's entries, newest first, paged. */
export function AccountEntries({ id }: { id: number }) {
  const [page, setPage] = useState(1);
  // The pager is under the list: a new page starts at the list's top, not scrolled to its bottom.
  const top = useListTop<HTMLDivElement>(page);
  const entries = useAdminAccountEntries(id, page);
  const { data, isPending, isError, error } = entries;
  if (isPending) return <Skeleton variant="rounded" height={320} />;
  // Only with nothing read is the error all there is: a failed re-read keeps the entries on screen.
  if (data === undefined) return <Alert severity="error">{error instanceof ApiError ? error.message : 'Не удалось загрузить счёт'}</Alert>;
  const a = data.account;
  return (
    <Stack spacing={2} data-view="admin-account" ref={top}>
      {isError && <RefreshFailed query={entries} testId="account-stale" />}
      <div>
        <Button component={RouterLink} to="/admin/ledger" startIcon={<ArrowBack />} size="small" sx={{ mb: 1 }}>
          К учёту
        </Button>
        <Typography variant="h1">
          {a.kind === 'wallet' && a.wallet_id !== null ? `Кошелёк №${a.wallet_id}` : ACCOUNT_KINDS[a.kind]} · {a.gamesserver}
        </Typography>
        <Typography color="textSecondary">
          Счёт {a.key} · {CURRENCIES[a.currency_type].title}
          {a.user_id !== null && (
            <>
              {' · '}
              владелец:{' '}
              <Link component={RouterLink} to={`/admin/users/${a.user_id}`}>
                пользователь №{a.user_id}
              </Link>
            </>
          )}
        </Typography>
        <Typography variant="h2" component="p" sx={{ mt: 1 }}>
          Остаток по журналу: {a.balance < 0 && '\u2212'}
          {amountText(Math.abs(a.balance), a.currency_type, '\u00a0')}
        </Typography>
        {a.kind === 'cash' && (
          <Typography variant="body2" color="textSecondary">
            Касса ведётся со знаком минус — это встречная сторона балансов игроков: кассир получил в игре {amountText(a.balance === 0 ? 0 : -a.balance, a.currency_type, '\u00a0', 'acc')}{' '}
            за вычетом выплат.
          </Typography>
        )}
      </div>
      {data.total === 0 ? (
        <Typography color="textSecondary">Записей нет.</Typography>
      ) : (
        <>
          <Paper variant="outlined" sx={scrollsSideways}>
            <Table size="small" aria-label="Записи счёта">
              <TableHead>
                <TableRow>
                  <TableCell>Запись</TableCell>
                  <TableCell>Когда</TableCell>
                  <TableCell>Проводка</TableCell>
                  <TableCell>Основание</TableCell>
                  <TableCell align="right">Сумма</TableCell>
                  <TableCell align="right">Остаток после</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {data.data.map((e) => (
                  <TableRow key={e.id}>
                    <TableCell>{e.id}</TableCell>
                    <TableCell sx={{ whiteSpace: 'nowrap' }}>{dateTime.format(new Date(e.created_at))}</TableCell>
                    <TableCell>
                      №{e.transaction_id} · {transactionKindLabel(e.transaction_kind)}
                    </TableCell>
                    <TableCell>
                      {e.ref_type ? `${refTypeLabel(e.ref_type)} №${e.ref_id}` : '—'}
                      {e.actor_user_id !== null && (
                        // The entry carries only the actor's id: their card has the name.
                        <Typography component="span" variant="body2" color="textSecondary">
                          {' '}
                          · кто:{' '}
                          {e.actor_user_id === a.user_id ? (
                            'владелец'
                          ) : (
                            <Link component={RouterLink} to={`/admin/users/${e.actor_user_id}`}>
                              пользователь №{e.actor_user_id}
                            </Link>
                          )}
                        </Typography>
                      )}
                    </TableCell>
                    <TableCell align="right" sx={{ color: e.amount < 0 ? 'error.main' : 'success.main', whiteSpace: 'nowrap' }}>
                      {signedAmount(e.amount)}
                    </TableCell>
                    <TableCell align="right">{e.balance_after === null ? '—' : formatAmount(e.balance_after)}</TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </Paper>
          {data.total > ENTRIES_PAGE_SIZE && (
            <Pagination count={Math.ceil(data.total / ENTRIES_PAGE_SIZE)} page={page} onChange={(_, p) => setPage(p)} sx={{ alignSelf: 'center' }} />
          )}
        </>
      )}
    </Stack>
  );
}
