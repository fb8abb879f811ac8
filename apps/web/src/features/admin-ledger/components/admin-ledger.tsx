import { CURRENCIES, type LedgerTotalsRow } from '@adena/contract';
import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Button from '@mui/material/Button';
import Link from '@mui/material/Link';
import Paper from '@mui/material/Paper';
import Skeleton from '@mui/material/Skeleton';
import Stack from '@mui/material/Stack';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import { Link as RouterLink } from 'wouter';
import { ApiError } from '../../../lib/api-client';
import { formatAmount } from '../../../utils/format-amount';
import { useAdminLedgerAudit, useAdminLedgerTotals } from '../api/ledger';
import { scrollsSideways } from '../../../components/scrolls-sideways';
import { RefreshFailed } from '../../../components/load-failed';

const dateTime = new Intl.DateTimeFormat('ru-RU', { dateStyle: 'short', timeStyle: 'medium' });

function Amount({ value, account, strong }: { value: number; account?: number | null; strong?: boolean }) {
  const text = formatAmount(value);
  const body = strong ? <b>{text}</b> : text;
  return account ? (
    <Link component={RouterLink} to={`/admin/ledger/accounts/${account}`} title="Записи счёта">
      {body}
    </Link>
  ) : (
    body
  );
}

const COLUMNS: Array<{ key: string; title: string; hint: string }> = [
  { key: 'wallets', title: 'На кошельках', hint: 'Сумма балансов игроков' },
  { key: 'payout', title: 'Удержано на вывод', hint: 'Выводы, ждущие оператора' },
  { key: 'escrow', title: 'В кодах', hint: 'Активные коды, ещё не активированные' },
  { key: 'owed', title: 'Должны игрокам', hint: 'Кошельки + удержанное + коды' },
  { key: 'fees', title: 'Комиссии', hint: 'Доход сервиса с кодов' },
  { key: 'cash', title: 'Получено кассиром', hint: 'Пришло через кассира за вычетом выплат: должно равняться «должны игрокам» + комиссии' },
];

function AuditPanel() {
  const audit = useAdminLedgerAudit();
  return (
    <Stack spacing={1.5} data-testid="ledger-audit">
      {/* On a phone the explanation goes under the button: beside it, it squeezed the button's text onto two lines (walk 16). */}
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={{ xs: 1, sm: 2 }} sx={{ alignItems: { xs: 'flex-start', sm: 'center' } }}>
        <Button variant="contained" onClick={() => void audit.refetch()} disabled={audit.isFetching} sx={{ flexShrink: 0 }}>
          {audit.isFetching ? 'Проверяем…' : 'Проверить журнал'}
        </Button>
        <Typography variant="body2" color="textSecondary">
          Сверяет каждую проводку, баланс каждого кошелька, удержания с заявками и депонент с кодами.
        </Typography>
      </Stack>
      {audit.isError && (
        <Alert severity="error">
          {audit.error instanceof ApiError && audit.error.message ? audit.error.message : 'Проверка журнала недоступна'}
        </Alert>
      )}
      {/* A failed re-check hides the previous verdict: a green «сходится» beside the error would vouch for a check that did not run. */}
      {audit.data &&
        !audit.isError &&
        (audit.data.ok ? (
          <Alert severity="success" data-testid="ledger-audit-verdict">
            <AlertTitle>Журнал сходится</AlertTitle>
            Все инварианты соблюдены. Проверено {dateTime.format(new Date(audit.data.checked_at))}.
          </Alert>
        ) : (
          <Alert severity="error" data-testid="ledger-audit-verdict">
            <AlertTitle>Найдены расхождения: {audit.data.problems.length}</AlertTitle>
            <ul style={{ margin: 0, paddingLeft: 20 }}>
              {audit.data.problems.map((p) => (
                <li key={p}>{p}</li>
              ))}
            </ul>
          </Alert>
        ))}
    </Stack>
  );
}

/** What the service holds and owes per server and currency, with the audit on demand. */
export function AdminLedger() {
  const totals = useAdminLedgerTotals();
  const { data, isPending, isError, error } = totals;
  const value = (r: LedgerTotalsRow, key: string) => {
    switch (key) {
      case 'wallets':
        return <Amount value={r.wallets} />;
      case 'payout':
        return <Amount value={r.payout} account={r.accounts.payout} />;
      case 'escrow':
        return <Amount value={r.escrow} account={r.accounts.escrow} />;
      case 'owed':
        return <Amount value={r.owed} strong />;
      case 'fees':
        return <Amount value={r.fees} account={r.accounts.fees} />;
      default:
        // The cash account runs negative: it is the other side of what players hold and what was paid.
        return <Amount value={r.cash === 0 ? 0 : -r.cash} account={r.accounts.cash} />;
    }
  };
  return (
    <Stack spacing={3} data-view="admin-ledger">
      <Typography variant="h1">Учёт</Typography>
      <AuditPanel />
      <Stack spacing={1}>
        <Typography variant="h2">Остатки по серверам</Typography>
        {isPending ? (
          <Skeleton variant="rounded" height={200} />
        ) : data === undefined ? (
          <Alert severity="error">{error instanceof ApiError ? error.message : 'Не удалось загрузить остатки'}</Alert>
        ) : (
          <>
            {isError && <RefreshFailed query={totals} testId="ledger-totals-stale" />}
            <Paper variant="outlined" sx={scrollsSideways}>
              <Table size="small" aria-label="Остатки по серверам и валютам">
                <TableHead>
                  <TableRow>
                    <TableCell>Сервер</TableCell>
                    <TableCell>Валюта</TableCell>
                    {COLUMNS.map((c) => (
                      <TableCell key={c.key} align="right">
                        <Tooltip title={c.hint}>
                          <span>{c.title}</span>
                        </Tooltip>
                      </TableCell>
                    ))}
                  </TableRow>
                </TableHead>
                <TableBody>
                  {data.data.map((r) => (
                    <TableRow key={`${r.gamesserver_id}:${r.currency_type}`} data-testid="ledger-totals-row">
                      <TableCell>{r.gamesserver}</TableCell>
                      <TableCell>{CURRENCIES[r.currency_type].title}</TableCell>
                      {COLUMNS.map((c) => (
                        <TableCell key={c.key} align="right" sx={{ whiteSpace: 'nowrap' }}>
                          {value(r, c.key)}
                        </TableCell>
                      ))}
                    </TableRow>
                  ))}
                </TableBody>
              </Table>
            </Paper>
            <Typography variant="body2" color="textSecondary">
              Рассчитано {dateTime.format(new Date(data.computed_at))}. Суммы — по журналу проводок; нажмите на сумму, чтобы увидеть записи счёта.
            </Typography>
          </>
        )}
      </Stack>
    </Stack>
  );
}
