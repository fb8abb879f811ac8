import { z } from 'zod';
import { AmountSchema, BalanceSchema, cleanLine, CONTROL_CHARS_MESSAGE, defineCall, IdParamsSchema, IdSchema, missing, TimestampSchema } from '../primitives';
import { UserSchema } from './auth';

export const CodeStatusSchema = z.enum(['active', 'activated', 'cancelled']);
export type CodeStatus = z.infer<typeof CodeStatusSchema>;

/**
 * A gift code. `sert` is the bearer certificate and is shown only to its issuer. In the price data
 * of an issuer with TOTP on, open codes come masked (`ADN-7KQ2-****-****-H3RC`, `sert_masked: true`)
 * until the session steps up (README "Second factors"); the field is absent when `sert` is whole.
 */
export const CodeSchema = z.object({
  id: z.number().int(),
  nominal: z.number().int(),
  price: z.number().int(),
  status: CodeStatusSchema,
  sert: z.string(),
  gamesserver_id: z.number().int(),
  pricekod_id: z.number().int().nullable(),
  created_at: TimestampSchema,
  activated_at: TimestampSchema.nullable(),
  // Last: fast-json-stringify writes optional properties after the required ones.
  sert_masked: z.boolean().optional(),
});
export type Code = z.infer<typeof CodeSchema>;

/** A user variant: a batch of codes of the user's own nominal. */
export const PricekodSchema = z.object({
  id: z.number().int(),
  gamesserver_id: z.number().int(),
  nominal: z.number().int(),
  price: z.number().int(),
  count: z.number().int(),
  open_count: z.number().int(),
  created_at: TimestampSchema,
});
export type Pricekod = z.infer<typeof PricekodSchema>;

const PriceDataBase = z.object({
  id: z.number().int(),
  gamesserver: z.object({ id: z.number().int(), name: z.string() }),
  kods: z.array(CodeSchema),
  pricekods: z.array(PricekodSchema),
  svoy_variant_kods: z.array(CodeSchema),
  standard_nominals: z.array(z.object({ nominal: z.number().int(), price: z.number().int() })),
  code_fee_bp: z.number().int(),
  min_nominal: z.number().int(),
});

/**
 * The last code this user activated on the server. `id` and `gamesserver_id` as a code has them (PRODUCT.md
 * section 3); `code_id` is the same id, kept for clients written before they were added.
 */
export const UserKodSchema = z.object({
  id: z.number().int(),
  gamesserver_id: z.number().int(),
  code_id: z.number().int(),
  nominal: z.number().int(),
  status: CodeStatusSchema,
  activated_at: TimestampSchema.nullable(),
});

export const PriceDataSchema = PriceDataBase;
export const AuthPriceDataSchema = PriceDataBase.extend({
  wallet: z.object({ id: z.number().int(), balance: BalanceSchema, balance_second: BalanceSchema }),
  nick: z.string().nullable(),
  save_nick: z.string().nullable(),
  telegram_price: z.number().int().nullable(),
  user_kod: UserKodSchema.nullable(),
});
export type PriceData = z.infer<typeof PriceDataSchema>;
export type AuthPriceData = z.infer<typeof AuthPriceDataSchema>;

export const variantyAdenyZaKod = defineCall({
  method: 'GET',
  path: '/api/varianty_adeny_za_kod/:id',
  params: IdParamsSchema,
  response: PriceDataSchema,
});
export const authVariantyAdenyZaKod = defineCall({
  method: 'GET',
  path: '/api/auth_varianty_adeny_za_kod/:id',
  params: IdParamsSchema,
  response: AuthPriceDataSchema,
});

export const showCode = defineCall({
  method: 'POST',
  path: '/api/show_code/',
  body: z.object({
    gamesserver_id: IdSchema,
    nominal: AmountSchema,
    wallet_id: IdSchema,
    pricekod_id: IdSchema.optional(),
    /** The price the player confirmed (beyond PRODUCT.md): another price now is refused with 409 and `price`, never charged. */
    price: AmountSchema.optional(),
  }),
  response: z.object({
    success: z.literal(true),
    summa: z.number().int(),
    sert: z.string(),
    status: CodeStatusSchema,
    code_id: z.number().int(),
  }),
});

export const SertSchema = z
  .string({ error: missing })
  .trim()
  .toUpperCase()
  .min(1, 'Введите код')
  .max(64, 'Такого кода не бывает')
  .refine(cleanLine, CONTROL_CHARS_MESSAGE);

