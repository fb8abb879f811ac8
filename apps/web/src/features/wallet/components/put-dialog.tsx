import type { CurrencyType, Gamesserver, Request } from '@adena/contract/lite';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useRef, useState } from 'react';
import { AppDialog } from '../../../components/app-dialog';
import { CopyButton } from '../../../components/copy-button';
import { useUi } from '../../../lib/ui-store';
import { amountText } from '../../../utils/plural';
import { useUpBalanceUser } from '../api/up-balance-user';
import { amountLimits, MoneyForm, type SentFrom, openFor, stillOpen, useMoneyForm, useServerAtOpening } from './money-form';

/** The late answer's notice carries what to transfer and to whom: long enough to read and act on, not the usual 2 s. */
export const TRANSFER_NOTICE_MS = 30_000;

/** A deposit: the request first, then the cashier's nick to transfer the amount to in the game. */
export function PutDialog({ server, nick }: { server: Gamesserver; nick: string | null }) {
  const dialog = useUi((s) => s.dialog);
  const close = useUi((s) => s.closeDialog);
  const open = dialog.name === 'put';
  const currency: CurrencyType = open ? dialog.currency : 1;
  const target = useServerAtOpening(open, dialog, server);
  const snackbar = useUi((s) => s.showSnackbar);
  const deposit = useUpBalanceUser();
  // The opening a deposit was sent from (the dialog object, new at each opening) and its server.
  const sentFrom = useRef<SentFrom | null>(null);
  const [created, setCreated] = useState<Request | null>(null);
  // The server this dialog acts on now (a late answer's handler reads it).
  const targetNow = useRef(target.id);
  targetNow.current = target.id;
  const form = useMoneyForm({
    operation: 'put',
    gameServerId: target.id,
    currency,
    nick,
    limits: amountLimits(target, 'input', currency),
    send: (amount, idempotencyKey, opening) => {
      sentFrom.current = { opening, serverName: target.name, gameServerId: target.id, currency };
      return deposit.mutateAsync({ gameServerId: target.id, currency, amount, idempotencyKey });
    },
    onSent: (r) => {
      const from = sentFrom.current;
      if (stillOpen(from)) return setCreated(r.success);
      // The fields of a deposit dialog open now are emptied when they hold what was sent, unedited (kept while in
      // doubt): a press then would file the request a second time under a new key. Opened again for that server
      // and currency to retry it, the dialog shows the request made, with whom to transfer to.
      const unchanged = form.unchangedSinceSent();
      if (useUi.getState().dialog.name !== 'put' || unchanged) form.clear();
      if (unchanged && openFor('put', from, targetNow.current)) return setCreated(r.success);
      // Answered after this opening was closed (maybe opened again for another server): the request
      // exists, and the player still has to transfer the amount, on the server it was made for.
      snackbar(
        `Заявка №${r.success.id} создана: передайте ${amountText(r.success.amount, r.success.currency_type, '\u00a0', 'acc')} персонажу ${r.success.cashier_nick} на ${from?.serverName ?? target.name}`,
        'success',
        TRANSFER_NOTICE_MS,
      );
    },
  });

  const reset = () => {
    form.clear();
    setCreated(null);
    close();
  };

  return (
    <AppDialog
      open={open}
      onClose={reset}
      // The typed amount, or the cashier's nick the player still has to transfer to, stays on a stray tap beside it.
      keepOnBackdrop={created !== null || form.typed}
      title={`${currency === 1 ? 'Пополнить адену' : 'Пополнить монеты эйнхасад'} — ${target.name}`}
      testId="put-dialog"
      actions={
        created ? (
          <Button variant="contained" onClick={reset}>
            Готово
          </Button>
        ) : (
          <>
            <Button onClick={reset}>Отмена</Button>
            <Button variant="contained" type="submit" form="put-form" disabled={!form.canSubmit}>
              Создать заявку
            </Button>
          </>
        )
      }
    >
      {created ? (
        <Stack spacing={2}>
          <Alert severity="success">Заявка №{created.id} создана.</Alert>
          <Typography>
            Передайте в игре <b>{amountText(created.amount, created.currency_type, '\u00a0', 'acc')}</b> персонажу
          </Typography>
          <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
            <Typography variant="h2" component="p" data-testid="cashier-nick">
              {created.cashier_nick}
            </Typography>
            <CopyButton text={created.cashier_nick ?? ''} label="Скопировать ник кассира" />
          </Stack>
          <Typography color="textSecondary">
            с персонажа <b>{created.nick}</b> на сервере {created.gamesserver}. Баланс пополнится, когда оператор подтвердит передачу.
          </Typography>
        </Stack>
      ) : (
        <MoneyForm
          id="put-form"
          form={form}
          server={target}
          direction="input"
          currency={currency}
          nick={nick}
          nickHelper={`Ваш персонаж на этом сервере: с него вы передадите ${currency === 1 ? 'адену' : 'монеты эйнхасад'}, по нему оператор найдёт передачу`}
        >
          <Typography variant="body2" color="textSecondary">
            Кассир на сервере {target.name}: <b data-testid="dialog-cashier-nick">{target.cashier_nick}</b>. Создайте заявку, затем передайте
            ему сумму в игре — баланс пополнится, когда оператор подтвердит передачу.
          </Typography>
        </MoneyForm>
      )}
    </AppDialog>
  );
}
