import { parsePhoneNumberFromString } from 'libphonenumber-js/min';
import { z } from 'zod';
import { FIELD_MESSAGES as M } from '../messages/ru';
import { cleanLine, CONTROL_CHARS_MESSAGE, defineCall, missing, TimestampSchema } from '../primitives';

export const EmailSchema = z
  .string({ error: missing })
  .trim()
  .toLowerCase()
  .min(1, M.required)
  .max(254, M.email)
  .pipe(z.email(M.email));

/** A phone as people type it, in E.164 (+79001234567); null when it is no valid number. */
export function phoneE164(v: string): string | null {
  const parsed = parsePhoneNumberFromString(v.trim(), 'RU');
  return parsed?.isValid() ? parsed.number : null;
}

/**
 * A phone as people type it — «8 900 123-45-67», «+7 (900) 123-45-67», «9001234567» — read with
 * Russia as the default country and answered in E.164 (+79001234567), the one form stored and
 * compared. libphonenumber-js's smallest metadata: the auth forms that use it are loaded lazily.
 */
export const PhoneSchema = z
  .string({ error: missing })
  .max(40, M.phone)
  .transform((v, ctx) => {
    const e164 = phoneE164(v);
    if (e164) return e164;
    ctx.addIssue({ code: 'custom', message: v.trim() === '' ? M.required : M.phone });
    return z.NEVER;
  });

export const PasswordSchema = z.string({ error: missing }).min(8, M.passwordShort).max(128, M.passwordLong);
export const OneTimeCodeSchema = z.string({ error: missing }).trim().regex(/^\d{6}$/, M.code);
const FlowTokenSchema = z.string({ error: missing }).min(1, M.required).max(200, 'Не длиннее 200 символов');
const NameSchema = z
  .string()
  .trim()
  .max(64, 'Имя не длиннее 64 символов')
  .refine(cleanLine, CONTROL_CHARS_MESSAGE)
  .optional()
  .transform((v) => (v ? v : undefined));

const withConfirmation = <T extends { password: string; password_confirmation: string }>(v: T, ctx: z.RefinementCtx) => {
  if (v.password !== v.password_confirmation) {
    ctx.addIssue({ code: 'custom', path: ['password_confirmation'], message: M.passwordMismatch });
  }
};

export const NewPasswordBodySchema = z
  .object({ password: PasswordSchema, password_confirmation: z.string({ error: missing }) })
  .superRefine(withConfirmation);

export const UserSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  admin: z.boolean(),
  vip: z.boolean(),
  vip_until: TimestampSchema.nullable(),
  telegram_linked: z.boolean(),
  /** TOTP is on (PRODUCT.md section 7). */
  two_factor: z.boolean(),
  /**
   * The account has a password (beyond PRODUCT.md's user object): false for one made by Discord or Telegram
   * sign-in, whose profile then offers no password change it could never pass.
   */
  has_password: z.boolean(),
  created_at: TimestampSchema,
});
export type User = z.infer<typeof UserSchema>;

export const AuthResponseSchema = z.object({ access_token: z.string(), user: UserSchema });
export type AuthResponse = z.infer<typeof AuthResponseSchema>;
/** With TOTP on, a password or Discord sign-in answers this instead: POST /2fa/verify finishes it (PRODUCT.md section 7). */
export const TwoFactorRequiredSchema = z.object({ two_factor_required: z.literal(true), two_factor_token: z.string() });
export type TwoFactorRequired = z.infer<typeof TwoFactorRequiredSchema>;
export const SignInResponseSchema = z.union([AuthResponseSchema, TwoFactorRequiredSchema]);
export type SignInResponse = z.infer<typeof SignInResponseSchema>;

// Registration by email: two steps and a resend.
export const emailRegister = defineCall({
  method: 'POST',
  path: '/api/email_register',
  body: z
    .object({ email: EmailSchema, password: PasswordSchema, password_confirmation: z.string({ error: missing }), name: NameSchema })
    .superRefine(withConfirmation),
  response: z.object({ email_token: z.string() }),
});
export const newTokenEmailRegister = defineCall({
  method: 'POST',
  path: '/api/new_token_email_register',
  body: z.object({ email_token: FlowTokenSchema }),
  response: z.object({ email_token: z.string() }),
});
export const codeVerificationEmailRegister = defineCall({
  method: 'POST',
  path: '/api/code_verification_email_register',
  body: z.object({ email_token: FlowTokenSchema, code: OneTimeCodeSchema }),
  response: AuthResponseSchema,
});

