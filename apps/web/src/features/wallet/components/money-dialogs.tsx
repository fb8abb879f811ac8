import { CURRENCIES, type CurrencyType, type Gamesserver, type Request, routes } from '@adena/contract/lite';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { AmountField } from '../../../components/amount-field';
import { AppDialog } from '../../../components/app-dialog';
import { CopyButton } from '../../../components/copy-button';
import { useFormErrors } from '../../../hooks/use-form-errors';
import { ApiError, request } from '../../../lib/api-client';
import { useUi } from '../../../lib/ui-store';
import { formatAmount, formatShort } from '../../../utils/format-amount';
import { parseAmount } from '../../../utils/parse-amount';
import { balanceEpoch } from '../../../lib/balance-epoch';
import { allHistoryKey } from '../../../lib/requests-history';
import { useSaveNick, walletsQueryOptions } from '../../../lib/wallets';

const unitOf = (c: CurrencyType) => CURRENCIES[c].name;

function limitsText(server: Gamesserver, dir: 'input' | 'output', currency: CurrencyType) {
  const l = server.limits[dir][String(currency) as '1' | '2'];
  return `${dir === 'input' ? 'Пополнение' : 'Вывод'}: от ${formatShort(l.min)} до ${formatShort(l.max)} ${unitOf(currency)} за заявку`;
}

const AMOUNT_HINT = 'Можно сокращённо: 1.5кк = 1 500 000';

/**
 * The wallet's nick, asked for inside the dialog when it is missing (on a phone the dialog covers
 * the card's own nick field). The request needs it: the operator finds the transfer by it.
 */
function useNickStep(server: Gamesserver, nick: string | null) {
  const [value, setValue] = useState('');
  const save = useSaveNick();
  return {
    value,
    setValue,
    reset: () => setValue(''),
    /** Saves the typed nick when the wallet has none yet; a 422 lands on the nick field. */
    ensure: async () => {
      if (nick) return;
      await save.mutateAsync({ gamesserver_id: server.id, nick: value.trim() });
    },
  };
}

function NickField(props: { value: string; onChange(v: string): void; error?: string; helper: string }) {
  return (
    <TextField
      label="Ник персонажа"
      value={props.value}
      onChange={(e) => props.onChange(e.target.value)}
      autoComplete="nickname"
      fullWidth
      error={Boolean(props.error)}
      helperText={props.error ?? props.helper}
      slotProps={{ htmlInput: { 'data-testid': 'dialog-nick-input' } }}
    />
  );
}

/** One idempotency key per dialog opening: a double click or a retry moves money once. */
const newKey = () => crypto.randomUUID();

