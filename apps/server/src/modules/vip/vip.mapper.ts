import type { User as WireUser } from '@adena/contract';
import type { User } from '../sessions/caller';
import { toUser } from '../accounts/accounts.mapper';

/** The answer of a purchase: the user with their new VIP end. */
export const toVipAnswer = (user: User, now: Date): { success: WireUser } => ({ success: toUser(user, now) });

/** The body in the domain's words. */
export const fromVipBody = (b: { months: number; gamesserver_id?: number; price?: number; days?: number }) => ({
  months: b.months,
  ...(b.gamesserver_id !== undefined ? { gameServerId: b.gamesserver_id } : {}),
  ...(b.price !== undefined ? { price: b.price } : {}),
  ...(b.days !== undefined ? { days: b.days } : {}),
});
