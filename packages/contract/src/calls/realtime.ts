import { z } from 'zod';
import { defineCall } from '../primitives';
import { CodeStatusSchema } from './codes';
import { RequestStatusEventSchema } from './statement';

/** PRODUCT.md section 4: each event's name and the data it carries. */
export const RealtimeEventSchemas = {
  balance: z.object({ gamesserver_id: z.number().int(), balance: z.number().int(), balance_second: z.number().int() }),
  code_status: z.object({ gamesserver_id: z.number().int(), code_id: z.number().int(), code_status: CodeStatusSchema }),
  // `sert_masked`: the issuer has TOTP on, so the event carries the masked text (the issuing call's answer has it whole).
  sert: z.object({ gamesserver_id: z.number().int(), code_id: z.number().int(), nominal: z.number().int(), sert: z.string(), sert_masked: z.boolean().optional() }),
  del_sert: z.object({ gamesserver_id: z.number().int(), del_sert: z.number().int() }),
  error_code: z.object({ gamesserver_id: z.number().int(), code_id: z.number().int(), your_error_code_id: z.number().int() }),
  test: z.object({ message: z.string() }),
  /** This socket's session ended (logout, revoked, password change or reset, block, expiry): the client drops it. */
  session_ended: z.object({ reason: z.string() }),
  /** An operator completed or rejected the player's deposit or withdrawal (PRODUCT.md section 11). */
  request_status: RequestStatusEventSchema,
};
export type RealtimeEvents = { [N in keyof typeof RealtimeEventSchemas]: z.infer<(typeof RealtimeEventSchemas)[N]> };
export type RealtimeEventName = keyof RealtimeEvents;
export type RealtimeMessage = { [N in RealtimeEventName]: { channel: string; name: N; data: RealtimeEvents[N] } }[RealtimeEventName];

export const SubscribeBodySchema = z.object({ channel: z.string().max(100) });
export type SubscribeAck = { ok: true } | { error: string };

export const ablyToken = defineCall({
  method: 'POST',
  path: '/api/ably-token',
  body: z.object({}).optional(),
  response: z.object({ token: z.string(), expires_at: z.string(), channel: z.string() }),
});

export const testAbly = defineCall({ method: 'GET', path: '/api/testAbly', response: z.object({ sent: z.literal(true) }) });
