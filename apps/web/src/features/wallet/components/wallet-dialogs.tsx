import type { CurrencyType, Gamesserver } from '@adena/contract/lite';
import { deferred } from '../../../components/deferred';
import { useUser } from '../../../lib/session';
import { useUi } from '../../../lib/ui-store';

const MoneyDialogs = deferred<{ server: Gamesserver | undefined; nick: string | null; balances: Record<CurrencyType, number> | null }>(() =>
  import('./money-dialogs').then((m) => ({ default: m.MoneyDialogs })),
);
const MONEY_DIALOGS = new Set(['put', 'take', 'low_capacity']);

/**
 * The put, take and low-capacity dialogs, opened through the UI store from the wallet card or from
 * any screen that refuses an action for want of balance (the codes tab); their code loads when one
 * first opens.
 */
export function WalletDialogs(props: { server: Gamesserver | undefined; nick: string | null; balances: Record<CurrencyType, number> | null }) {
  const active = useUi((s) => MONEY_DIALOGS.has(s.dialog.name));
  // Keyed by who is signed in: another player of this tab starts with empty forms, not the last one's amount or
  // request (the dialogs stay mounted once loaded). The requests in doubt go with the session (lib/session.ts).
  const { user } = useUser();
  return <MoneyDialogs key={user?.id ?? 'signed-out'} active={active} {...props} />;
}
