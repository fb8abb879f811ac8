import { z } from 'zod';
import { FIELD_MESSAGES as M } from '../messages/ru';
import { AmountSchema, BalanceSchema, cleanLine, CONTROL_CHARS_MESSAGE, defineCall, IdParamSchema, IdParamsSchema, IdSchema, isCleanText, missing, PageParamSchema, TimestampSchema } from '../primitives';
import { CodeSchema, CodeStatusSchema } from './codes';

// PRODUCT.md section 10: the seller API (keys, /api/v1) and webhooks.

/** Codes one POST /v1/codes may issue. */
export const SELLER_MAX_COUNT = 100;
/** Live API keys one user may hold. */
export const API_KEYS_MAX = 20;
/** Codes on one page of GET /v1/codes. */
export const SELLER_PAGE_SIZE = 50;
/** Deliveries GET /webhook/deliveries lists. */
export const WEBHOOK_LOG_SIZE = 50;

/** Letters, digits, spaces and common punctuation: no control or format characters (PRODUCT.md section 8). */
const PlainText = (max: number, label: string) =>
  z
    .string({ error: missing })
    .trim()
    .min(1, M.required)
    .max(max, `${label} не длиннее ${max} символов`)
    .refine((v) => isCleanText(v), 'Недопустимые символы');

// ── API keys ──

export const ApiKeySchema = z.object({
  id: z.number().int(),
  name: z.string(),
  /** The key's first characters, enough to recognise it. */
  prefix: z.string(),
  created_at: TimestampSchema,
  last_used_at: TimestampSchema.nullable(),
});
export type ApiKey = z.infer<typeof ApiKeySchema>;

export const createApiKey = defineCall({
  method: 'POST',
  path: '/api/api_keys',
  /**
   * `password` (README "Second factors"): an account with a password and without TOTP gives it, so a
   * stolen session alone cannot make a key that issues codes and outlives a password change. With TOTP
   * on the code is asked instead (`X-Two-Factor-Code`); accounts without a password leave it out.
   */
  body: z.object({ name: PlainText(64, 'Название'), password: z.string().max(128, M.passwordLong).optional() }),
  response: z.object({ id: z.number().int(), name: z.string(), key: z.string(), created_at: TimestampSchema }),
});
export type CreateApiKeyBody = z.infer<typeof createApiKey.body>;

export const listApiKeys = defineCall({ method: 'GET', path: '/api/api_keys', response: z.array(ApiKeySchema) });

export const deleteApiKey = defineCall({
  method: 'DELETE',
  path: '/api/api_keys/:id',
  params: IdParamsSchema,
  response: z.object({ success: z.number().int() }),
});

// ── /api/v1: called with an API key ──

/** A code as the seller API shows it: the app's code and the seller's own order id. */
export const SellerCodeSchema = CodeSchema.extend({ external_id: z.string().nullable() });
export type SellerCode = z.infer<typeof SellerCodeSchema>;

export const v1Balance = defineCall({
  method: 'GET',
  path: '/api/v1/balance',
  query: z.object({ gamesserver_id: IdParamSchema }),
  response: z.object({ gamesserver_id: z.number().int(), balance: BalanceSchema, balance_second: BalanceSchema }),
});

const COUNT_INT = 'Количество — целое число';

export const v1IssueCodes = defineCall({
  method: 'POST',
  path: '/api/v1/codes',
  body: z.object({
    gamesserver_id: IdSchema,
    nominal: AmountSchema,
    // «Обязательное поле» only when it is missing; `"count": "2"` is a number of the wrong type, as AmountSchema says.
    count: z
      .number({ error: (i) => (i.input === undefined ? M.required : COUNT_INT) })
      .int(COUNT_INT)
      .min(1, 'Не меньше 1 кода')
      .max(SELLER_MAX_COUNT, `Не больше ${SELLER_MAX_COUNT} кодов за вызов`),
    // null is no order number, as answers write it (`external_id: null`): the same call, the same
    // Idempotency-Key hash and the same code as a body without the field.
    external_id: PlainText(100, 'Номер заказа')
      .nullish()
      .transform((v) => v ?? undefined),
  }),
  response: z.object({ codes: z.array(SellerCodeSchema), summa: z.number().int() }),
});
export type V1IssueCodesBody = z.infer<typeof v1IssueCodes.body>;

