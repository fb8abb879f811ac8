import { z } from 'zod';
import { FIELD_MESSAGES } from '../messages/ru';
import { defineCall, IdParamsSchema, isCalendarDay } from '../primitives';
import { AdminRequestSchema } from './admin';

// The operators' shift (PRODUCT.md section 12): claims, the operators' live channel, the shift report.

/** The channel every operator's socket may join; refused to anyone who is not an admin. */
export const OPERATORS_CHANNEL = 'private:operators';

export const ClaimerSchema = z.object({ id: z.number().int(), name: z.string() });
export type Claimer = z.infer<typeof ClaimerSchema>;

export const adminClaimRequest = defineCall({
  method: 'POST',
  path: '/api/admin/requests/:id/claim',
  params: IdParamsSchema,
  // `renew: true` (beyond PRODUCT.md section 12): only renews the caller's own standing claim, 409 when it has
  // lapsed; the admin area's keeper sends it, so a renewal never takes back a claim that lapsed unseen.
  body: z.object({ renew: z.literal(true).optional() }).optional(),
  response: z.object({ success: AdminRequestSchema }),
});

export const adminReleaseRequest = defineCall({
  method: 'POST',
  path: '/api/admin/requests/:id/release',
  params: IdParamsSchema,
  body: z.object({}).optional(),
  response: z.object({ success: AdminRequestSchema }),
});

/** What every operator's queue learns of a request on `private:operators`. */
export const OperatorEventSchema = z.object({
  id: z.number().int(),
  type: z.enum(['input', 'output']),
  status: z.enum(['pending', 'completed', 'rejected', 'cancelled']),
  gamesserver_id: z.number().int(),
  currency_type: z.union([z.literal(1), z.literal(2)]),
  amount: z.number().int(),
  vip: z.boolean(),
  claimed_by: ClaimerSchema.nullable(),
});
export type OperatorEvent = z.infer<typeof OperatorEventSchema>;
export const OPERATOR_EVENT_NAMES = ['request_created', 'request_claimed', 'request_released', 'request_decided'] as const;
export type OperatorEventName = (typeof OPERATOR_EVENT_NAMES)[number];
export interface OperatorMessage {
  channel: typeof OPERATORS_CHANNEL;
  name: OperatorEventName;
  data: OperatorEvent;
}
/**
 * Beyond PRODUCT.md: the socket was taken off `private:operators` (its user demoted, or without the second factor
 * the channel needs) and hears nothing more there; a client may subscribe again later.
 */
export const OPERATORS_LEFT = 'operators_left';
export interface OperatorsLeftMessage {
  channel: typeof OPERATORS_CHANNEL;
  name: typeof OPERATORS_LEFT;
  data: Record<string, never>;
}

const DATE_ERROR = 'Дата в формате ГГГГ-ММ-ДД или ISO 8601';
/**
 * A bound of the report's period: an ISO 8601 moment, or a calendar day in Moscow time (the
 * servers' time): `from` is the day's start, `to` the next day's start, so `to` includes its day.
 * A moment without `Z` or an offset is Moscow time too, never the reader's own zone (the server's
 * and the browser's differ). Years before 2000 are refused: nothing happened then, and the embedded
 * database cannot store year 0.
 */
const boundSchema = (end: boolean) =>
  z
    .string({ error: DATE_ERROR })
    .trim()
    .refine((v) => (/^\d{4}-\d{2}-\d{2}$/.test(v) || (/^\d{4}-\d{2}-\d{2}T/.test(v) && !Number.isNaN(Date.parse(v)))) && isCalendarDay(v), DATE_ERROR)
    .transform((v) => {
      if (v.includes('T')) return new Date(/(Z|[+-]\d{2}:?\d{2})$/i.test(v) ? v : `${v}+03:00`);
      const start = new Date(`${v}T00:00:00+03:00`);
      return end ? new Date(start.getTime() + 86_400_000) : start;
    })
    .refine((d) => !Number.isNaN(d.getTime()), DATE_ERROR)
    // The year in Moscow, as the days are read (2000-01-01 starts in 1999 by UTC); an end is its day's last moment.
    .refine((d) => {
      const year = new Date(d.getTime() + 3 * 3_600_000 - (end ? 1 : 0)).getUTCFullYear();
      return year >= 2000 && year <= 9999;
    }, 'Дата между 2000 и 9999 годами');

export const MAX_REPORT_DAYS = 366;

export const OperatorStatsQuerySchema = z
  .object({ from: boundSchema(false).optional(), to: boundSchema(true).optional() })
  .superRefine((q, ctx) => {
    // Runs even when a bound failed its own check: then that bound is still the raw text.
    if (!(q.from instanceof Date) || !(q.to instanceof Date)) return;
    if (q.from >= q.to) ctx.addIssue({ code: 'custom', path: ['to'], message: FIELD_MESSAGES.periodOrder });
    if (q.to.getTime() - q.from.getTime() > MAX_REPORT_DAYS * 86_400_000) {
      ctx.addIssue({ code: 'custom', path: ['to'], message: `Период не длиннее ${MAX_REPORT_DAYS} дней` });
    }
  });

export const OperatorStatsRowSchema = z.object({
  operator: ClaimerSchema,
  decided: z.object({ input: z.number().int(), output: z.number().int() }),
  completed: z.number().int(),
  rejected: z.number().int(),
  /** rejected / decided, 0…1. */
  rejected_share: z.number(),
  /** Median minutes from the operator's claim to their decision, over decisions they had claimed; null when none. */
  median_minutes: z.number().nullable(),
  /** Decisions made without a claim of their own. */
  unclaimed: z.number().int(),
});
export type OperatorStatsRow = z.infer<typeof OperatorStatsRowSchema>;

export const adminOperatorStats = defineCall({
  method: 'GET',
  path: '/api/admin/operators/stats',
  query: OperatorStatsQuerySchema,
  response: z.object({ from: z.string(), to: z.string(), operators: z.array(OperatorStatsRowSchema) }),
});

/** The same report as a CSV file for Excel: UTF-8 with a BOM, `;` between fields, Russian headers, ru-RU dates. */
export const adminOperatorStatsCsv = defineCall({
  method: 'GET',
  path: '/api/admin/operators/stats/csv',
  query: OperatorStatsQuerySchema,
  response: z.string(),
});
