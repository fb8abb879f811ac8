import { z } from 'zod';
import { FIELD_MESSAGES as M } from '../messages/ru';
import { cleanLine, CONTROL_CHARS_MESSAGE, defineCall, IdParamsSchema, missing, TimestampSchema } from '../primitives';
import { AuthResponseSchema } from './auth';

// PRODUCT.md section 7: TOTP, the sign-in's second step, passkeys (issue 14, part B).

/** Header of a withdrawal or a code reveal by a user with TOTP on (step-up). */
export const TWO_FACTOR_HEADER = 'X-Two-Factor-Code';
/** How many recovery codes /2fa/enable hands out. */
export const RECOVERY_CODE_COUNT = 10;
/** Passkeys one account may hold (a rule beyond PRODUCT.md: each one signs in alone). */
export const PASSKEYS_MAX = 10;

export const TWO_FACTOR_MESSAGES = {
  totpCode: 'Код из приложения — 6 цифр',
  code: 'Введите 6 цифр из приложения или резервный код',
  wrongCode: 'Неверный код. Возьмите новый код из приложения',
  required: 'Подтвердите действие кодом из приложения-аутентификатора',
  setupRequired: 'Для работы в админке включите вход с кодом из приложения-аутентификатора',
  adminSession: 'Вы вошли без кода из приложения: подтвердите вход в админку кодом из приложения-аутентификатора',
  expired: 'Время на ввод кода истекло. Войдите снова',
  /** The pending sign-in carried a password reset: the new password was never saved, so signing in will not help. */
  resetExpired: 'Время на ввод кода истекло, новый пароль не сохранён. Начните восстановление пароля заново',
  tooManyCodes: 'Слишком много неверных кодов. Войдите снова',
  resetTooManyCodes: 'Слишком много неверных кодов, новый пароль не сохранён. Начните восстановление пароля заново',
  alreadyOn: 'Вход с кодом уже включён',
  notOn: 'Вход с кодом не включён',
  noSetup: 'Сначала начните настройку: отсканируйте QR-код',
  freshSignIn: 'Выйдите и войдите снова через Telegram или Discord, затем включите вход с кодом в течение 15 минут',
  freshSignInPasskey: 'Выйдите и войдите снова через Telegram или Discord, затем добавьте ключ доступа в течение 15 минут',
  freshSignInApiKey: 'Выйдите и войдите снова через Telegram или Discord, затем создайте API-ключ в течение 15 минут',
  freshSignInWebhook: 'Выйдите и войдите снова через Telegram или Discord, затем настройте вебхук в течение 15 минут',
  passkeyInvalid: 'Ключ доступа не подошёл. Попробуйте ещё раз',
  passkeyUnknown: 'Этот ключ доступа не зарегистрирован',
  passkeyName: 'Название не длиннее 64 символов',
  passkeysMax: `Не больше ${PASSKEYS_MAX} ключей доступа: удалите ненужный, чтобы добавить новый`,
} as const;

/** A 6-digit TOTP code (spaces allowed, as authenticator apps show "123 456"). */
export const TotpCodeSchema = z
  .string({ error: missing })
  .transform((v) => v.replace(/\s/g, ''))
  .pipe(z.string().regex(/^\d{6}$/, TWO_FACTOR_MESSAGES.totpCode));

/** A TOTP code or a recovery code (`xxxxx-xxxxx`, letters and digits; dashes and case do not matter). */
export const SecondFactorCodeSchema = z
  .string({ error: missing })
  .max(64, TWO_FACTOR_MESSAGES.code)
  .transform((v) => v.replace(/[\s-]/g, '').toLowerCase())
  .pipe(z.string().regex(/^(\d{6}|[a-z0-9]{10})$/, TWO_FACTOR_MESSAGES.code));

