import type { AdminGamesserver } from '@adena/contract';
import Add from '@mui/icons-material/Add';
import Edit from '@mui/icons-material/Edit';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import IconButton from '@mui/material/IconButton';
import Paper from '@mui/material/Paper';
import Skeleton from '@mui/material/Skeleton';
import Stack from '@mui/material/Stack';
import Switch from '@mui/material/Switch';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import { useState } from 'react';
import { AppDialog } from '../../../components/app-dialog';
import { ApiError } from '../../../lib/api-client';
import { UNTIL_CLOSED, useUi } from '../../../lib/ui-store';
import { formatAmount, formatShort } from '../../../utils/format-amount';
import { amountText } from '../../../utils/plural';
import { useAdminGamesservers, useServerHoldings, useSaveGamesserver } from '../api/servers';
import { ServerFormDialog } from './server-form-dialog';
import { scrollsSideways } from '../../../components/scrolls-sideways';
import { RefreshFailed } from '../../../components/load-failed';

const pct = (bp: number) => `${(bp / 100).toLocaleString('ru-RU')}%`;
const range = (l: { min: number; max: number }) => `${formatShort(l.min)}–${formatShort(l.max)}`;

/** In the hide dialog: what players hold there, which they cannot file withdrawals of while it is hidden. */
function Holdings({ serverId }: { serverId: number }) {
  const { data, isPending, isError } = useServerHoldings(serverId);
  if (isPending) return <Skeleton variant="text" data-testid="server-holdings-loading" />;
  if (isError) return <Alert severity="warning" sx={{ mt: 1.5 }}>Не удалось узнать, сколько игроки держат на этом сервере.</Alert>;
  const held = ([1, 2] as const)
    .map((currency) => ({ currency, owed: data.find((r) => r.currency_type === currency)?.owed ?? 0 }))
    .filter((h) => h.owed > 0)
    .map((h) => amountText(h.owed, h.currency, '\u00a0', 'acc'));
  if (held.length === 0) return <Typography sx={{ mt: 1.5 }} color="textSecondary">Денег игроков на нём нет.</Typography>;
  return (
    <Alert severity="warning" data-testid="server-holdings" sx={{ mt: 1.5 }}>
      Игроки держат на нём {held.join(' и ')} — на кошельках, в заявках на вывод и в неактивированных кодах. Пока сервер скрыт, новые заявки на вывод
      подать нельзя.
    </Alert>
  );
}

