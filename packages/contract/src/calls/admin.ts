import { z } from 'zod';
import { defineCall, IdParamSchema, IdParamsSchema, PageQuerySchema, TimestampSchema } from '../primitives';
import { RequestSchema, RequestStatusSchema } from './wallet';

// Admin calls live under /api/admin and answer 403 to anyone who is not an admin.

export const AdminRequestSchema = RequestSchema.extend({
  user: z.object({ id: z.number().int(), name: z.string(), email: z.string().nullable(), phone: z.string().nullable(), vip: z.boolean() }),
  processed_by: z.number().int().nullable(),
  processed_at: TimestampSchema.nullable(),
});
export type AdminRequest = z.infer<typeof AdminRequestSchema>;

export const adminRequests = defineCall({
  method: 'GET',
  path: '/api/admin/requests',
  query: PageQuerySchema.extend({
    status: RequestStatusSchema.optional(),
    type: z.enum(['input', 'output']).optional(),
    gamesserver_id: IdParamSchema.optional(),
    currency_type: z.coerce.number().pipe(z.union([z.literal(1), z.literal(2)])).optional(),
  }),
  response: z.object({ data: z.array(AdminRequestSchema), total: z.number().int() }),
});

export const adminCompleteRequest = defineCall({
  method: 'POST',
  path: '/api/admin/requests/:id/complete',
  params: IdParamsSchema,
  body: z.object({ comment: z.string().trim().max(500).optional() }).optional(),
  response: z.object({ success: AdminRequestSchema }),
});

export const adminRejectRequest = defineCall({
  method: 'POST',
  path: '/api/admin/requests/:id/reject',
  params: IdParamsSchema,
  body: z.object({ reason: z.string({ error: 'Укажите причину' }).trim().min(1, 'Укажите причину').max(500, 'Не длиннее 500 символов') }),
  response: z.object({ success: AdminRequestSchema }),
});

export const AuditSchema = z.object({ ok: z.boolean(), problems: z.array(z.string()), checked_at: z.string() });
export const adminLedgerAudit = defineCall({ method: 'GET', path: '/api/admin/ledger/audit', response: AuditSchema });