export const twoFactorSetup = defineCall({
  method: 'POST',
  path: '/api/2fa/setup',
  response: z.object({ secret: z.string(), otpauth_url: z.string() }),
});
export const twoFactorEnable = defineCall({
  method: 'POST',
  path: '/api/2fa/enable',
  /**
   * `password`: the account's current password (README "Second factors"): a stolen session alone
   * cannot turn TOTP on with the thief's authenticator. Accounts without a password leave it out.
   */
  body: z.object({ code: TotpCodeSchema, password: z.string().max(128, M.passwordLong).optional() }),
  response: z.object({ enabled: z.literal(true), recovery_codes: z.array(z.string()) }),
});
export const twoFactorDisable = defineCall({
  method: 'POST',
  path: '/api/2fa/disable',
  body: z.object({ code: SecondFactorCodeSchema }),
  response: z.object({ enabled: z.literal(false) }),
});
/**
 * Beyond PRODUCT.md: a current code from the app, or an unused recovery code, replaces the recovery codes with
 * ten new ones (the old ones, used or lost, stop working); the answer shows them once, as /2fa/enable's does.
 */
export const twoFactorRecoveryCodes = defineCall({
  method: 'POST',
  path: '/api/2fa/recovery_codes',
  body: z.object({ code: SecondFactorCodeSchema }),
  response: z.object({ recovery_codes: z.array(z.string()) }),
});
export const twoFactorVerify = defineCall({
  method: 'POST',
  path: '/api/2fa/verify',
  body: z.object({ two_factor_token: z.string({ error: missing }).min(1, M.required).max(200, 'Не длиннее 200 символов'), code: SecondFactorCodeSchema }),
  response: AuthResponseSchema,
});

export const PasskeySchema = z.object({ id: z.number().int(), name: z.string(), created_at: TimestampSchema });
export type Passkey = z.infer<typeof PasskeySchema>;

/** A WebAuthn response as @simplewebauthn/browser hands it over; the server checks it in full. */
const WebAuthnResponseSchema = z
  .object(
    {
      id: z.string({ error: TWO_FACTOR_MESSAGES.passkeyInvalid }).min(1).max(1024),
      rawId: z.string({ error: TWO_FACTOR_MESSAGES.passkeyInvalid }).max(1024),
      type: z.literal('public-key', { error: TWO_FACTOR_MESSAGES.passkeyInvalid }),
      response: z.record(z.string(), z.unknown(), { error: TWO_FACTOR_MESSAGES.passkeyInvalid }),
    },
    { error: TWO_FACTOR_MESSAGES.passkeyInvalid },
  )
  .loose();

export const passkeyRegisterOptions = defineCall({
  method: 'POST',
  path: '/api/passkeys/register/options',
  /**
   * `password` (README "Second factors"): an account with a password and without TOTP gives it, so a
   * stolen session alone cannot leave itself a passkey. With TOTP on the code is asked instead
   * (`X-Two-Factor-Code`); accounts without a password leave it out.
   */
  body: z.object({ password: z.string().max(128, M.passwordLong).optional() }).optional(),
  response: z.record(z.string(), z.unknown()),
});
export const passkeyRegisterVerify = defineCall({
  method: 'POST',
  path: '/api/passkeys/register/verify',
  body: z.object({
    response: WebAuthnResponseSchema,
    name: z.string().trim().max(64, TWO_FACTOR_MESSAGES.passkeyName).refine(cleanLine, CONTROL_CHARS_MESSAGE).optional(),
  }),
  response: PasskeySchema,
});
export const passkeysList = defineCall({ method: 'GET', path: '/api/passkeys', response: z.array(PasskeySchema) });
export const passkeyDelete = defineCall({
  method: 'DELETE',
  path: '/api/passkeys/:id',
  params: IdParamsSchema,
  response: z.object({ success: z.number().int() }),
});
export const passkeyLoginOptions = defineCall({
  method: 'POST',
  path: '/api/passkeys/login/options',
  response: z.record(z.string(), z.unknown()),
});
export const passkeyLoginVerify = defineCall({
  method: 'POST',
  path: '/api/passkeys/login/verify',
  body: z.object({ response: WebAuthnResponseSchema }),
  response: AuthResponseSchema,
});