// Registration by phone.
export const phoneRegister = defineCall({
  method: 'POST',
  path: '/api/phone_register',
  body: z
    .object({ phone: PhoneSchema, password: PasswordSchema, password_confirmation: z.string({ error: missing }), name: NameSchema })
    .superRefine(withConfirmation),
  response: z.object({ phone_token: z.string() }),
});
export const newTokenPhoneRegister = defineCall({
  method: 'POST',
  path: '/api/new_token_phone_register',
  body: z.object({ phone_token: FlowTokenSchema }),
  response: z.object({ phone_token: z.string() }),
});
export const codeVerificationPhoneRegister = defineCall({
  method: 'POST',
  path: '/api/code_verification_phone_register',
  body: z.object({ phone_token: FlowTokenSchema, code: OneTimeCodeSchema }),
  response: AuthResponseSchema,
});

// Sign-in.
export const login = defineCall({
  method: 'POST',
  path: '/api/login',
  body: z.object({ email: EmailSchema, password: z.string({ error: missing }).min(1, M.required).max(128, M.passwordLong) }),
  response: SignInResponseSchema,
});
export const phoneLogin = defineCall({
  method: 'POST',
  path: '/api/phone_login',
  body: z.object({ phone: PhoneSchema, password: z.string({ error: missing }).min(1, M.required).max(128, M.passwordLong) }),
  response: SignInResponseSchema,
});

// Password reset by email: request → code check → new password (bearer = new_password_token).
export const emailResetPasswordCodeDate = defineCall({
  method: 'POST',
  path: '/api/email_reset_password_code_date',
  body: z.object({ email: EmailSchema }),
  response: z.object({ email_reset_password_token: z.string() }),
});
export const emailResetPasswordCodeCheck = defineCall({
  method: 'POST',
  path: '/api/email_reset_password_code_check',
  body: z.object({ email_reset_password_token: FlowTokenSchema, code: OneTimeCodeSchema }),
  response: z.object({ new_password_token: z.string() }),
});
export const emailCreateNewPassword = defineCall({
  method: 'POST',
  path: '/api/email_create_new_password',
  body: NewPasswordBodySchema,
  response: SignInResponseSchema,
});

// Password reset by phone.
export const phoneResetPassword = defineCall({
  method: 'POST',
  path: '/api/phone_reset_password',
  body: z.object({ phone: PhoneSchema }),
  response: z.object({ phone_reset_token: z.string() }),
});
export const phoneResetPasswordCodeCheck = defineCall({
  method: 'POST',
  path: '/api/phone_reset_password_code_check',
  body: z.object({ phone_reset_token: FlowTokenSchema, code: OneTimeCodeSchema }),
  response: z.object({ new_password_token: z.string() }),
});
export const phoneCreateNewPassword = defineCall({
  method: 'POST',
  path: '/api/phone_create_new_password',
  body: NewPasswordBodySchema,
  response: SignInResponseSchema,
});

// Discord and Telegram.
export const discordAuth = defineCall({
  method: 'POST',
  path: '/api/discord_auth',
  body: z.object({
    code: z.string({ error: missing }).min(1, M.required).max(512, 'Не длиннее 512 символов'),
    state: z.string({ error: missing }).min(1, M.required).max(512, 'Не длиннее 512 символов'),
    redirect_uri: z.url('Некорректный адрес возврата').max(512),
  }),
  response: SignInResponseSchema,
});

/**
 * The Telegram Login Widget's signed fields; numbers may come as strings from a URL. Every
 * received field is part of what Telegram signed, so fields not named here are kept (not
 * stripped) for the server's check.
 */
export const TelegramLoginSchema = z.object({
  id: z.union([z.number().int().positive(), z.string().regex(/^\d{1,20}$/)]),
  first_name: z.string().max(256),
  last_name: z.string().max(256).optional(),
  username: z.string().max(64).optional(),
  photo_url: z.string().max(1024).optional(),
  auth_date: z.union([z.number().int().positive(), z.string().regex(/^\d{1,12}$/)]),
  hash: z.string().regex(/^[0-9a-f]{64}$/i, 'Некорректная подпись Telegram'),
}).catchall(z.union([z.string().max(1024), z.number(), z.boolean()]));
export const telegramAuth = defineCall({
  method: 'POST',
  path: '/api/telegram_auth',
  body: TelegramLoginSchema,
  response: AuthResponseSchema,
});
export const webApp = defineCall({
  method: 'POST',
  path: '/api/web_app',
  body: z.object({ init_data: z.string({ error: missing }).min(1, M.required).max(8192, 'Не длиннее 8192 символов') }),
  response: AuthResponseSchema,
});

// Session.
export const getUser = defineCall({ method: 'GET', path: '/api/user', response: UserSchema });
export const logout = defineCall({ method: 'GET', path: '/api/logout', response: z.object({ logout: z.literal(true) }) });
export const authConfig = defineCall({
  method: 'GET',
  path: '/api/auth_config',
  response: z.object({
    discord: z.object({ client_id: z.string(), authorize_url: z.string() }).nullable(),
    telegram: z.object({ bot_username: z.string(), bot_id: z.number().int() }).nullable(),
  }),
});
