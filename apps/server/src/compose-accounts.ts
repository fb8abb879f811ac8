// The accounts module's services composed for buildApp (app.ts), which hands them to their routes.

import type { FastifyInstance } from 'fastify';
import type { Config } from './config';
import type { Db } from './db/client';
import type { Trx } from './db/schema';
import { createAccountsService } from './modules/accounts/accounts.service';
import { createCodeFlows } from './modules/accounts/code-flows';
import { createCurrentPasswordCheck } from './modules/accounts/current-password';
import { createExternalSignInService, type ExternalSignInService } from './modules/accounts/external-sign-in.service';
import { DEFAULT_LIMITS, scaleLimits } from './modules/accounts/limits';
import { createResetService, type ResetService } from './modules/accounts/reset.service';
import { createSignIn } from './modules/accounts/sign-in';
import { createSignUpService } from './modules/accounts/sign-up.service';
import { createSmsRules } from './modules/accounts/sms-rules';
import { createCodeDelivery } from './modules/notifications/code-delivery';
import { createMailer } from './modules/notifications/mail';
import { createOutbox } from './modules/notifications/outbox';
import { createSmsRuGateway } from './modules/notifications/sms';
import { createRateLimiter } from './modules/sessions/rate-limit.service';
import type { SessionsService } from './modules/sessions/sessions.service';
import { createPasswordChangeService } from './modules/accounts/password-change.service';
import { unlinkTelegramChat } from './modules/notifications/telegram-subscriptions.service';
import type { Jobs } from './modules/jobs/jobs.service';
import type { ApiKeysService } from './modules/seller/api-keys.service';
import { removeWebhookOf } from './modules/webhooks/webhooks.service';
import { createPasskeysService } from './modules/passkeys/passkeys.service';
import { createTwoFactorService } from './modules/two-factor/two-factor.service';

/** The accounts module's services; one-time codes go by mail and SMS where configured, else to the outbox. */
// Long: the accounts module's services, built in the order they need each other; it decides nothing itself.
export function composeAccounts(
  app: FastifyInstance,
  config: Config,
  db: Db,
  sessions: SessionsService,
  now: () => Date,
  { jobs, apiKeys, totpTurnedOff }: { jobs: Jobs; apiKeys: Pick<ApiKeysService, 'revokeAllOf'>; totpTurnedOff: (userId: number) => void },
) {
  // Mail and SMS are jobs of the queue, sealed with SECRET_KEY (decision record 0020).
  const delivery = createCodeDelivery({
    mail: config.SMTP_URL ? createMailer({ url: config.SMTP_URL, from: config.MAIL_FROM }) : null,
    sms: config.SMS_API_URL && config.SMS_API_KEY ? createSmsRuGateway({ url: config.SMS_API_URL, apiKey: config.SMS_API_KEY, from: config.SMS_FROM }) : null,
    outbox: createOutbox(config.DATA_DIR, app.log),
    log: app.log,
    jobs,
    db: db.kysely,
    secretKey: config.SECRET_KEY,
    now,
  });
  delivery.register();
  // Outbox files already promised to players are written before the process exits.
  app.addHook('onClose', async () => {
    await delivery.settle();
    delivery.close();
  });
  const limits = scaleLimits(DEFAULT_LIMITS, config.RATE_LIMIT_SCALE);
  const limiter = createRateLimiter(db.kysely, now);
  const flows = createCodeFlows({ db: db.kysely, limiter, limits, now });
  // Toll fraud: which numbers get an SMS, and the sign-up SMS budget over all processes (not scaled by
  // RATE_LIMIT_SCALE: it caps the bill, and is set in SMS directly).
  const smsRules = createSmsRules({
    limiter,
    log: app.log,
    countries: config.SMS_COUNTRIES,
    perHour: config.SMS_SIGNUP_PER_HOUR,
    perDay: config.SMS_SIGNUP_PER_DAY,
  });
  const signIn = createSignIn({ sessions, now });
  // Password, Discord and reset sign-ins ask for the second factor when TOTP is on.
  // A reset of a user with TOTP on waits for the code: the two-factor module applies it (the reset
  // service below, bound once it exists), and so does a Discord link found by email (external sign-in).
  const currentPassword = createCurrentPasswordCheck(limiter);
  let reset: ResetService | undefined;
  let externalSignIn: ExternalSignInService | undefined;
  const twoFactor = createTwoFactorService({
    db: db.kysely,
    limiter,
    issue: signIn,
    now,
    resets: { apply: (trx, userId, hash) => reset!.apply(trx, userId, hash), announce: (ended) => reset!.announce(ended) },
    links: { discord: (trx, userId, discordId) => externalSignIn!.linkDiscord(trx, userId, discordId) },
    browsers: { isKnown: sessions.isKnownBrowser, forgetOthers: (q, userId, keep) => sessions.forgetBrowsers(userId, q, keep) },
    sessionShowed: sessions.showedSecondFactor,
    turnedOff: totpTurnedOff,
    currentPassword,
    brand: config.BRAND_NAME,
  });
  const passkeys = createPasskeysService({ db: db.kysely, issue: signIn, now, brand: config.BRAND_NAME });
  /**
   * What a thief's session may have left behind that outlives the sessions: seller API keys, passkeys,
   * the Telegram chat linked for notices, the seller's webhook endpoint, a Discord account linked by the
   * email (unless Discord is the account's only way in), and the browsers remembered as the owner's (a
   * reset from one has its own minute).
   */
  const revokeLeftovers = async (userId: number, trx: Trx) => {
    const left = {
      api_keys_revoked: await apiKeys.revokeAllOf(userId, trx),
      passkeys_removed: await passkeys.removeAllOf(userId, trx),
      telegram_chat_unlinked: await unlinkTelegramChat(trx, userId),
      webhook_removed: await removeWebhookOf(trx, userId),
      discord_unlinked: (await externalSignIn!.unlinkDiscordForGood(trx, userId)) !== null,
    };
    await sessions.forgetBrowsers(userId, trx);
    return left;
  };
  const signInAsking = twoFactor.signInAsking;
  reset = createResetService({
    db: db.kysely,
    flows,
    sessions,
    signIn,
    askBeforeReset: twoFactor.askBeforeReset,
    delivery,
    smsRules,
    brand: config.BRAND_NAME,
    // A reset after account theft leaves none of the thief's ways back in (README "Rules").
    revokeLeftovers: async (userId, trx) => void (await revokeLeftovers(userId, trx)),
  });
  externalSignIn = createExternalSignInService({ db: db.kysely, config, limiter, limits, signIn, signInAsking, now });
  return {
    accounts: createAccountsService({ db: db.kysely, limiter, limits, signIn, signInAsking, now }),
    signUp: createSignUpService({ db: db.kysely, flows, limiter, limits, signIn, delivery, smsRules, publicUrl: config.PUBLIC_URL, brand: config.BRAND_NAME, now }),
    reset,
    externalSignIn,
    passwordChange: createPasswordChangeService({ db: db.kysely, currentPassword, sessions, now }),
    twoFactor,
    passkeys,
    revokeLeftovers,
  };
}
