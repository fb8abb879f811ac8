import { z } from 'zod';
import { BigIdParamSchema, CONTROL_CHARS_MESSAGE, CurrencyParamSchema, cleanLine, cleanLines, defineCall, IdParamSchema, IdParamsSchema, PageQuerySchema, TimestampSchema } from '../primitives';
import { RequestSchema, RequestStatusSchema } from './wallet';

// Admin calls live under /api/admin and answer 403 to anyone who is not an admin.

export const AdminRequestSchema = RequestSchema.extend({
  // `blocked` beyond PRODUCT.md: an operator's block of the player (a blocked player's withdrawal is only rejected).
  user: z.object({ id: z.number().int(), name: z.string(), email: z.string().nullable(), phone: z.string().nullable(), vip: z.boolean(), blocked: z.boolean() }),
  processed_by: z.number().int().nullable(),
  // Beyond PRODUCT.md: the deciding operator's name (null while undecided or for a player's cancel).
  processed_by_name: z.string().nullable(),
  processed_at: TimestampSchema.nullable(),
  // The operators' shift (PRODUCT.md section 12): who took it into work, and when.
  claimed_by: z.object({ id: z.number().int(), name: z.string() }).nullable(),
  claimed_at: TimestampSchema.nullable(),
  // Beyond PRODUCT.md: when the claim lapses (claimed_at + CLAIM_TIMEOUT_MIN) and any operator may take it over or decide it.
  claim_lapses_at: TimestampSchema.nullable(),
  // Beyond PRODUCT.md: another player's wallet on this server carries the request's nick (nicks are not unique).
  nick_shared: z.boolean(),
  // Beyond PRODUCT.md: the operator whose claim ended without a decision when they were blocked, lost the admin
  // flag or had TOTP turned off; they may have handed the adena over, so the player cannot cancel until an
  // operator decides the request or takes it and releases it.
  claim_dropped_by: z.object({ id: z.number().int(), name: z.string() }).nullable(),
});
export type AdminRequest = z.infer<typeof AdminRequestSchema>;

export const adminRequests = defineCall({
  method: 'GET',
  path: '/api/admin/requests',
  query: PageQuerySchema.extend({
    status: RequestStatusSchema.optional(),
    type: z.enum(['input', 'output']).optional(),
    gamesserver_id: IdParamSchema.optional(),
    currency_type: CurrencyParamSchema.optional(),
    /** Beyond PRODUCT.md: this operator's standing (not lapsed) claims (the admin area keeps its own claims alive). */
    claimed_by: IdParamSchema.optional(),
  }),
  response: z.object({ data: z.array(AdminRequestSchema), total: z.number().int() }),
});

export const adminCompleteRequest = defineCall({
  method: 'POST',
  path: '/api/admin/requests/:id/complete',
  params: IdParamsSchema,
  body: z.object({ comment: z.string().trim().max(500).refine(cleanLines, CONTROL_CHARS_MESSAGE).optional() }).optional(),
  response: z.object({ success: AdminRequestSchema }),
});

export const adminRejectRequest = defineCall({
  method: 'POST',
  path: '/api/admin/requests/:id/reject',
  params: IdParamsSchema,
  body: z.object({ reason: z.string({ error: 'Укажите причину' }).trim().min(1, 'Укажите причину').max(500, 'Не длиннее 500 символов').refine(cleanLines, CONTROL_CHARS_MESSAGE) }),
  response: z.object({ success: AdminRequestSchema }),
});

export const AuditSchema = z.object({ ok: z.boolean(), problems: z.array(z.string()), checked_at: z.string() });
export const adminLedgerAudit = defineCall({ method: 'GET', path: '/api/admin/ledger/audit', response: AuditSchema });

