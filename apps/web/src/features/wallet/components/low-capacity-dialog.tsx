import type { CurrencyType } from '@adena/contract/lite';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { AppDialog } from '../../../components/app-dialog';
import { useUi } from '../../../lib/ui-store';
import { useWallet } from '../../../lib/wallets';
import { agree } from '../../../utils/agree';
import { amountText } from '../../../utils/plural';

/** A withdrawal (or any other charge) beyond the balance: how much was asked, how much there is, and a top-up. */
export function LowCapacityDialog() {
  const dialog = useUi((s) => s.dialog);
  const close = useUi((s) => s.closeDialog);
  const openDialog = useUi((s) => s.openDialog);
  const open = dialog.name === 'low_capacity';
  const currency: CurrencyType = open ? dialog.currency : 1;
  // The wallet's balance as the page reads it now (read again after the refusal), else the one at the press.
  const wallet = useWallet(open && dialog.gameServerId !== undefined ? dialog.gameServerId : null);
  const live = wallet ? (currency === 1 ? wallet.balance : wallet.balance_second) : open ? dialog.available : undefined;
  // Said only when it agrees with the refusal: a balance at or above the amount is one not read again yet.
  const available = open && dialog.amount !== undefined && live !== undefined && live < dialog.amount ? live : undefined;
  return (
    <AppDialog
      open={open}
      onClose={close}
      title="Недостаточно средств"
      testId="low-capacity-dialog"
      describe
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
            Для вывода {agree(dialog.amount, 'needed')} <b>{amountText(dialog.amount, currency, '\u00a0')}</b>
            {available !== undefined && (
              <>
                , а на балансе <b data-testid="low-capacity-available">{amountText(available, currency, '\u00a0')}</b>
              </>
            )}
            .
          </Typography>
        )}
        {/* Only a withdrawal's amount is the player's to choose (it comes with one); a code's or VIP's price is fixed. */}
        <Typography data-testid="low-capacity-advice">
          {open && dialog.amount !== undefined
            ? 'На балансе не хватает средств для этой операции. Пополните кошелёк или уменьшите сумму.'
            : 'На балансе не хватает средств на эту покупку. Пополните кошелёк и попробуйте снова.'}
        </Typography>
      </Stack>
    </AppDialog>
  );
}
