import type { Gamesserver } from '@adena/contract/lite';
import { ALERT_TIMEOUT_MS } from '@adena/contract/lite';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import ToggleButton from '@mui/material/ToggleButton';
import ToggleButtonGroup from '@mui/material/ToggleButtonGroup';
import Typography from '@mui/material/Typography';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useRequestKey } from '../../../hooks/use-request-key';
import { AppDialog } from '../../../components/app-dialog';
import { ApiError } from '../../../lib/api-client';
import { useUi } from '../../../lib/ui-store';
import { formatAmount } from '../../../utils/format-amount';
import { amountText, plural } from '../../../utils/plural';
import { useUser } from '../../../lib/session';
import { gamesserversQueryOptions } from '../../../lib/gamesservers';
import { isPriceChange } from '../api/create-pricekod';
import { useBuyVip } from '../api/vip';
import { alertContent, dateOnly, refusedElsewhere } from './code-format';
import { useOpening } from './use-opening';

const MONTHS = [1, 3, 6, 12] as const;
const months = (n: number) => `${n} ${plural(n, ['месяц', 'месяца', 'месяцев'])}`;
const coins = (n: number) => amountText(n, 2, '\u00a0');
const percent = (bp: number) => `${(bp / 100).toLocaleString('ru-RU')}%`;

/** VIP: paid with the coins of this server's wallet; the lower code fee applies at once. */
export function VipDialog({ server, coinBalance }: { server: Gamesserver; coinBalance: number | null }) {
  const open = useUi((s) => s.dialog.name === 'vip');
  const close = useUi((s) => s.closeDialog);
  const openDialog = useUi((s) => s.openDialog);
  const snackbar = useUi((s) => s.showSnackbar);
  const alert = useUi((s) => s.alert);
  const { user } = useUser();
  const buy = useBuyVip();
  const qc = useQueryClient();
  const [count, setCount] = useState<number>(1);
  // After a lost answer the same purchase keeps its key (answered from the first try); other months or another server is another purchase.
  const keys = useRequestKey('vip');
  // Whether the opening a purchase was made in is still on screen: not after it was closed (or opened
  // again), nor after the player switched server, when the VIP dialog shown is the next server's.
  const opening = useOpening();
  // vip_period_days is the period vip_price pays for; a month is that period.
  const total = server.vip_price * count;
  const days = server.vip_period_days * count;
  const short = coinBalance !== null && coinBalance < total;
  return (
    <AppDialog
      open={open}
      onClose={close}
      title="VIP"
      testId="vip-dialog"
      actions={
        <>
          <Button onClick={close}>Закрыть</Button>
          <Button
            variant="contained"
            disabled={buy.isPending}
            onClick={() => {
              const stillOpen = opening();
              void keys
                // The key names the server and months, not the terms: after a lost answer that went through, a retry
                // at terms read again since is answered from the first try (or refused), never charged twice.
                .send(`${server.id}:${count}`, (idempotencyKey) =>
                  buy.mutateAsync({ months: count, gamesserver_id: server.id, price: total, days, idempotencyKey }),
                )
                .then(
                  (r) => {
                    const until = r.success.vip_until ? `VIP действует до ${dateOnly.format(new Date(r.success.vip_until))}` : 'VIP подключён';
                    // Answered after the player closed it or left the server: only the notice, naming the wallet that paid; no other dialog is closed.
                    if (!stillOpen()) return snackbar(`${until}: оплачен с кошелька на ${server.name}`);
                    close();
                    snackbar(until);
                  },
                  (err: unknown) => {
                    // An operator changed the price or period since the dialog was read: nothing was
                    // charged; the server's terms are read again, so the dialog states the new ones.
                    if (isPriceChange(err)) void qc.invalidateQueries({ queryKey: gamesserversQueryOptions().queryKey });
                    if (!stillOpen()) return refusedElsewhere(snackbar, `VIP не куплен с кошелька на ${server.name}`, err);
                    if (err instanceof ApiError && err.body.low_cap) return openDialog({ name: 'low_capacity', currency: 2 });
                    const { text, errors } = alertContent(err);
                    alert(text, errors, ALERT_TIMEOUT_MS);
                  },
                );
            }}
          >
            {user?.vip ? 'Продлить' : 'Купить'} за {formatAmount(total)} {plural(total, ['монету', 'монеты', 'монет'])}
          </Button>
        </>
      }
    >
      <Stack spacing={2}>
        {user?.vip && user.vip_until ? (
          <Alert severity="success">VIP действует до {dateOnly.format(new Date(user.vip_until))}.</Alert>
        ) : (
          <Typography>VIP выгоден, если вы часто выпускаете коды или выводите адену.</Typography>
        )}
        <Stack component="ul" spacing={0.5} sx={{ pl: 2.5, m: 0 }}>
          <li>
            Комиссия за коды {percent(server.vip_code_fee_bp)} вместо {percent(server.code_fee_bp)}.
          </li>
          <li>Заявки на вывод обрабатываются в первую очередь.</li>
        </Stack>
        <div>
          <Typography variant="body2" color="textSecondary" gutterBottom>
            Срок
          </Typography>
          {/* Short labels in one row: «12 месяцев» wrapped to a second line at 390 px and broke the group. */}
          <ToggleButtonGroup exclusive fullWidth size="small" color="primary" value={count} onChange={(_, v: number | null) => v && setCount(v)} aria-label="Срок VIP">
            {MONTHS.map((m) => (
              <ToggleButton key={m} value={m} aria-label={months(m)} sx={{ whiteSpace: 'nowrap' }}>
                {m} мес.
              </ToggleButton>
            ))}
          </ToggleButtonGroup>
        </div>
        <Typography>
          Стоимость: <b>{coins(total)}</b>
          {count > 1 ? ` (${coins(server.vip_price)} за ${server.vip_period_days} ${plural(server.vip_period_days, ['день', 'дня', 'дней'])})` : ''}, спишутся с
          кошелька на {server.name}.
        </Typography>
        {coinBalance !== null && (
          <Typography variant="body2" color={short ? 'error' : 'textSecondary'}>
            На балансе {coins(coinBalance)}.
          </Typography>
        )}
      </Stack>
    </AppDialog>
  );
}
