import { z } from 'zod';
import { FIELD_MESSAGES as M } from '../messages/ru';
import { defineCall, IdParamsSchema, missing, TimestampSchema } from '../primitives';
import { AuthResponseSchema, PasswordSchema } from './auth';

// Sessions a player controls (PRODUCT.md section 7).

/** One signed-in device: how it signed in, from where, and when it was last seen. */
export const SessionSchema = z.object({
  id: z.number().int(),
  /** The session this call was made with. */
  current: z.boolean(),
  /** email, phone, discord, telegram, telegram_app, passkey, … */
  method: z.string(),
  created_at: TimestampSchema,
  last_seen_at: TimestampSchema,
  ip: z.string().nullable(),
  user_agent: z.string().nullable(),
});
export type Session = z.infer<typeof SessionSchema>;

export const sessionsList = defineCall({ method: 'GET', path: '/api/sessions', response: z.array(SessionSchema) });

export const sessionEnd = defineCall({
  method: 'DELETE',
  path: '/api/sessions/:id',
  params: IdParamsSchema,
  response: z.object({ success: z.number().int() }),
});

export const sessionsEndOthers = defineCall({
  method: 'POST',
  path: '/api/sessions/end_others',
  body: z.object({}).optional(),
  response: z.object({ ended: z.number().int().min(0) }),
});

export const ChangePasswordBodySchema = z
  .object({
    password: z.string({ error: missing }).min(1, M.required).max(128, M.passwordLong),
    new_password: PasswordSchema,
    new_password_confirmation: z.string({ error: missing }),
  })
  .superRefine((v, ctx) => {
    if (v.new_password !== v.new_password_confirmation) {
      ctx.addIssue({ code: 'custom', path: ['new_password_confirmation'], message: M.passwordMismatch });
    }
  });
export type ChangePasswordBody = z.infer<typeof ChangePasswordBodySchema>;

/** The current session goes on under the returned token; every other session ends. */
export const changePassword = defineCall({
  method: 'POST',
  path: '/api/change_password',
  body: ChangePasswordBodySchema,
  response: AuthResponseSchema,
});

/** Why a session ended: `session_ended`'s `reason` on its sockets. */
export const SESSION_END_REASONS = ['logout', 'revoked', 'password_changed', 'password_reset', 'blocked', 'expired'] as const;
export type SessionEndReason = (typeof SESSION_END_REASONS)[number];