export const v1ListCodes = defineCall({
  method: 'GET',
  path: '/api/v1/codes',
  query: z.object({
    status: CodeStatusSchema.optional(),
    gamesserver_id: IdParamSchema.optional(),
    page: PageParamSchema,
    /**
     * A keyset cursor: only codes with an id below it, newest first, `page` counting from there. A program
     * walking a list that changes under it (a code activated or cancelled leaves `status=active`) sends
     * the id of the last code it read and page=1: no code is skipped or read twice (with `page` alone a code
     * leaving the filter shifted the rest up by one, and one still-active code was on no page). `total`
     * still counts every code the other filters match. codes.id is int4, hence IdParamSchema.
     */
    older_than: IdParamSchema.optional().describe(
      'Курсор: только коды с id меньше указанного (от новых к старым). Передайте id последнего прочитанного кода и page=1 — ' +
        'коды, активированные или отменённые между страницами, не сдвинут список. total считает все коды по остальным фильтрам.',
    ),
  }),
  response: z.object({ data: z.array(SellerCodeSchema), total: z.number().int() }),
});

export const v1GetCode = defineCall({ method: 'GET', path: '/api/v1/codes/:id', params: IdParamsSchema, response: SellerCodeSchema });

export const v1CancelCode = defineCall({ method: 'DELETE', path: '/api/v1/codes/:id', params: IdParamsSchema, response: SellerCodeSchema });

// ── Webhooks ──

export const WEBHOOK_EVENTS = ['code.activated', 'code.cancelled', 'request.completed', 'request.rejected', 'ping'] as const;
export const WebhookEventSchema = z.enum(WEBHOOK_EVENTS, { error: 'Неизвестное событие' });
export type WebhookEvent = z.infer<typeof WebhookEventSchema>;

export const WebhookUrlSchema = z
  .string({ error: missing })
  .trim()
  .min(1, M.required)
  .max(2000, 'Адрес не длиннее 2000 символов')
  .refine(cleanLine, CONTROL_CHARS_MESSAGE)
  .refine((v) => {
    try {
      const u = new URL(v);
      return (u.protocol === 'http:' || u.protocol === 'https:') && u.username === '' && u.password === '';
    } catch {
      return false;
    }
  }, 'Адрес должен начинаться с http:// или https://');

export const WebhookSchema = z.object({ url: z.string(), events: z.array(WebhookEventSchema), created_at: TimestampSchema });
export type Webhook = z.infer<typeof WebhookSchema>;

/**
 * `password` of PUT /webhook and POST /webhook/rotate (README "Second factors"): both answer the secret
 * that signs events the seller's receiver trusts, and the endpoint outlives logout and a password change,
 * so an account with a password and without TOTP gives it. With TOTP on the code is asked instead
 * (`X-Two-Factor-Code`); accounts without a password leave it out.
 */
const WebhookPasswordSchema = z.string().max(128, M.passwordLong).optional();

export const putWebhook = defineCall({
  method: 'PUT',
  path: '/api/webhook',
  body: z.object({
    url: WebhookUrlSchema,
    events: z
      .array(WebhookEventSchema, { error: 'Выберите события' })
      .min(1, 'Выберите хотя бы одно событие')
      .max(WEBHOOK_EVENTS.length)
      .transform((v) => [...new Set(v)]),
    password: WebhookPasswordSchema,
  }),
  response: z.object({ url: z.string(), events: z.array(WebhookEventSchema), secret: z.string() }),
});
export type PutWebhookBody = z.input<typeof putWebhook.body>;

export const getWebhook = defineCall({ method: 'GET', path: '/api/webhook', response: WebhookSchema.nullable() });
export const deleteWebhook = defineCall({ method: 'DELETE', path: '/api/webhook', response: z.object({ success: z.literal(true) }) });
export const rotateWebhookSecret = defineCall({
  method: 'POST',
  path: '/api/webhook/rotate',
  // Optional as a whole: a call with no body (a TOTP user's, an account without a password) still validates.
  body: z.object({ password: WebhookPasswordSchema }).optional(),
  response: z.object({ secret: z.string() }),
});
export type RotateWebhookSecretBody = z.infer<typeof rotateWebhookSecret.body>;

export const WebhookDeliverySchema = z.object({
  id: z.number().int(),
  type: WebhookEventSchema,
  status: z.enum(['pending', 'delivered', 'failed']),
  attempts: z.number().int(),
  last_status_code: z.number().int().nullable(),
  next_attempt_at: TimestampSchema.nullable(),
  created_at: TimestampSchema,
});
export type WebhookDelivery = z.infer<typeof WebhookDeliverySchema>;

export const testWebhook = defineCall({ method: 'POST', path: '/api/webhook/test', response: WebhookDeliverySchema });
export const webhookDeliveries = defineCall({ method: 'GET', path: '/api/webhook/deliveries', response: z.array(WebhookDeliverySchema) });
