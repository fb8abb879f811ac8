import type { ServerLimits } from '../../db/schema';

const KK = 1_000_000;

const limits: ServerLimits = {
  input: { '1': { min: 1 * KK, max: 10_000 * KK }, '2': { min: 1, max: 100_000 } },
  output: { '1': { min: 1 * KK, max: 5_000 * KK }, '2': { min: 1, max: 50_000 } },
};

/** What an empty database starts with, so a fresh install has something to show. */
export const DEMO_SERVERS = [
  { name: 'Scryde x50', cashier_nick: 'AdenaKassa' },
  { name: 'Asterios x5', cashier_nick: 'AdenaBank' },
  { name: 'E-Global x1', cashier_nick: 'AdenaCashier' },
].map((s, i) => ({
  ...s,
  sort_order: i + 1,
  limits: JSON.stringify(limits),
  code_fee_bp: 300,
  vip_code_fee_bp: 100,
  min_nominal: 1 * KK,
  standard_nominals: JSON.stringify([1 * KK, 5 * KK, 10 * KK, 50 * KK, 100 * KK, 500 * KK]),
  vip_price: 300,
  vip_period_days: 30,
}));