export function PutDialog({ server, nick }: { server: Gamesserver; nick: string | null }) {
  const dialog = useUi((s) => s.dialog);
  const close = useUi((s) => s.closeDialog);
  const open = dialog.name === 'put';
  const currency: CurrencyType = open ? dialog.currency : 1;
  const qc = useQueryClient();
  const f = useFormErrors();
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [created, setCreated] = useState<Request | null>(null);
  const [key, setKey] = useState(newKey);
  const nickStep = useNickStep(server, nick);

  const reset = () => {
    setText('');
    nickStep.reset();
    setCreated(null);
    setKey(newKey());
    f.clear();
    close();
  };

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    f.clear();
    const amount = parseAmount(text);
    if (amount === null) return;
    setBusy(true);
    try {
      await nickStep.ensure();
      const call = currency === 1 ? routes.upBalanceUser : routes.upBalanceUserSecondCurrency;
      const r = await request(call, { body: { gamesserver_id: server.id, amount, currency_type: currency } as never, idempotencyKey: key });
      setCreated(r.success);
      void qc.invalidateQueries({ queryKey: allHistoryKey });
    } catch (err) {
      f.fromError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <AppDialog
      open={open}
      onClose={reset}
      title={currency === 1 ? 'Пополнить адену' : 'Пополнить монеты эйнхасад'}
      testId="put-dialog"
      actions={
        created ? (
          <Button variant="contained" onClick={reset}>
            Готово
          </Button>
        ) : (
          <>
            <Button onClick={reset}>Отмена</Button>
            <Button
              variant="contained"
              type="submit"
              form="put-form"
              disabled={busy || parseAmount(text) === null || (!nick && nickStep.value.trim() === '')}
            >
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
            Передайте в игре <b>{formatAmount(created.amount)} {unitOf(currency)}</b> персонажу
          </Typography>
          <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
            <Typography variant="h2" component="p" data-testid="cashier-nick">
              {created.cashier_nick}
            </Typography>
            <CopyButton text={created.cashier_nick ?? ''} label="Скопировать ник кассира" />
          </Stack>
          <Typography color="text.secondary">
            с персонажа <b>{created.nick}</b> на сервере {server.name}. Баланс пополнится, когда оператор подтвердит передачу.
          </Typography>
        </Stack>
      ) : (
        <Stack component="form" id="put-form" spacing={2} onSubmit={submit} noValidate sx={{ pt: 1 }}>
          {f.formError && <Alert severity="error">{f.formError}</Alert>}
          {!nick && (
            <NickField
              value={nickStep.value}
              onChange={nickStep.setValue}
              error={f.fieldError('nick')}
              helper="Ваш персонаж на этом сервере: с него вы передадите адену, по нему оператор найдёт передачу"
            />
          )}
          <AmountField
            label="Сумма"
            value={text}
            onChange={setText}
            unit={unitOf(currency)}
            error={f.fieldError('amount')}
            hint={AMOUNT_HINT}
            autoFocus={Boolean(nick)}
          />
          <Typography variant="body2" color="text.secondary" data-testid="limits">
            {limitsText(server, 'input', currency)}
          </Typography>
          <Typography variant="body2" color="text.secondary">
            Кассир на сервере {server.name}: <b data-testid="dialog-cashier-nick">{server.cashier_nick}</b>. Создайте заявку, затем передайте
            ему сумму в игре — баланс пополнится, когда оператор подтвердит передачу.
          </Typography>
        </Stack>
      )}
    </AppDialog>
  );
}

