import { z } from 'zod';
import { FIELD_MESSAGES as M } from './messages/ru';

import { HISTORY_PAGE_SIZE } from './constants';

export * from './constants';

export const CurrencyTypeSchema = z.union([z.literal(1), z.literal(2)], { error: M.currency });
export type CurrencyType = z.infer<typeof CurrencyTypeSchema>;

/**
 * A positive whole amount that JSON carries exactly (at most 2^53 − 1). The bound is checked first and alone: zod's
 * `int` also refuses a whole number past 2^53 − 1, which then read «Сумма должна быть целым числом» beside «Слишком
 * большая сумма» (contract review 14).
 */
export const AmountSchema = z
  .number({ error: (i) => (i.input === undefined ? M.required : M.amountType) })
  .max(Number.MAX_SAFE_INTEGER, { error: M.amountMax, abort: true })
  .int(M.amountInt)
  .positive(M.amountPositive);

/** A non-negative amount in answers (balances may be zero). */
export const BalanceSchema = z.number().int().min(0);

/**
 * A required field's own message, said only when it is missing: any other failure of the field (a number
 * where text belongs, text too long) keeps the message that says what is wrong (the Russian error map).
 */
export const missing = (issue: { input?: unknown }) => (issue.input === undefined || issue.input === null ? M.required : undefined);

export const IdSchema = z.number({ error: M.id }).int(M.id).positive(M.id).max(2_147_483_647, M.id);

/**
 * A whole number as a path or query string writes it: decimal digits and nothing else. `Number()` would also read
 * `0x1`, `1e0`, `+1`, ` 1` and `1.0` as 1, other spellings of one record that a cache, a log or a limit keyed by the
 * text would count apart.
 */
export const wholeParam = (message: string) => z.string({ error: message }).regex(/^[0-9]{1,16}$/, message).pipe(z.coerce.number());

/** An id in a path or query string. */
export const IdParamSchema = wholeParam(M.id)
  .pipe(z.number().positive(M.id).max(2_147_483_647, M.id))
  .describe('Целое число от 1 до 2 147 483 647, цифрами');
export const IdParamsSchema = z.object({ id: IdParamSchema });
/** A query string's currency: "1" or "2". */
export const CurrencyParamSchema = wholeParam(M.currency).pipe(CurrencyTypeSchema).describe('1 — адена, 2 — монеты эйнхасад');
/** A positive id of a bigserial table in a query string (past int4, within what a JSON number holds exactly). */
export const BigIdParamSchema = wholeParam(M.id)
  .pipe(z.number().positive(M.id).max(Number.MAX_SAFE_INTEGER, M.id))
  .describe('Целое число от 1 до 9 007 199 254 740 991, цифрами');

export const TimestampSchema = z.string();

/**
 * Control (Cc) and format (Cf: NUL, bidi overrides such as U+202E, zero-width) characters, and a lone
 * surrogate (Cs: JSON's "\ud800" escape; PostgreSQL's jsonb refuses it and text stores it as U+FFFD).
 */
const CONTROL_CHARS = /[\p{Cc}\p{Cf}\p{Cs}]/u;
/** The same, but line breaks and tabs pass (comments, notes, reasons). */
const CONTROL_CHARS_MULTILINE = /(?![\n\r\t])[\p{Cc}\p{Cf}\p{Cs}]/u;
export const CONTROL_CHARS_MESSAGE = 'Уберите невидимые и управляющие символы';
/** True when free text holds no control or format character (PRODUCT.md section 8). */
export const isCleanText = (v: string, multiline = false) => !(multiline ? CONTROL_CHARS_MULTILINE : CONTROL_CHARS).test(v);
/** Free text of one line: 422 on a control or format character, never a 500 from the database. */
export const cleanLine = (v: string) => isCleanText(v);
export const cleanLines = (v: string) => isCleanText(v, true);

export const NickSchema = z
  .string({ error: missing })
  .trim()
  .regex(/^[A-Za-zА-Яа-яЁё0-9]{2,16}$/, M.nick);

/** A page number in a query string, 1 when absent. */
export const PageParamSchema = wholeParam(M.page)
  .pipe(z.number().min(1, M.page).max(100_000, 'Слишком далёкая страница'))
  .describe('Номер страницы, от 1 до 100 000')
  .prefault('1');

export const PageQuerySchema = z.object({
  page: PageParamSchema,
  per_page: wholeParam(M.perPage)
    .pipe(z.number().min(1, M.perPage).max(100, 'Не больше 100 записей на странице'))
    .describe('Записей на странице, от 1 до 100')
    .prefault(String(HISTORY_PAGE_SIZE)),
});

/** 422: PRODUCT.md section 3. */
export const ValidationErrorBodySchema = z.object({
  message: z.string(),
  errors: z.record(z.string(), z.array(z.string())),
});
/** 4xx other than 422; 409 for insufficient balance adds low_cap. */
export const ErrorBodySchema = z.object({
  message: z.string(),
  errors: z.record(z.string(), z.array(z.string())).optional(),
  low_cap: z.boolean().optional(),
  status: z.string().optional(),
});
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

export interface Call {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** The path under the origin, with /api and SPEC.md's trailing slash; `:id` for parameters. */
  path: string;
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  response: z.ZodType;
}

/** Keeps each call's literal types while checking its shape. */
export const defineCall = <C extends Call>(call: C): C => call;

/** `s` starts with `YYYY-MM-DD` naming a day of the calendar (JavaScript's Date turns 31 February into 3 March). */
export function isCalendarDay(s: string): boolean {
  const day = s.slice(0, 10);
  const d = new Date(`${day}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(day);
}
