// Issue 17, part A (PRODUCT.md section 11): the player's statement, all their codes, and the
// realtime notice of an operator's decision.
import { z } from 'zod';
import { FIELD_MESSAGES as M } from '../messages/ru';
import { BigIdParamSchema, CurrencyParamSchema, defineCall, IdParamSchema, isCalendarDay, PageQuerySchema, TimestampSchema } from '../primitives';
import { CodeSchema, CodeStatusSchema } from './codes';
import { RequestStatusSchema } from './wallet';

export const StatementKindSchema = z.enum([
  'deposit',
  'withdrawal',
  'withdrawal_refund',
  'code_purchase',
  'code_refund',
  'code_activation',
  'vip',
  'adjustment',
]);
export type StatementKind = z.infer<typeof StatementKindSchema>;

/** One movement of one of the player's wallets: `amount` signed, `balance_after` that wallet's balance in that currency after it. */
export const StatementEntrySchema = z.object({
  id: z.number().int(),
  at: TimestampSchema,
  kind: StatementKindSchema,
  currency_type: z.union([z.literal(1), z.literal(2)]),
  amount: z.number().int(),
  balance_after: z.number().int(),
  gamesserver_id: z.number().int(),
  description: z.string(),
});
export type StatementEntry = z.infer<typeof StatementEntrySchema>;

const OptionalServerSchema = IdParamSchema.optional();

export const StatementQuerySchema = PageQuerySchema.extend({
  gamesserver_id: OptionalServerSchema,
  currency_type: CurrencyParamSchema.optional(),
  /**
   * Beyond PRODUCT.md: only entries with id <= before_id; `page` and `total` count from there. The web app
   * sends the id of page 1's newest entry with every later page, so movements made meanwhile do not push
   * the lines already seen onto the next page (a repeat). Another player's id only bounds the caller's own.
   */
  before_id: BigIdParamSchema.optional(),
});
export type StatementQuery = z.infer<typeof StatementQuerySchema>;

export const statement = defineCall({
  method: 'GET',
  path: '/api/statement',
  query: StatementQuerySchema,
  response: z.object({ data: z.array(StatementEntrySchema), total: z.number().int() }),
});

/** A calendar day in a query string, `YYYY-MM-DD`. */
const DaySchema = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, { message: 'Укажите дату в виде ГГГГ-ММ-ДД', abort: true })
  .refine(isCalendarDay, 'Такой даты нет')
  // Year 0 and 1 fall outside what the database stores once shifted to Moscow time.
  .refine((v) => v >= '1000', 'Дата не раньше 1000 года');

export const StatementCsvQuerySchema = z
  .object({
    gamesserver_id: OptionalServerSchema,
    /** Beyond PRODUCT.md: the screen's currency filter, so the file holds what the screen shows. */
    currency_type: CurrencyParamSchema.optional(),
    /** First and last day, inclusive, in Moscow time (the service's day). */
    from: DaySchema.optional(),
    to: DaySchema.optional(),
    /** A one-time download token (POST /api/statement/download_token) instead of the Authorization header. */
    token: z.string().max(200).optional(),
  })
  .refine((q) => !q.from || !q.to || q.from <= q.to, { path: ['to'], message: M.periodOrder });
export type StatementCsvQuery = z.infer<typeof StatementCsvQuerySchema>;

/** The statement as a CSV file: `text/csv; charset=utf-8`, a BOM, `;` separators, Russian headers. */
export const statementCsv = defineCall({
  method: 'GET',
  path: '/api/statement.csv',
  query: StatementCsvQuerySchema,
  response: z.string(),
});

/** A download token for a link (Telegram's downloadFile cannot send a header): one use, two minutes. */
export const statementDownloadToken = defineCall({
  method: 'POST',
  path: '/api/statement/download_token',
  body: z.object({}).optional(),
  response: z.object({ token: z.string(), expires_at: TimestampSchema }),
});

export const MY_CODES_PAGE_SIZE = 20;

export const MyCodesQuerySchema = z.object({
  status: CodeStatusSchema.optional(),
  gamesserver_id: OptionalServerSchema,
  page: PageQuerySchema.shape.page,
});
export type MyCodesQuery = z.infer<typeof MyCodesQuerySchema>;

/** Every code the caller issued, active ones first, then the newest. */
export const myCodes = defineCall({
  method: 'GET',
  path: '/api/my_codes',
  query: MyCodesQuerySchema,
  response: z.object({ data: z.array(CodeSchema), total: z.number().int() }),
});

/** The realtime `message` `request_status`: an operator completed or rejected the player's request. */
export const RequestStatusEventSchema = z.object({
  id: z.number().int(),
  type: z.enum(['input', 'output']),
  status: RequestStatusSchema,
  amount: z.number().int(),
  currency_type: z.union([z.literal(1), z.literal(2)]),
  gamesserver_id: z.number().int(),
  comment: z.string().nullable(),
});
export type RequestStatusEvent = z.infer<typeof RequestStatusEventSchema>;