export const activationCode = defineCall({
  method: 'POST',
  path: '/api/activation_code/',
  body: z.object({ sert: SertSchema }),
  response: z.object({
    success: z.object({ code_id: z.number().int(), nominal: z.number().int(), gamesserver_id: z.number().int(), status: CodeStatusSchema }),
  }),
});

/** The issuer cancels an unactivated code and gets its price back. */
export const cancelCode = defineCall({
  method: 'POST',
  path: '/api/codes/:id/cancel',
  params: IdParamsSchema,
  response: z.object({ success: z.number().int(), summa: z.number().int() }),
});

const CountSchema = z
  .number({ error: 'Введите количество числом' })
  .int('Количество — целое число')
  .min(1, 'Не меньше 1 кода')
  .max(100, 'Не больше 100 кодов за раз');
const PricekodBodySchema = z.object({
  gamesserver_id: IdSchema,
  nominal: AmountSchema,
  count: CountSchema,
  /** One code's price the player confirmed (beyond PRODUCT.md): another price now is refused with 409 and `price`, never charged. */
  price: AmountSchema.optional(),
});
const PricekodAnswerSchema = z.object({
  success: PricekodSchema,
  summa: z.number().int(),
  count: z.number().int(),
  nominal: z.number().int(),
});

export const createPricekod = defineCall({
  method: 'POST',
  path: '/api/pricekods/',
  body: PricekodBodySchema,
  response: PricekodAnswerSchema,
});
export const updatePricekod = defineCall({
  method: 'PUT',
  path: '/api/pricekods/:id',
  params: IdParamsSchema,
  body: PricekodBodySchema,
  response: PricekodAnswerSchema,
});
export const deletePricekod = defineCall({
  method: 'DELETE',
  path: '/api/pricekods/:id',
  params: IdParamsSchema,
  response: z.object({ success: z.number().int(), summa: z.number().int() }),
});

export const IncidentSchema = z.object({
  id: z.number().int(),
  code_id: z.number().int(),
  gamesserver_id: z.number().int(),
  gamesserver: z.string(),
  nominal: z.number().int(),
  sert: z.string(),
  code_status: CodeStatusSchema,
  acknowledged_at: TimestampSchema.nullable(),
  created_at: TimestampSchema,
});
export type Incident = z.infer<typeof IncidentSchema>;

export const codeIncidents = defineCall({ method: 'GET', path: '/api/code_incidents', response: z.array(IncidentSchema) });
export const ackCodeIncident = defineCall({
  method: 'POST',
  path: '/api/code_incidents/:id/ack',
  params: IdParamsSchema,
  response: z.object({ success: z.number().int() }),
});
export const getErrorUserCode = defineCall({
  method: 'GET',
  path: '/api/get_error_user_code',
  response: z.object({ error_codes_count: z.number().int() }),
});

export const addLimitOtvetka = defineCall({
  method: 'POST',
  path: '/api/add_limit_otvetka/',
  body: z.object({ gamesserver_id: IdSchema, telegram_price: AmountSchema }),
  response: z.object({ success: z.number().int() }),
});
export const delLimitOtvetka = defineCall({
  method: 'POST',
  path: '/api/del_limit_otvetka/',
  body: z.object({ gamesserver_id: IdSchema }),
  response: z.object({ success: z.null() }),
});

/** The deep link that links the user's Telegram chat to the bot (`/start <token>`). */
export const telegramLink = defineCall({
  method: 'GET',
  path: '/api/telegram_link',
  response: z.object({ url: z.string().nullable(), linked: z.boolean() }),
});

/** Unlinks the user's notice chat (the sign-in through Telegram, if any, stays); the chat is told. */
export const telegramUnlink = defineCall({
  method: 'DELETE',
  path: '/api/telegram_link',
  response: z.object({ linked: z.literal(false) }),
});

export const vip = defineCall({
  method: 'POST',
  path: '/api/vip/',
  body: z.object({
    /** Whose coins pay; without it, the first server (in display order) whose coin balance covers the price. */
    gamesserver_id: IdSchema.optional(),
    months: z.number({ error: 'Укажите срок в месяцах' }).int('Срок — целое число месяцев').min(1, 'Не меньше 1 месяца').max(12, 'Не больше 12 месяцев'),
    /**
     * The coins and the days the player confirmed (beyond PRODUCT.md): when the server's VIP price or
     * period differs now, 409 with the current `price` and `days`, and nothing is charged.
     */
    price: AmountSchema.optional(),
    days: z.number({ error: 'Укажите срок в днях' }).int('Целое число дней').min(1, 'Не меньше 1 дня').optional(),
  }),
  response: z.object({ success: UserSchema }),
});
