import { ALERT_TIMEOUT_MS } from '@adena/contract/lite';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { useRequestKey } from '../../../hooks/use-request-key';
import { AppDialog } from '../../../components/app-dialog';
import { CopyButton } from '../../../components/copy-button';
import { ApiError } from '../../../lib/api-client';
import { useCodeField } from '../../../lib/second-factor-code';
import { callAccount, sameAccount } from '../../../lib/session';
import { type DialogState, useUi } from '../../../lib/ui-store';
import { isPriceChange } from '../api/create-pricekod';
import { useShowCode } from '../api/show-code';
import { aden, adenAcc, adenShort, alertContent } from './code-format';
import { agree } from '../../../utils/agree';
import { TwoFactorCodeField } from '../../../components/two-factor-code-field';

/** The issued certificate, large and copyable; it wraps rather than overflow a phone's width. */
export function SertBox({ sert }: { sert: string }) {
  return (
    <Stack
      direction="row"
      spacing={1}
      sx={{ alignItems: 'center', border: 1, borderColor: 'divider', borderRadius: 2, pl: 2, pr: 0.5, py: 1, bgcolor: 'action.hover' }}
    >
      <Typography
        component="code"
        data-testid="revealed-sert"
        sx={{ fontFamily: 'ui-monospace, "SF Mono", Menlo, Consolas, monospace', fontSize: '1.15rem', fontWeight: 700, flexGrow: 1, overflowWrap: 'anywhere', letterSpacing: '0.03em' }}
      >
        {sert}
      </Typography>
      <CopyButton text={sert} label="Скопировать код" />
    </Stack>
  );
}

/**
 * 'Купить код': first a confirmation that states the price, then the revealed `sert`.
 * The wallet id comes with the signed-in price data.
 */
