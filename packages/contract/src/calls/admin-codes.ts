// The operators' codes (issue 5): incident list, code lookup with its whole story, cancel with refund.
// Admin calls live under /api/admin and answer 403 to anyone who is not an admin.
import { z } from 'zod';
import { CONTROL_CHARS_MESSAGE, cleanLine, cleanLines, defineCall, IdParamSchema, IdParamsSchema, PageQuerySchema, TimestampSchema } from '../primitives';
import { AdminLedgerEntrySchema } from './admin';
import { CodeStatusSchema as AdminCodesStatusSchema } from './codes';

const AdminPersonSchema = z.object({ id: z.number().int(), name: z.string(), email: z.string().nullable() });

/**
 * A code as operators see it. `sert` is masked (`ADN-7KQ2-****-****-H3RC`) unless the lookup was
 * by that very sert: an operator's screen is not a place to read live bearer codes from.
 */
export const AdminCodeSchema = z.object({
  id: z.number().int(),
  sert: z.string(),
  sert_masked: z.boolean(),
  status: AdminCodesStatusSchema,
  gamesserver_id: z.number().int(),
  gamesserver: z.string(),
  nominal: z.number().int(),
  fee: z.number().int(),
  price: z.number().int(),
  pricekod_id: z.number().int().nullable(),
  issuer: AdminPersonSchema,
  activated_by: AdminPersonSchema.nullable(),
  cancelled_by: z.number().int().nullable(),
  created_at: TimestampSchema,
  activated_at: TimestampSchema.nullable(),
  cancelled_at: TimestampSchema.nullable(),
});
export type AdminCode = z.infer<typeof AdminCodeSchema>;

export const AdminCodeIncidentSchema = z.object({
  id: z.number().int(),
  code_id: z.number().int(),
  gamesserver_id: z.number().int(),
  gamesserver: z.string(),
  nominal: z.number().int(),
  /** Masked, as in AdminCodeSchema. */
  sert: z.string(),
  code_status: AdminCodesStatusSchema,
  issuer: AdminPersonSchema,
  attempted_by: AdminPersonSchema,
  attempt_ip: z.string().nullable(),
  acknowledged_at: TimestampSchema.nullable(),
  created_at: TimestampSchema,
});
export type AdminCodeIncident = z.infer<typeof AdminCodeIncidentSchema>;

export const adminCodeIncidents = defineCall({
  method: 'GET',
  path: '/api/admin/code_incidents',
  query: PageQuerySchema.extend({
    /** open: not yet acknowledged by the issuer. */
    state: z.enum(['open', 'acknowledged', 'all']).default('all'),
    gamesserver_id: IdParamSchema.optional(),
    /** Incidents of this issuer. */
    user_id: IdParamSchema.optional(),
  }),
  response: z.object({ data: z.array(AdminCodeIncidentSchema), total: z.number().int() }),
});

export const AdminCodeAttemptSchema = z.object({
  id: z.number().int(),
  user: AdminPersonSchema,
  ip: z.string().nullable(),
  result: z.enum(['activated', 'already_activated', 'cancelled', 'own_code', 'not_found', 'server_closed']),
  created_at: TimestampSchema,
});

/** One code by its sert or its id, with every activation try, its incidents and its ledger entries. */
export const adminCodes = defineCall({
  method: 'GET',
  path: '/api/admin/codes',
  query: z
    .object({
      sert: z.string().trim().max(64, 'Такого кода не бывает').refine(cleanLine, CONTROL_CHARS_MESSAGE).optional(),
      id: IdParamSchema.optional(),
    })
    .refine((q) => (q.sert ? 1 : 0) + (q.id ? 1 : 0) === 1, { message: 'Укажите код или его номер', path: ['sert'] }),
  response: z.object({
    code: AdminCodeSchema,
    attempts: z.array(AdminCodeAttemptSchema),
    incidents: z.array(AdminCodeIncidentSchema),
    /** Entries of the code's own postings and of its variant's batch postings. */
    ledger: z.array(AdminLedgerEntrySchema),
  }),
});

/** Cancels an active code and refunds its price to the issuer's wallet; audited. */
export const adminCancelCode = defineCall({
  method: 'POST',
  path: '/api/admin/codes/:id/cancel',
  params: IdParamsSchema,
  body: z.object({ reason: z.string({ error: 'Укажите причину' }).trim().min(1, 'Укажите причину').max(500, 'Не длиннее 500 символов').refine(cleanLines, CONTROL_CHARS_MESSAGE) }),
  response: z.object({ success: AdminCodeSchema, summa: z.number().int() }),
});
