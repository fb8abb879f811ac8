import { z } from 'zod';
import { FIELD_MESSAGES as M } from '../messages/ru';
import {
  AmountSchema,
  BalanceSchema,
  defineCall,
  IdParamSchema,
  IdParamsSchema,
  IdSchema,
  NickSchema,
  PageQuerySchema,
  TimestampSchema,
} from '../primitives';

export const WalletSchema = z.object({
  id: z.number().int(),
  gamesserver_id: z.number().int(),
  gamesserver: z.string(),
  nick: z.string().nullable(),
  balance: BalanceSchema,
  balance_second: BalanceSchema,
  new_message: z.boolean(),
});
export type Wallet = z.infer<typeof WalletSchema>;

export const RequestStatusSchema = z.enum(['pending', 'completed', 'rejected', 'cancelled']);
export type RequestStatus = z.infer<typeof RequestStatusSchema>;

/** A balance history entry: a deposit (input) or a withdrawal (output). */
export const RequestSchema = z.object({
  id: z.number().int(),
  type: z.enum(['input', 'output']),
  currency_type: z.union([z.literal(1), z.literal(2)]),
  amount: z.number().int(),
  status: RequestStatusSchema,
  gamesserver_id: z.number().int(),
  gamesserver: z.string(),
  nick: z.string(),
  cashier_nick: z.string(),
  comment: z.string().nullable(),
  created_at: TimestampSchema,
  updated_at: TimestampSchema,
});
export type Request = z.infer<typeof RequestSchema>;

export const wallets = defineCall({ method: 'GET', path: '/api/wallets', response: z.array(WalletSchema) });

export const saveNick = defineCall({
  method: 'POST',
  path: '/api/save_nick/',
  body: z.object({ gamesserver_id: IdSchema, nick: NickSchema }),
  response: z.object({ success: z.string() }),
});

export const getUserInputOutputBalance = defineCall({
  method: 'GET',
  path: '/api/get_user_input_output_balance',
  query: PageQuerySchema.extend({ gamesserver_id: IdParamSchema.optional() }),
  response: z.object({ data: z.array(RequestSchema), total: z.number().int() }),
});

const moneyBody = <C extends 1 | 2>(currency: C) =>
  z.object({
    gamesserver_id: IdSchema,
    amount: AmountSchema,
    // The path names the currency; a payload that says otherwise is refused, not reinterpreted.
    currency_type: z.literal(currency, { error: M.currency }).default(currency),
  });

export const upBalanceUser = defineCall({
  method: 'POST',
  path: '/api/up_balance_user/',
  body: moneyBody(1),
  response: z.object({ success: RequestSchema }),
});
export const upBalanceUserSecondCurrency = defineCall({
  method: 'POST',
  path: '/api/up_balance_user_second_currency/',
  body: moneyBody(2),
  response: z.object({ success: RequestSchema }),
});

const WithdrawalSchema = RequestSchema.extend({ enter_currency: z.number().int() });
export const downBalanceUser = defineCall({
  method: 'POST',
  path: '/api/down_balance_user/',
  body: moneyBody(1),
  response: z.object({ success: WithdrawalSchema }),
});
export const downBalanceUserSecondCurrency = defineCall({
  method: 'POST',
  path: '/api/down_balance_user_second_currency/',
  body: moneyBody(2),
  response: z.object({ success: WithdrawalSchema }),
});

export const deleteBalanceUser = defineCall({
  method: 'GET',
  path: '/api/delete_balance_user/:id',
  params: IdParamsSchema,
  response: z.object({ success: z.number().int() }),
});

export const deleteRequest = defineCall({
  method: 'POST',
  path: '/api/delete_request/',
  body: z.object({ id: IdSchema }),
  response: z.object({ success: z.number().int() }),
});
