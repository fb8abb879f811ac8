import type { CurrencyType, Gamesserver } from '@adena/contract/lite';
import Button from '@mui/material/Button';
import { useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import Typography from '@mui/material/Typography';
import { AppDialog } from '../../../components/app-dialog';
import { ApiError, refusedForSure } from '../../../lib/api-client';
import { readSecondFactorCode, useCodeField } from '../../../lib/second-factor-code';
import { useUi } from '../../../lib/ui-store';
import { walletsQueryOptions } from '../../../lib/wallets';
import { amountText, } from '../../../utils/plural';
import { useDownBalanceUser } from '../api/down-balance-user';
import { amountLimits, MoneyForm, openFor, type SentFrom, stillOpen, useMoneyForm, useServerAtOpening } from './money-form';
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
  const qc = useQueryClient();
  // The opening a withdrawal was sent from (the dialog object, new at each opening) and its server.
  const sentFrom = useRef<SentFrom | null>(null);
  // The server this dialog acts on now (a late answer's handler reads it).
  const targetNow = useRef(target.id);
  targetNow.current = target.id;
  // Step-up: with TOTP on the server answers two_factor_required; the code is asked here, in the same dialog.
  const [askCode, setAskCode] = useState(false);
  // A code that cannot be one (the contract's rule, after the Russian layout is read as Latin keys): said under the field, not sent.
  const codeField = useCodeField();
  // The code the try in flight carried, as typed. The server spends a code it accepts before it looks at the
  // amount (a 422 on the limits, a 409 on the balance or a 429 come after that), and a wrong one is wrong: once
  // answered, the field is emptied (unless the player typed another since), so a press again asks for a fresh code
  // instead of sending the spent one and being told «Неверный код» for up to 30 s. An answer lost (or a 5xx) leaves
  // it: the retry keeps the request's key, and the server answers it from the first try with the spent code.
  const codeSent = useRef<string | null>(null);
  const codeNow = useRef(codeField.code);
  codeNow.current = codeField.code;
  const answered = (spent: boolean) => {
    const sent = codeSent.current;
    codeSent.current = null;
    if (spent && sent !== null && codeNow.current === sent) codeField.clear();
  };
  const form = useMoneyForm({
    operation: 'take',
    gameServerId: target.id,
    currency,
    nick,
    limits: amountLimits(target, 'output', currency),
    send: (amount, idempotencyKey, opening, again) => {
      sentFrom.current = { opening, serverName: target.name, gameServerId: target.id, currency };
      // More than the page holds: the low-capacity dialog at once, nothing sent. The server spends a TOTP code
      // before it looks at the balance, so the player typed a code for a sure refusal, and another for the amount
      // he lowered to. Refused here as the server refuses it (a 409 with low_cap: a new key next time). Not a
      // retry of a withdrawal in doubt: its own hold may be what lowered the balance, and its key gets its answer.
      if (!again && available != null && amount > available) throw new ApiError(409, { message: 'Недостаточно средств', low_cap: true });
      let twoFactorCode: string | undefined;
      if (askCode) {
        const read = readSecondFactorCode(codeField.code);
        // Refused here as the server refuses a bad code (a 422, so the request's key is not left in doubt).
        if (read.error !== undefined) throw new ApiError(422, { message: read.error, errors: { code: [read.error] } });
        twoFactorCode = read.code;
        codeSent.current = codeField.code;
      }
      // Whatever the answer (even after its dialog was closed), the code it carried is not sent again.
      return withdraw.mutateAsync({ gameServerId: target.id, currency, amount, idempotencyKey, twoFactorCode }).then(
        (r) => {
          answered(true);
          return r;
        },
        (err: unknown) => {
          answered(refusedForSure(err));
          throw err;
        },
      );
    },
    onSent: (r) => {
      const from = sentFrom.current;
      const made = amountText(r.success.enter_currency, currency, '\u00a0', 'gen');
      // An answer that comes after the player closed this opening (and maybe opened it again for another
      // server and typed another amount) leaves what is open now alone and says which server it was for.
      if (!stillOpen(from)) {
        // The form is emptied when no withdrawal dialog is open now, or when the one open holds what was sent,
        // unedited (kept while in doubt): a press then would withdraw it a second time under a new key. Opened
        // again for that server and currency to retry it, the dialog closes: the withdrawal is made.
        const unchanged = form.unchangedSinceSent();
        if (useUi.getState().dialog.name !== 'take' || unchanged) form.clear();
        if (unchanged && openFor('take', from, targetNow.current)) {
          setAskCode(false);
          codeField.clear();
          close();
        }
        return snackbar(`Заявка на вывод ${made} на ${from?.serverName ?? target.name} создана`);
      }
      form.clear();
      setAskCode(false);
      codeField.clear();
      close();
      snackbar(`Заявка на вывод ${made} создана`);
    },
    onError: (err, amount) => {
      if (err instanceof ApiError && err.body.two_factor_required) {
        setAskCode(true);
        codeField.clear();
        // Asked again (the field was shown): the cursor goes back to it; the first ask's field takes it by autoFocus.
        codeField.focus();
        return false;
      }
      const badCode = err instanceof ApiError && err.status === 422 ? err.fieldErrors.code?.[0] : undefined;
      if (badCode) {
        codeField.refuse(badCode);
        // The press of «Вывести» took the cursor: back to the field, for the next code.
        codeField.focus();
        return true;
      }
      if (!(err instanceof ApiError && err.body.low_cap)) return false;
      form.clear();
      // The balance this page holds may be older than the refusal (spent from another device): read again, and
      // the dialog shows the wallet's balance as it comes.
      void qc.invalidateQueries({ queryKey: walletsQueryOptions().queryKey });
      openDialog({ name: 'low_capacity', currency, amount, available: available ?? undefined, gameServerId: target.id });
      return true;
    },
  });

  function reset() {
    codeSent.current = null;
    form.clear();
    setAskCode(false);
    codeField.clear();
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
          <TwoFactorCodeField {...codeField.field} />
        )}
        {nick && (
          <Typography variant="body2" color="textSecondary">
            Оператор передаст сумму персонажу <b>{nick}</b>. До обработки заявку можно отменить — сумма вернётся на баланс.
          </Typography>
        )}
      </MoneyForm>
    </AppDialog>
  );
}
