import { CURRENCIES } from '@adena/contract/lite';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Paper from '@mui/material/Paper';
import Skeleton from '@mui/material/Skeleton';
import Stack from '@mui/material/Stack';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import type { ReactNode } from 'react';
import { ApiError } from '../../../lib/api-client';
import { formatAmount } from '../../../utils/format-amount';
import { amountText } from '../../../utils/plural';
import { useAdminDashboard } from '../api/dashboard';
import { minutesText, useMinutesSince } from '../../../hooks/use-minutes-since';
import { scrollsSideways } from '../../../components/scrolls-sideways';
import { RefreshFailed } from '../../../components/load-failed';

/** A median in minutes: «~3 мин», and no «~» before «меньше минуты». */
const approx = (m: number) => (m < 1 ? minutesText(m) : `~${minutesText(m)}`);

const dateTime = new Intl.DateTimeFormat('ru-RU', { dateStyle: 'short', timeStyle: 'short' });

function Tile({ title, children, testId }: { title: string; children: ReactNode; testId?: string }) {
  return (
    <Paper variant="outlined" sx={{ p: 2, flex: 1, minWidth: 0 }} data-testid={testId}>
      <Typography variant="body2" color="textSecondary" gutterBottom>
        {title}
      </Typography>
      {children}
    </Paper>
  );
}

/** Counted here from `created_at` as the queue's card counts «ждёт», so the two never show different minutes. */
function Oldest({ r }: { r: NonNullable<NonNullable<ReturnType<typeof useAdminDashboard>['data']>['oldest']> }) {
  const waited = useMinutesSince(r.created_at);
  return (
    <>
      <Typography variant="h2" component="p" color={waited >= 60 ? 'error' : undefined}>
        {minutesText(waited)}
      </Typography>
      <Typography variant="body2" color="textSecondary">
        №{r.id} · {r.type === 'input' ? `пополнение на ${amountText(r.amount, r.currency_type, '\u00a0', 'acc')}` : `вывод ${amountText(r.amount, r.currency_type, '\u00a0', 'gen')}`} · {r.gamesserver} · с{' '}
        {dateTime.format(new Date(r.created_at))}
      </Typography>
    </>
  );
}

// On a phone the currency goes under the server's name: four columns did not fit 390 px, and «Выводы»,
// scrolled out of sight, looked cut off (walk 14).
const wideOnly = { display: { xs: 'none', sm: 'table-cell' } } as const;
const phoneOnly = { display: { xs: 'block', sm: 'none' } } as const;
const phoneCell = { px: { xs: 1, sm: 2 }, '&:first-of-type': { pl: 2 } } as const;
const phoneAmount = { pl: { xs: 1, sm: 2 } } as const;

type PendingRow = { gamesserver_id: number; gamesserver: string; currency_type: 1 | 2; input?: { count: number; sum: number }; output?: { count: number; sum: number } };

