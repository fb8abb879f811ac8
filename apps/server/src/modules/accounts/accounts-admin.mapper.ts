import type { AdminUser } from '@adena/contract';
import type { User } from '../sessions/caller';
import { toUser } from './accounts.mapper';

/** A user as operators see them: with the block and the ids of linked accounts. */
export function toAdminUser(u: User, now = new Date()): AdminUser {
  return {
    ...toUser(u, now),
    blocked_at: u.blocked_at ? u.blocked_at.toISOString() : null,
    telegram_id: u.telegram_id === null ? null : String(u.telegram_id),
    discord_id: u.discord_id,
  };
}

/** What the audit log keeps of a user: the fields admins change. */
export const toUserAuditView = (u: User) => ({
  admin: u.admin,
  vip_until: u.vip_until ? u.vip_until.toISOString() : null,
  blocked_at: u.blocked_at ? u.blocked_at.toISOString() : null,
  two_factor: u.totp_secret !== null,
});
