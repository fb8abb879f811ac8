import type { User as WireUser } from '@adena/contract';
import type { User } from '../sessions/caller';

/** The user object of PRODUCT.md section 3; never the hash, ids of linked accounts or block state. */
export function toUser(u: User, now = new Date()): WireUser {
  const vip = u.vip_until !== null && u.vip_until > now;
  return {
    id: u.id,
    name: u.name,
    email: u.email,
    phone: u.phone,
    admin: u.admin,
    vip,
    vip_until: u.vip_until ? u.vip_until.toISOString() : null,
    telegram_linked: u.telegram_id !== null || u.telegram_chat_id !== null,
    two_factor: u.totp_secret !== null,
    has_password: u.password_hash !== null,
    created_at: u.created_at.toISOString(),
  };
}
