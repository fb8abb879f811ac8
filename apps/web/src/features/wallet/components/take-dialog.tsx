import type { CurrencyType, Gamesserver } from '@adena/contract/lite';
import Button from '@mui/material/Button';
import { useState } from 'react';
import Typography from '@mui/material/Typography';
import { AppDialog } from '../../../components/app-dialog';
import { ApiError } from '../../../lib/api-client';
import { useUi } from '../../../lib/ui-store';
import { amountText, } from '../../../utils/plural';
import { useDownBalanceUser } from '../api/down-balance-user';
import { MoneyForm, useMoneyForm, useServerAtOpening } from './money-form';
import { TwoFactorCodeField } from '../../../components/two-factor-code-field';

/** A withdrawal: held at once; a refusal for want of balance opens the low-capacity dialog instead. */
export function TakeDialog({ server, nick, available }: { server: Gamesserver; nick: string | null; available: number | null }) {
  const dialog = useUi((s) => s.dialog);
  const close = useUi((s) => s.closeDialog);
  const openDialog = useUi((s) => s.openDialog);
  const snackbar = useUi((s) => s.showSnackbar);
  const open = dialog.name === 'take';
  const currency: CurrencyType = open ? dialog.currency : 1;
  const target = useServerAtOpening(open, dialog, server);
  const withdraw = useDownBalanceUser();
  // Step-up: with TOTP on the server answers two_factor_required; the code is asked here, in the same dialog.
  const [askCode, setAskCode] = useState(false);
  const [code, setCode] = useState('');
  const form = useMoneyForm({
    operation: 'take',
    gameServerId: target.id,
    currency,
    nick,
    send: (amount, idempotencyKey) =>
      withdraw.mutateAsync({ gameServerId: target.id, currency, amount, idempotencyKey, twoFactorCode: askCode ? code.trim() : undefined }),
    onSent: (r) => {
      form.clear();
      setAskCode(false);
      setCode('');
      // An answer that comes after the player closed this dialog closes only this one, never a dialog opened meanwhile.
      if (useUi.getState().dialog.name === 'take') close();
      snackbar(`Заявка на вывод ${amountText(r.success.enter_currency, currency, '\u00a0', 'gen')} создана`);
    },
    onError: (err, amount) => {
      if (err instanceof ApiError && err.body.two_factor_required) {
        setAskCode(true);
        setCode('');
        return false;
      }
      if (!(err instanceof ApiError && err.body.low_cap)) return false;
      form.clear();
      if (useUi.getState().dialog.name === 'take') openDialog({ name: 'low_capacity', currency, amount, available: available ?? undefined });
      return true;
    },
  });

  function reset() {
    form.clear();
    setAskCode(false);
    setCode('');
    close();
  }

  return (
    <AppDialog
      open={open}
      onClose={reset}
      keepOnBackdrop={form.typed}
      title={`${currency === 1 ? 'Вывести адену' : 'Вывести монеты эйнхасад'} — ${target.name}`}
      testId="take-dialog"
      actions={
        <>
          <Button onClick={reset}>Отмена</Button>
          <Button variant="contained" type="submit" form="take-form" disabled={!form.canSubmit}>
            Вывести
          </Button>
        </>
      }
    >
      <MoneyForm
        id="take-form"
        form={form}
        server={target}
        direction="output"
        currency={currency}
        nick={nick}
        nickHelper="Ваш персонаж на этом сервере: ему оператор передаст сумму"
        available={available}
      >
        {askCode && (
          <TwoFactorCodeField value={code} onChange={setCode} />
        )}
        {nick && (
          <Typography variant="body2" color="text.secondary">
            Оператор передаст сумму персонажу <b>{nick}</b>. До обработки заявку можно отменить — сумма вернётся на баланс.
          </Typography>
        )}
      </MoneyForm>
    </AppDialog>
  );
}
