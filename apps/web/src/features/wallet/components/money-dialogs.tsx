import type { CurrencyType, Gamesserver } from '@adena/contract/lite';
import { useUi } from '../../../lib/ui-store';
import { LowCapacityDialog } from './low-capacity-dialog';
import { PutDialog } from './put-dialog';
import { TakeDialog } from './take-dialog';

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