/** Every game server, inactive ones too: settings at a glance, edit, show or hide (after a confirmation). */
export function AdminServers({ onChanged }: { onChanged?: () => void }) {
  const servers = useAdminGamesservers();
  const { data, isPending, isError, error } = servers;
  const { update } = useSaveGamesserver(onChanged);
  const alert = useUi((s) => s.alert);
  const [editing, setEditing] = useState<AdminGamesserver | 'new' | null>(null);
  // Hiding a server refuses its requests and codes for every player at once, so the switch asks first.
  const [toggling, setToggling] = useState<AdminGamesserver | null>(null);
  const toggle = (s: AdminGamesserver) => {
    setToggling(null);
    update.mutate({ id: s.id, body: { active: !s.active } }, { onError: (err) => alert(err instanceof ApiError ? err.message : 'Не удалось сохранить', [], UNTIL_CLOSED) });
  };

  return (
    <Stack spacing={2} data-view="admin-servers">
      <Stack direction="row" sx={{ justifyContent: 'space-between', alignItems: 'center' }}>
        <Typography variant="h1">Игровые серверы</Typography>
        <Button variant="contained" startIcon={<Add />} onClick={() => setEditing('new')}>
          Добавить сервер
        </Button>
      </Stack>
      <Typography color="textSecondary">Изменения видны игрокам сразу и записываются в журнал действий.</Typography>
      {/* A failed re-read keeps the rows already read on screen, with this warning above them. */}
      {isError && data !== undefined && <RefreshFailed query={servers} testId="servers-stale" />}
      {isPending ? (
        <Skeleton variant="rounded" height={220} />
      ) : data === undefined ? (
        <Alert severity="error">{error instanceof ApiError ? error.message : 'Не удалось загрузить серверы'}</Alert>
      ) : (
        <Paper variant="outlined" sx={scrollsSideways}>
          <Table size="small" aria-label="Игровые серверы">
            <TableHead>
              <TableRow>
                {/* The display order (the form's «Порядок»), not the server's number: a new server's is 0. */}
                <TableCell align="right">Порядок</TableCell>
                <TableCell>Сервер</TableCell>
                <TableCell>Кассир</TableCell>
                <TableCell align="right">Комиссия / VIP</TableCell>
                <TableCell align="right">Мин. номинал</TableCell>
                <TableCell>Номиналы</TableCell>
                <TableCell>Пополнение, адена</TableCell>
                <TableCell>Вывод, адена</TableCell>
                <TableCell align="right">VIP</TableCell>
                <TableCell>Виден</TableCell>
                <TableCell />
              </TableRow>
            </TableHead>
            <TableBody>
              {data.map((s) => (
                <TableRow key={s.id} data-testid="admin-server-row" sx={{ opacity: s.active ? 1 : 0.6 }}>
                  <TableCell align="right">{s.sort_order}</TableCell>
                  <TableCell>
                    <b>{s.name}</b>
                    {!s.active && <Chip size="small" label="скрыт" sx={{ ml: 1 }} />}
                  </TableCell>
                  <TableCell>{s.cashier_nick}</TableCell>
                  <TableCell align="right" data-testid="admin-server-fee">
                    {pct(s.code_fee_bp)} / {pct(s.vip_code_fee_bp)}
                  </TableCell>
                  <TableCell align="right">{formatShort(s.min_nominal)}</TableCell>
                  <TableCell sx={{ maxWidth: 180 }}>{s.standard_nominals.map(formatShort).join(', ') || '—'}</TableCell>
                  <TableCell sx={{ whiteSpace: 'nowrap' }}>{range(s.limits.input['1'])}</TableCell>
                  <TableCell sx={{ whiteSpace: 'nowrap' }}>{range(s.limits.output['1'])}</TableCell>
                  <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
                    {formatAmount(s.vip_price)} мон. / {s.vip_period_days} дн.
                  </TableCell>
                  <TableCell>
                    <Switch
                      size="small"
                      checked={s.active}
                      disabled={update.isPending}
                      slotProps={{ input: { 'aria-label': `${s.name}: виден игрокам` } }}
                      onChange={() => setToggling(s)}
                    />
                  </TableCell>
                  <TableCell>
                    <Tooltip title="Изменить">
                      <IconButton size="small" aria-label={`Изменить ${s.name}`} onClick={() => setEditing(s)}>
                        <Edit fontSize="small" />
                      </IconButton>
                    </Tooltip>
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </Paper>
      )}
      <AppDialog
        open={toggling !== null}
        onClose={() => setToggling(null)}
        title={toggling ? `${toggling.active ? 'Скрыть' : 'Показать'} сервер ${toggling.name}?` : ''}
        testId="server-visibility-dialog"
        actions={
          <>
            <Button onClick={() => setToggling(null)}>Отмена</Button>
            <Button variant="contained" color={toggling?.active ? 'error' : 'primary'} disabled={update.isPending} onClick={() => toggling && toggle(toggling)}>
              {toggling ? (toggling.active ? 'Скрыть' : 'Показать') : ''}
            </Button>
          </>
        }
      >
        {toggling && (
          <Typography>
            {toggling.active
              ? 'Игроки перестанут его видеть, новые заявки и активации кодов на нём будут отклоняться. Заявки, уже поданные, можно довести до конца.'
              : 'Игроки снова увидят его и смогут подавать заявки и активировать коды.'}
          </Typography>
        )}
        {toggling?.active && <Holdings serverId={toggling.id} />}
      </AppDialog>
      <ServerFormDialog
        open={editing !== null}
        server={editing === 'new' ? null : editing}
        onClose={() => setEditing(null)}
        onChanged={onChanged}
      />
    </Stack>
  );
}