export function ShowCodeDialog({ walletId, balance }: { walletId: number | null; balance: number | null }) {
  const dialog = useUi((s) => s.dialog);
  const close = useUi((s) => s.closeDialog);
  const openDialog = useUi((s) => s.openDialog);
  const alert = useUi((s) => s.alert);
  const snackbar = useUi((s) => s.showSnackbar);
  const show = useShowCode();
  // While a purchase is in doubt (still running, or its answer lost: the code may have been issued and
  // paid) the same purchase keeps its key across closing, opening again and a remount, so trying again
  // reveals that code instead of paying for a second one.
  const keys = useRequestKey('show_code');
  const [revealed, setRevealed] = useState<{ sert: string; nominal: number; summa: number } | null>(null);
  // Step-up: with TOTP on the server answers two_factor_required; the code is asked in this dialog.
  // `retried`: the refusal answered a code sent (a wrong or spent one), said as an error, not as the first ask.
  const [askCode, setAskCode] = useState<{ text: string; retried: boolean } | null>(null);
  // The code typed, and why it cannot be sent (another script's letters, too short): said under the field.
  const codeField = useCodeField();
  const open = dialog.name === 'show_code';
  // The last opening stays on screen while the dialog fades out.
  const [last, setLast] = useState<Extract<DialogState, { name: 'show_code' }> | null>(null);
  if (open && dialog !== last) {
    setLast(dialog);
    setRevealed(null);
    setAskCode(null);
    codeField.clear();
  }
  const d = open ? dialog : last;
  const mounted = useRef(false);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);

  const finish = () => {
    // Not while the purchase runs: its answer is still awaited (and the button stays disabled until it comes).
    if (!show.isPending) show.reset();
    close();
  };

  // The form's submit: «Оплатить» or Enter in the code field.
  const confirm = (e: FormEvent) => {
    e.preventDefault();
    if (!d || walletId === null || show.isPending) return;
    let twoFactorCode: string | undefined;
    if (askCode !== null) {
      twoFactorCode = codeField.read();
      if (twoFactorCode === undefined) return;
    }
    const opening = useUi.getState().dialog;
    const account = callAccount();
    void keys
      .send(`${d.gameServerId}:${walletId}:${d.nominal}:${d.userVariantId ?? ''}:${d.price}`, (idempotencyKey) =>
        show.mutateAsync({
          gameServerId: d.gameServerId,
          walletId,
          nominal: d.nominal,
          userVariantId: d.userVariantId,
          price: d.price,
          idempotencyKey,
          twoFactorCode,
        }),
      )
      .then(
        (r) => {
          // Signed out (or another account in) meanwhile: the code is the last account's, said to nobody here.
          if (!sameAccount(account)) return;
          // Shown in this dialog if it is open (even opened again: the code is paid for, and showing it
          // keeps the player from buying a second); an answer that comes after it was closed is said in a notice.
          // Only over the same code (server, nominal, batch): a dialog since opened for another nominal, or this
          // one gone with its codes tab (another server chosen), gets the notice instead.
          const now = useUi.getState().dialog;
          const same = now.name === 'show_code' && now.gameServerId === d.gameServerId && now.nominal === d.nominal && now.userVariantId === d.userVariantId;
          if (same && mounted.current) setRevealed({ sert: r.sert, nominal: d.nominal, summa: r.summa });
          else snackbar(`Код на ${adenShort(d.nominal, 'acc')} куплен: он в списке «Мои коды»`);
        },
        (err: unknown) => {
          // The player closed this opening meanwhile: the key's fate is recorded, nothing else opens over what they do now.
          if (useUi.getState().dialog !== opening) return;
          if (err instanceof ApiError && err.body.two_factor_required) {
            setAskCode({ text: err.message, retried: twoFactorCode !== undefined });
            codeField.clear();
            codeField.focus();
            return;
          }
          if (err instanceof ApiError && err.body.low_cap) return openDialog({ name: 'low_capacity', currency: 1 });
          // The fee changed since the page was read: nothing was charged; the dialog now states the new price to confirm.
          if (isPriceChange(err)) return openDialog({ ...d, price: err.body.price, note: err.message });
          const { text, errors } = alertContent(err);
          alert(text, errors, ALERT_TIMEOUT_MS);
        },
      );
  };

  const short = d !== null && balance !== null && balance < d.price;
  return (
    <AppDialog
      open={open}
      onClose={finish}
      title={revealed ? 'Ваш код' : d ? `Купить код на ${adenShort(d.nominal, 'acc')}?` : ''}
      testId="show-code-dialog"
      actions={
        revealed ? (
          <Button variant="contained" onClick={finish}>
            Готово
          </Button>
        ) : (
          <>
            <Button onClick={finish}>Отмена</Button>
            <Button variant="contained" type="submit" form="show-code-form" disabled={show.isPending || walletId === null}>
              {d ? `Оплатить ${adenShort(d.price, 'acc')}` : 'Оплатить'}
            </Button>
          </>
        )
      }
    >
      {revealed ? (
        <Stack spacing={2}>
          <SertBox sert={revealed.sert} />
          <Typography>
            Код на <b>{adenAcc(revealed.nominal)}</b>. С баланса {agree(revealed.summa, 'charged')} {aden(revealed.summa)}.
          </Typography>
          <Typography variant="body2" color="textSecondary">
            Передайте код тому, кто будет его активировать: адена поступит на его кошелёк на этом сервере. Код виден только вам и остаётся в
            списке «Мои коды», пока его не активируют или вы его не отмените.
          </Typography>
        </Stack>
      ) : d ? (
        <Stack component="form" id="show-code-form" onSubmit={confirm} noValidate spacing={2}>
          <Typography>
            С баланса спишется <b data-testid="show-code-price">{aden(d.price)}</b>: номинал {aden(d.nominal)} и комиссия {aden(d.price - d.nominal)}.
          </Typography>
          {balance !== null && (
            <Typography variant="body2" color="textSecondary">
              На балансе {aden(balance)}.
            </Typography>
          )}
          {d.note && <Alert severity="info">{d.note}</Alert>}
          {short && <Alert severity="warning">На балансе не хватает адены на этот код.</Alert>}
          {askCode !== null && (
            <>
              <Alert severity={askCode.retried ? 'error' : 'info'}>{askCode.text}</Alert>
              <TwoFactorCodeField {...codeField.field} />
            </>
          )}
        </Stack>
      ) : (
        <Box />
      )}
    </AppDialog>
  );
}