// ── Admin area (issue 8): game servers, users, incident resolution, ledger, audit log, dashboard ──
// Imports sit here, not at the top, so that this block is one append (other issues append too).
import { CodeStatusSchema as AdminCodeStatusSchema } from './codes';
import { UserSchema as AdminBaseUserSchema } from './auth';
import { GamesserverSchema as AdminBaseGamesserverSchema } from './system';
import { WalletSchema as AdminBaseWalletSchema } from './wallet';
import { AmountSchema as AdminAmountSchema, NickSchema as AdminNickSchema } from '../primitives';

// Thousands grouped with a no-break space, as the web app writes numbers: «10 000» never wraps in a field's hint.
const BpSchema = z
  .number({ error: 'Введите число от 0 до 10\u00a0000' })
  .int('Целое число базисных пунктов')
  .min(0, 'От 0 до 10\u00a0000 (100 б.п. = 1%)')
  .max(10_000, 'От 0 до 10\u00a0000 (100 б.п. = 1%)');
const LimitInputSchema = z
  .object({ min: AdminAmountSchema, max: AdminAmountSchema })
  .refine((l) => l.min <= l.max, { message: 'Максимум не меньше минимума', path: ['max'] });
const DirectionLimitsInputSchema = z.object({ '1': LimitInputSchema, '2': LimitInputSchema });

/** Every setting of a game server an operator edits. */
export const GamesserverFieldsSchema = z.object({
  name: z.string({ error: 'Введите название' }).trim().min(1, 'Введите название').max(60, 'Не длиннее 60 символов').refine(cleanLine, CONTROL_CHARS_MESSAGE),
  active: z.boolean(),
  sort_order: z.number({ error: 'Введите число' }).int('Целое число').min(-100_000, 'От −100\u00a0000 до 100\u00a0000').max(100_000, 'От −100\u00a0000 до 100\u00a0000'),
  cashier_nick: AdminNickSchema,
  limits: z.object({ input: DirectionLimitsInputSchema, output: DirectionLimitsInputSchema }),
  code_fee_bp: BpSchema,
  vip_code_fee_bp: BpSchema,
  min_nominal: AdminAmountSchema,
  standard_nominals: z.array(AdminAmountSchema).max(20, 'Не больше 20 номиналов'),
  vip_price: AdminAmountSchema,
  vip_period_days: z.number({ error: 'Введите число дней' }).int('Целое число дней').min(1, 'Не меньше 1 дня').max(3650, 'Не больше 3650 дней'),
});
/** Rules across fields; the server applies them to the merged record of an update too. */
export const GamesserverInputSchema = GamesserverFieldsSchema.superRefine((s, ctx) => {
  if (s.vip_code_fee_bp > s.code_fee_bp) {
    ctx.addIssue({ code: 'custom', path: ['vip_code_fee_bp'], message: 'Комиссия для VIP не больше обычной' });
  }
  s.standard_nominals.forEach((n, i) => {
    if (n < s.min_nominal) ctx.addIssue({ code: 'custom', path: ['standard_nominals', i], message: 'Номинал меньше минимального' });
  });
  if (new Set(s.standard_nominals).size !== s.standard_nominals.length) {
    ctx.addIssue({ code: 'custom', path: ['standard_nominals'], message: 'Номиналы не должны повторяться' });
  }
});
export type GamesserverInput = z.infer<typeof GamesserverInputSchema>;

export const AdminGamesserverSchema = AdminBaseGamesserverSchema.omit({ median_processing_minutes: true }).extend({
  active: z.boolean(),
  sort_order: z.number().int(),
  created_at: TimestampSchema,
  updated_at: TimestampSchema,
});
export type AdminGamesserver = z.infer<typeof AdminGamesserverSchema>;

export const adminGamesservers = defineCall({
  method: 'GET',
  path: '/api/admin/gamesservers',
  response: z.array(AdminGamesserverSchema),
});
export const adminCreateGamesserver = defineCall({
  method: 'POST',
  path: '/api/admin/gamesservers',
  body: GamesserverInputSchema,
  response: z.object({ success: AdminGamesserverSchema }),
});
/** Any subset of the settings; the merged record must pass GamesserverInputSchema. */
export const adminUpdateGamesserver = defineCall({
  method: 'PUT',
  path: '/api/admin/gamesservers/:id',
  params: IdParamsSchema,
  body: GamesserverFieldsSchema.partial(),
  response: z.object({ success: AdminGamesserverSchema }),
});