/** Pending requests per server and currency, the oldest waiting, and the operators' 24-hour median. */
export function AdminDashboard({ live = false }: { live?: boolean }) {
  const dashboard = useAdminDashboard(live);
  const { data, isPending, isError, error } = dashboard;
  if (isPending) return <Skeleton variant="rounded" height={180} />;
  const said = error instanceof ApiError ? error.message : 'Не удалось загрузить сводку';
  // Only with nothing to show is the error all there is: a failed poll keeps the figures already read.
  if (data === undefined) return <Alert severity="error">{said}</Alert>;

  const rows = new Map<string, PendingRow>();
  for (const p of data.pending) {
    const key = `${p.gamesserver_id}:${p.currency_type}`;
    const row = rows.get(key) ?? { gamesserver_id: p.gamesserver_id, gamesserver: p.gamesserver, currency_type: p.currency_type };
    row[p.type] = { count: p.count, sum: p.sum };
    rows.set(key, row);
  }
  const totalPending = data.pending.reduce((n, p) => n + p.count, 0);
  const cell = (v?: { count: number; sum: number }) =>
    v ? (
      <>
        <b>{formatAmount(v.count)}</b> на {formatAmount(v.sum)}
      </>
    ) : (
      <Typography component="span" color="textSecondary">
        —
      </Typography>
    );

  return (
    <Stack spacing={2} data-view="admin-dashboard">
      <Typography variant="h1">Сводка</Typography>
      {isError && <RefreshFailed query={dashboard} testId="dashboard-stale" />}
      <Stack direction={{ xs: 'column', md: 'row' }} spacing={2}>
        <Tile title="Ожидают обработки" testId="dashboard-pending-total">
          <Typography variant="h2" component="p">
            {formatAmount(totalPending)}
          </Typography>
        </Tile>
        <Tile title="Дольше всех ждёт" testId="dashboard-oldest">
          {data.oldest ? (
            <Oldest r={data.oldest} />
          ) : (
            <Typography variant="h2" component="p" color="textSecondary">
              Никто
            </Typography>
          )}
        </Tile>
        <Tile title="Медиана обработки за 24 ч" testId="dashboard-median">
          <Typography variant="h2" component="p">
            {data.median_all_minutes === null ? '—' : approx(data.median_all_minutes)}
          </Typography>
          <Typography variant="body2" color="textSecondary">
            обработано заявок: {formatAmount(data.processed_24h)}
          </Typography>
        </Tile>
      </Stack>

      <Stack direction={{ xs: 'column', lg: 'row' }} spacing={2} sx={{ alignItems: 'flex-start' }}>
        <Paper variant="outlined" sx={[scrollsSideways, { flex: 2, width: '100%' }]}>
          <Table size="small" aria-label="Ожидающие заявки по серверам">
            <TableHead>
              <TableRow>
                <TableCell sx={phoneCell}>Сервер</TableCell>
                <TableCell sx={wideOnly}>Валюта</TableCell>
                <TableCell align="right" sx={phoneCell}>Пополнения</TableCell>
                <TableCell align="right" sx={phoneAmount}>Выводы</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {rows.size === 0 ? (
                <TableRow>
                  <TableCell colSpan={4}>
                    <Typography color="textSecondary">Ожидающих заявок нет.</Typography>
                  </TableCell>
                </TableRow>
              ) : (
                [...rows.values()].map((r) => (
                  <TableRow key={`${r.gamesserver_id}:${r.currency_type}`}>
                    <TableCell sx={phoneCell}>
                      {r.gamesserver}
                      <Typography variant="body2" color="textSecondary" sx={phoneOnly}>
                        {CURRENCIES[r.currency_type].title}
                      </Typography>
                    </TableCell>
                    <TableCell sx={wideOnly}>{CURRENCIES[r.currency_type].title}</TableCell>
                    <TableCell align="right" sx={phoneCell}>{cell(r.input)}</TableCell>
                    <TableCell align="right" sx={phoneAmount}>{cell(r.output)}</TableCell>
                  </TableRow>
                ))
              )}
            </TableBody>
          </Table>
        </Paper>
        <Paper variant="outlined" sx={{ flex: 1, width: '100%' }}>
          <Table size="small" aria-label="Медиана обработки по серверам">
            <TableHead>
              <TableRow>
                <TableCell>Сервер</TableCell>
                <TableCell align="right">Медиана, 24 ч</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {data.medians.map((m) => (
                <TableRow key={m.gamesserver_id}>
                  <TableCell>{m.gamesserver}</TableCell>
                  <TableCell align="right">
                    {m.minutes === null ? (
                      <Box component="span" sx={{ color: 'text.secondary' }}>
                        нет данных
                      </Box>
                    ) : (
                      `${approx(m.minutes)} (${formatAmount(m.processed)})`
                    )}
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </Paper>
      </Stack>
    </Stack>
  );
}
