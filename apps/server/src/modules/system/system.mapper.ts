import type { AdminGamesserver, Gamesserver, GamesserverInput } from '@adena/contract';
import { toNumber } from '../../lib/money';
import type { GameServerRow, GameServerValues } from './system.repository';

/** A game server as players see it (GET /api/gamesservers). */
export function toGamesserver(s: GameServerRow, medianMinutes: number | null = null): Gamesserver {
  return {
    id: s.id,
    name: s.name,
    cashier_nick: s.cashier_nick,
    limits: s.limits,
    code_fee_bp: s.code_fee_bp,
    vip_code_fee_bp: s.vip_code_fee_bp,
    min_nominal: toNumber(s.min_nominal),
    standard_nominals: s.standard_nominals,
    vip_price: toNumber(s.vip_price),
    vip_period_days: s.vip_period_days,
    median_processing_minutes: medianMinutes,
  };
}

/** A game server as operators see it: every setting, and when it was created and last changed. */
export function toAdminGamesserver(s: GameServerRow): AdminGamesserver {
  const { median_processing_minutes: _, ...pub } = toGamesserver(s);
  return { ...pub, active: s.active, sort_order: s.sort_order, created_at: s.created_at.toISOString(), updated_at: s.updated_at.toISOString() };
}

/** An operator's settings as the row takes them. */
export const toGameServerValues = (s: GamesserverInput): GameServerValues => ({
  name: s.name,
  active: s.active,
  sort_order: s.sort_order,
  cashier_nick: s.cashier_nick,
  // Keys in one order (jsonb gives max before min, a form min before max): a save compares this text (changedValues).
  limits: JSON.stringify(s.limits, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  ),
  code_fee_bp: s.code_fee_bp,
  vip_code_fee_bp: s.vip_code_fee_bp,
  min_nominal: s.min_nominal,
  // Shown in this order to players.
  standard_nominals: JSON.stringify([...s.standard_nominals].sort((a, b) => a - b)),
  vip_price: s.vip_price,
  vip_period_days: s.vip_period_days,
});