export const AdminUserSchema = AdminBaseUserSchema.extend({
  blocked_at: TimestampSchema.nullable(),
  telegram_id: z.string().nullable(),
  discord_id: z.string().nullable(),
});
export type AdminUser = z.infer<typeof AdminUserSchema>;

export const adminUsers = defineCall({
  method: 'GET',
  path: '/api/admin/users',
  query: PageQuerySchema.extend({
    /** Email, phone, name (parts of them), a user id, a Telegram id or a Discord id. */
    q: z.string().trim().max(100, 'Не длиннее 100 символов').refine(cleanLine, CONTROL_CHARS_MESSAGE).optional(),
    role: z.enum(['admin', 'vip', 'blocked']).optional(),
    /**
     * Beyond PRODUCT.md: only users with id <= before_id; `page` and `total` count from there. A client sends
     * the id of page 1's newest user with every later page, so users who sign up meanwhile do not push the
     * rows already seen onto the next page (a repeat).
     */
    before_id: IdParamSchema.optional(),
  }),
  response: z.object({ data: z.array(AdminUserSchema), total: z.number().int() }),
});

export const AdminLedgerEntrySchema = z.object({
  id: z.number().int(),
  transaction_id: z.number().int(),
  transaction_kind: z.string(),
  ref_type: z.string().nullable(),
  ref_id: z.number().int().nullable(),
  actor_user_id: z.number().int().nullable(),
  account_id: z.number().int(),
  account_key: z.string(),
  gamesserver_id: z.number().int(),
  currency_type: z.union([z.literal(1), z.literal(2)]),
  /** Signed: positive adds to the account. */
  amount: z.number().int(),
  balance_after: z.number().int().nullable(),
  created_at: TimestampSchema,
});
export type AdminLedgerEntry = z.infer<typeof AdminLedgerEntrySchema>;

export const AdminUserCodeSchema = z.object({
  id: z.number().int(),
  gamesserver_id: z.number().int(),
  nominal: z.number().int(),
  price: z.number().int(),
  status: AdminCodeStatusSchema,
  created_at: TimestampSchema,
  activated_at: TimestampSchema.nullable(),
});

export const adminUser = defineCall({
  method: 'GET',
  path: '/api/admin/users/:id',
  params: IdParamsSchema,
  response: z.object({
    user: AdminUserSchema,
    wallets: z.array(
      AdminBaseWalletSchema.extend({
        telegram_price: z.number().int().nullable(),
        /** Ledger account ids of the wallet per currency (null until the first movement). */
        accounts: z.object({ '1': z.number().int().nullable(), '2': z.number().int().nullable() }),
      }),
    ),
    /** The newest 50 deposits and withdrawals, hidden ones included. */
    requests: z.array(RequestSchema.extend({ hidden: z.boolean() })),
    /** The newest 50 codes the user issued; null while the codes table does not exist. */
    codes: z.array(AdminUserCodeSchema).nullable(),
    /** The newest 50 entries on the user's wallets. */
    ledger: z.array(AdminLedgerEntrySchema),
  }),
});