export function TakeDialog({ server, nick, available }: { server: Gamesserver; nick: string | null; available: number | null }) {
  const dialog = useUi((s) => s.dialog);
  const close = useUi((s) => s.closeDialog);
  const openDialog = useUi((s) => s.openDialog);
  const snackbar = useUi((s) => s.showSnackbar);
  const open = dialog.name === 'take';
  const currency: CurrencyType = open ? dialog.currency : 1;
  const qc = useQueryClient();
  const f = useFormErrors();
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [key, setKey] = useState(newKey);
  const nickStep = useNickStep(server, nick);

  const reset = () => {
    setText('');
    nickStep.reset();
    setKey(newKey());
    f.clear();
    close();
  };

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    f.clear();
    const amount = parseAmount(text);
    if (amount === null) return;
    setBusy(true);
    try {
      await nickStep.ensure();
      const call = currency === 1 ? routes.downBalanceUser : routes.downBalanceUserSecondCurrency;
      const epoch = balanceEpoch(server.id);
      const r = await request(call, { body: { gamesserver_id: server.id, amount, currency_type: currency } as never, idempotencyKey: key });
      // SPEC.md section 4: the wallet's balance drops by enter_currency at once, unless the
      // realtime balance (already the lower one) arrived first.
      if (balanceEpoch(server.id) === epoch)
        qc.setQueryData(walletsQueryOptions().queryKey, (ws) =>
        ws?.map((w) =>
          w.gamesserver_id === server.id
            ? currency === 1
              ? { ...w, balance: w.balance - r.success.enter_currency }
              : { ...w, balance_second: w.balance_second - r.success.enter_currency }
            : w,
        ),
      );
      void qc.invalidateQueries({ queryKey: allHistoryKey });
      reset();
      snackbar(`Заявка на вывод ${formatAmount(r.success.enter_currency)} ${unitOf(currency)} создана`);
    } catch (err) {
      if (err instanceof ApiError && err.body.low_cap) {
        setText('');
        nickStep.reset();
        setKey(newKey());
        f.clear();
        openDialog({ name: 'low_capacity', currency, amount, available: available ?? undefined });
        return;
      }
      f.fromError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <AppDialog
      open={open}
      onClose={reset}
      title={currency === 1 ? 'Вывести адену' : 'Вывести монеты эйнхасад'}
      testId="take-dialog"
      actions={
        <>
          <Button onClick={reset}>Отмена</Button>
          <Button
            variant="contained"
            type="submit"
            form="take-form"
            disabled={busy || parseAmount(text) === null || (!nick && nickStep.value.trim() === '')}
          >
            Вывести
          </Button>
        </>
      }
    >
      <Stack component="form" id="take-form" spacing={2} onSubmit={submit} noValidate sx={{ pt: 1 }}>
        {f.formError && <Alert severity="error">{f.formError}</Alert>}
        {!nick && (
          <NickField
            value={nickStep.value}
            onChange={nickStep.setValue}
            error={f.fieldError('nick')}
            helper="Ваш персонаж на этом сервере: ему оператор передаст сумму"
          />
        )}
        <AmountField
          label="Сумма"
          value={text}
          onChange={setText}
          unit={unitOf(currency)}
          error={f.fieldError('amount')}
          hint={AMOUNT_HINT}
          autoFocus={Boolean(nick)}
        />
        <Typography variant="body2" color="text.secondary" data-testid="limits">
          {limitsText(server, 'output', currency)}
          {available !== null && (
            <>
              <br />
              Доступно: <b data-testid="available">{formatAmount(available)} {unitOf(currency)}</b>
            </>
          )}
        </Typography>
        {nick && (
          <Typography variant="body2" color="text.secondary">
            Оператор передаст сумму персонажу <b>{nick}</b>. До обработки заявку можно отменить — сумма вернётся на баланс.
          </Typography>
        )}
      </Stack>
    </AppDialog>
  );
}

export function LowCapacityDialog() {
  const dialog = useUi((s) => s.dialog);
  const close = useUi((s) => s.closeDialog);
  const openDialog = useUi((s) => s.openDialog);
  const open = dialog.name === 'low_capacity';
  const currency: CurrencyType = open ? dialog.currency : 1;
  return (
    <AppDialog
      open={open}
      onClose={close}
      title="Недостаточно средств"
      testId="low-capacity-dialog"
      actions={
        <>
          <Button onClick={close}>Закрыть</Button>
          {/* SPEC.md section 4: opening the put dialog clears the low-capacity dialog. */}
          <Button variant="contained" onClick={() => openDialog({ name: 'put', currency })}>
            Пополнить
          </Button>
        </>
      }
    >
      <Stack spacing={1.5}>
        {open && dialog.amount !== undefined && (
          <Typography>
            Для вывода нужно <b>{formatAmount(dialog.amount)} {unitOf(currency)}</b>
            {dialog.available !== undefined && (
              <>
                , а на балансе <b data-testid="low-capacity-available">{formatAmount(dialog.available)} {unitOf(currency)}</b>
              </>
            )}
            .
          </Typography>
        )}
        <Typography>На балансе не хватает средств для этой операции. Пополните кошелёк или уменьшите сумму.</Typography>
      </Stack>
    </AppDialog>
  );
}

/** The put, take and low-capacity dialogs (shown through WalletDialogs, which loads this module when one first opens). */
export function MoneyDialogs({ server, nick, balances }: { server: Gamesserver | undefined; nick: string | null; balances: Record<CurrencyType, number> | null }) {
  const dialog = useUi((s) => s.dialog);
  const available = balances && dialog.name === 'take' ? balances[dialog.currency] : null;
  return (
    <>
      {server && (
        <>
          <PutDialog server={server} nick={nick} />
          <TakeDialog server={server} nick={nick} available={available} />
        </>
      )}
      <LowCapacityDialog />
    </>
  );
}
