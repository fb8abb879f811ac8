import { z } from 'zod';
import { defineCall } from '../primitives';

const LimitSchema = z.object({ min: z.number().int(), max: z.number().int() });
const DirectionLimitsSchema = z.object({ '1': LimitSchema, '2': LimitSchema });
export const ServerLimitsSchema = z.object({ input: DirectionLimitsSchema, output: DirectionLimitsSchema });
export type ServerLimits = z.infer<typeof ServerLimitsSchema>;

/** A game server as players see it. */
export const GamesserverSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  cashier_nick: z.string(),
  limits: ServerLimitsSchema,
  code_fee_bp: z.number().int(),
  vip_code_fee_bp: z.number().int(),
  min_nominal: z.number().int(),
  standard_nominals: z.array(z.number().int()),
  vip_price: z.number().int(),
  vip_period_days: z.number().int(),
  /** Median minutes operators took to finish a request over the last 24 hours; null without data. */
  median_processing_minutes: z.number().nullable(),
});
export type Gamesserver = z.infer<typeof GamesserverSchema>;

export const health = defineCall({
  method: 'GET',
  path: '/api/health',
  // PRODUCT.md section 9: `{ status: "ok" }` while the process lives; `ok` and `db` kept for older readers.
  response: z.object({ status: z.literal('ok'), ok: z.literal(true), db: z.enum(['pglite', 'postgres']) }),
});

export const gamesservers = defineCall({ method: 'GET', path: '/api/gamesservers', response: z.array(GamesserverSchema) });