export const adminSetUserAdmin = defineCall({
  method: 'POST',
  path: '/api/admin/users/:id/admin',
  params: IdParamsSchema,
  body: z.object({ admin: z.boolean() }),
  response: z.object({ success: AdminUserSchema }),
});
export const adminSetUserVip = defineCall({
  method: 'POST',
  path: '/api/admin/users/:id/vip',
  params: IdParamsSchema,
  /** An ISO date-time in the future grants VIP until then; null revokes it. */
  body: z.object({
    vip_until: z.iso
      .datetime({ offset: true, error: 'Укажите дату' })
      .refine((v) => new Date(v).getUTCFullYear() < 10_000, 'Дата не позже 9999 года')
      .nullable(),
  }),
  response: z.object({ success: AdminUserSchema }),
});
const AdminReasonSchema = z.string({ error: 'Укажите причину' }).trim().min(1, 'Укажите причину').max(500, 'Не длиннее 500 символов').refine(cleanLines, CONTROL_CHARS_MESSAGE);
export const adminBlockUser = defineCall({
  method: 'POST',
  path: '/api/admin/users/:id/block',
  params: IdParamsSchema,
  // `revoke_keys`: the account was stolen; its seller API keys and passkeys go now, so an unblock does not bring them back.
  body: z.object({ reason: AdminReasonSchema, revoke_keys: z.boolean().optional() }),
  response: z.object({ success: AdminUserSchema }),
});
/**
 * Turns a player's TOTP off when they lost their authenticator (or a thief turned it on): every
 * session of theirs ends. The operator confirms with their own code (`X-Two-Factor-Code`); audited
 * with the reason.
 */
export const adminUserTwoFactorOff = defineCall({
  method: 'POST',
  path: '/api/admin/users/:id/two_factor_off',
  params: IdParamsSchema,
  body: z.object({ reason: AdminReasonSchema }),
  response: z.object({ success: AdminUserSchema }),
});
export const adminUnblockUser = defineCall({
  method: 'POST',
  path: '/api/admin/users/:id/unblock',
  params: IdParamsSchema,
  body: z.object({}).optional(),
  response: z.object({ success: AdminUserSchema }),
});

export const IncidentResolutionSchema = z.object({
  incident_id: z.number().int(),
  note: z.string(),
  resolved_by: z.number().int(),
  resolved_by_name: z.string(),
  resolved_at: TimestampSchema,
});
export type IncidentResolution = z.infer<typeof IncidentResolutionSchema>;

/** An operator closes a code incident with a note (once; a second note answers 409). */
export const adminResolveIncident = defineCall({
  method: 'POST',
  path: '/api/admin/code_incidents/:id/resolve',
  params: IdParamsSchema,
  body: z.object({ note: z.string({ error: 'Напишите заметку' }).trim().min(1, 'Напишите заметку').max(1000, 'Не длиннее 1000 символов').refine(cleanLines, CONTROL_CHARS_MESSAGE) }),
  response: z.object({ success: IncidentResolutionSchema }),
});
/** Resolutions of the given incidents (ids comma-separated, at most 100). */
export const adminIncidentResolutions = defineCall({
  method: 'GET',
  path: '/api/admin/incident_resolutions',
  query: z.object({
    ids: z
      .string()
      .regex(/^\d{1,10}(,\d{1,10}){0,99}$/, 'Список id через запятую')
      .transform((s) => s.split(',').map(Number)),
  }),
  response: z.array(IncidentResolutionSchema),
});

const SignedSchema = z.number().int();
export const LedgerTotalsRowSchema = z.object({
  gamesserver_id: z.number().int(),
  gamesserver: z.string(),
  currency_type: z.union([z.literal(1), z.literal(2)]),
  /** Sum of the players' wallet balances. */
  wallets: SignedSchema,
  /** Withdrawals held while pending. */
  payout: SignedSchema,
  /** Prices of active codes waiting for activation (adena only). */
  escrow: SignedSchema,
  /** Fee revenue. */
  fees: SignedSchema,
  /** The service's cash account: minus what came in through the cashier net of payouts. */
  cash: SignedSchema,
  /** What the service owes players: wallets + payout + escrow. */
  owed: SignedSchema,
  /** Ledger account ids of the service's accounts, for their entries. */
  accounts: z.object({
    cash: z.number().int().nullable(),
    payout: z.number().int().nullable(),
    escrow: z.number().int().nullable(),
    fees: z.number().int().nullable(),
  }),
});
export type LedgerTotalsRow = z.infer<typeof LedgerTotalsRowSchema>;

