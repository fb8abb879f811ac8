// SPEC.md section 4 asks the client to lower a balance by what a call's answer says (withdrawal's
// enter_currency, show code's summa), and the realtime `balance` event carries the new balance
// itself. The event may arrive before the answer; applying both would take the amount twice.
// Each event bumps its server's epoch; a call deducts only when no event came while it ran.
const epochs = new Map<number, number>();

export const balanceEpoch = (gameServerId: number) => epochs.get(gameServerId) ?? 0;

export function bumpBalanceEpoch(gameServerId: number) {
  epochs.set(gameServerId, balanceEpoch(gameServerId) + 1);
}
