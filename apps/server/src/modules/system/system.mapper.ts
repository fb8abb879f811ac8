import type { Selectable } from 'kysely';
import type { GamesserversTable } from '../../db/schema';
import { toNumber } from '../../lib/money';

export function toGamesserver(s: Selectable<GamesserversTable>, medianMinutes: number | null = null) {
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