export const adminLedgerTotals = defineCall({
  method: 'GET',
  path: '/api/admin/ledger/totals',
  response: z.object({ data: z.array(LedgerTotalsRowSchema), computed_at: TimestampSchema }),
});

export const AdminLedgerAccountSchema = z.object({
  id: z.number().int(),
  key: z.string(),
  kind: z.enum(['wallet', 'cash', 'payout', 'escrow', 'fees']),
  gamesserver_id: z.number().int(),
  gamesserver: z.string(),
  currency_type: z.union([z.literal(1), z.literal(2)]),
  wallet_id: z.number().int().nullable(),
  user_id: z.number().int().nullable(),
  balance: SignedSchema,
});
export type AdminLedgerAccount = z.infer<typeof AdminLedgerAccountSchema>;

export const adminLedgerAccountEntries = defineCall({
  method: 'GET',
  path: '/api/admin/ledger/accounts/:id/entries',
  params: IdParamsSchema,
  query: PageQuerySchema,
  response: z.object({ account: AdminLedgerAccountSchema, data: z.array(AdminLedgerEntrySchema), total: z.number().int() }),
});

export const AdminAuditEntrySchema = z.object({
  id: z.number().int(),
  admin_id: z.number().int(),
  admin_name: z.string(),
  admin_email: z.string().nullable(),
  action: z.string(),
  entity_type: z.string(),
  entity_id: z.string(),
  before: z.unknown(),
  after: z.unknown(),
  created_at: TimestampSchema,
});
export type AdminAuditEntry = z.infer<typeof AdminAuditEntrySchema>;

export const adminAuditLog = defineCall({
  method: 'GET',
  path: '/api/admin/audit_log',
  query: PageQuerySchema.extend({
    admin_id: IdParamSchema.optional(),
    entity_type: z.string().trim().max(50).refine(cleanLine, CONTROL_CHARS_MESSAGE).optional(),
    entity_id: z.string().trim().max(50).refine(cleanLine, CONTROL_CHARS_MESSAGE).optional(),
    action: z.string().trim().max(50).refine(cleanLine, CONTROL_CHARS_MESSAGE).optional(),
    /**
     * Beyond PRODUCT.md: only entries with id <= before_id; `page` and `total` count from there. A client sends
     * the id of page 1's newest entry with every later page, so entries written meanwhile do not push the
     * rows already seen onto the next page (a repeat).
     */
    before_id: BigIdParamSchema.optional(),
  }),
  response: z.object({ data: z.array(AdminAuditEntrySchema), total: z.number().int() }),
});

export const adminDashboard = defineCall({
  method: 'GET',
  path: '/api/admin/dashboard',
  response: z.object({
    /** Pending requests per server, currency and direction. */
    pending: z.array(
      z.object({
        gamesserver_id: z.number().int(),
        gamesserver: z.string(),
        currency_type: z.union([z.literal(1), z.literal(2)]),
        type: z.enum(['input', 'output']),
        count: z.number().int(),
        sum: z.number().int(),
        oldest_created_at: TimestampSchema,
      }),
    ),
    /** The request waiting longest, any server. */
    oldest: z
      .object({
        id: z.number().int(),
        gamesserver_id: z.number().int(),
        gamesserver: z.string(),
        type: z.enum(['input', 'output']),
        currency_type: z.union([z.literal(1), z.literal(2)]),
        amount: z.number().int(),
        created_at: TimestampSchema,
        waiting_minutes: z.number().int(),
      })
      .nullable(),
    /** Median minutes from creation to completion or rejection over the last 24 hours, per server. */
    medians: z.array(
      z.object({ gamesserver_id: z.number().int(), gamesserver: z.string(), minutes: z.number().int().nullable(), processed: z.number().int() }),
    ),
    median_all_minutes: z.number().int().nullable(),
    processed_24h: z.number().int(),
  }),
});
