import { createHmac, randomBytes, randomInt } from 'node:crypto';
import { CODE_MAX_TRIES, CODE_TTL_MS, RESEND_INTERVAL_MS, type AuthResponse, type User } from '@adena/contract';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely, Transaction } from 'kysely';
import type { Config } from '../../config';
import type { Database } from '../../db/schema';
import type { AuthChannel, AuthFlowPurpose } from '../../db/tables/auth';
import { AppError } from '../../lib/app-error';
import { hashPassword, verifyPassword } from '../../lib/password';
import { constantTimeEqual, hashToken, newToken } from '../../lib/tokens';
import { toUser } from '../users/user.mapper';
import { authRepository as repo, type FlowRow, type UserRow } from './auth.repository';
import { DiscordError, exchangeCode, fetchDiscordUser, pkcePair } from './discord';
import { type OutgoingMessage, type Sender, texts } from './messaging';
import { createRateLimiter, type RateRule, tooMany } from './rate-limit';
import { botIdOf, checkInitData, checkLoginWidget, type TelegramCheck, type TelegramIdentity } from './telegram';

/** Limits per IP and per account; the per-token rules (5 tries, 1 send a minute) are PRODUCT.md's. */
export const DEFAULT_LIMITS = {
  /** Failed sign-ins of one login, whoever tries (issue 3: 10 per 15 minutes). */
  loginFailuresPerAccount: { limit: 10, windowMs: 15 * 60_000 },
  loginFailuresPerIp: { limit: 50, windowMs: 15 * 60_000 },
  /** Codes sent (sign-up, reset, resend) from one IP: stops one client mailing the world. */
  sendsPerIp: { limit: 30, windowMs: 60 * 60_000 },
  /** Codes sent to one address in an hour: stops anyone mail-bombing a player. */
  sendsPerAddress: { limit: 10, windowMs: 60 * 60_000 },
  /** Wrong codes from one IP across all its flows (each flow also dies after 5). */
  codeFailuresPerIp: { limit: 30, windowMs: 15 * 60_000 },
  /**
   * Wrong codes for one address in a day, over all its flows. Without it, 10 flows an hour of 5
   * tries each would allow 1,200 guesses a day at a reset code; with it, 25.
   */
  codeFailuresPerAddress: { limit: 25, windowMs: 24 * 60 * 60_000 },
  /** Discord and Telegram sign-ins from one IP. */
  socialPerIp: { limit: 30, windowMs: 15 * 60_000 },
} satisfies Record<string, RateRule>;

const ACCESS_TOKEN_TTL_MS = 90 * 24 * 60 * 60_000;
const NEW_PASSWORD_TOKEN_TTL_MS = 15 * 60_000;
const OAUTH_STATE_TTL_MS = 10 * 60_000;
/** Resends per flow; after that the player starts over (and meets the per-address limits). */
const MAX_RESENDS = 5;

export type Method = 'email' | 'phone';
const channelOf = (m: Method): AuthChannel => (m === 'email' ? 'email' : 'sms');
const isUniqueViolation = (err: unknown) => (err as { code?: unknown } | null)?.code === '23505';

const MSG = {
  wrongCode: (left: number) => `Неверный код. Осталось попыток: ${left}`,
  codeDead: 'Слишком много неверных попыток. Запросите новый код',
  flowGone: 'Код устарел или уже использован. Запросите новый код',
  sentRecently: (s: number) => `Код уже отправлен. Новый можно запросить через ${s} с`,
  tooManyResends: 'Слишком много повторных отправок. Начните заново',
  alreadyRegistered: 'Аккаунт с этим адресом уже есть. Войдите или восстановите пароль',
  discordOff: 'Вход через Discord не настроен',
  discordState: 'Вход через Discord устарел. Попробуйте ещё раз',
  discordRefused: 'Discord не подтвердил вход. Попробуйте ещё раз',
  discordUnavailable: 'Не удалось связаться с Discord. Попробуйте позже',
  discordLinked: 'Аккаунт с этим email уже привязан к другому Discord',
  telegramOff: 'Вход через Telegram не настроен',
  telegramBad: 'Не удалось проверить данные Telegram. Попробуйте войти ещё раз',
  telegramStale: 'Данные входа Telegram устарели. Попробуйте войти ещё раз',
  newPasswordToken: 'Ссылка для смены пароля недействительна или устарела. Начните восстановление заново',
} as const;

/** Problems with a code or its flow are shown under the code field: the field the web form has on that step. */
const CODE_FIELD = 'code';

export interface AuthServiceDeps {
  db: Kysely<Database>;
  config: Config;
  sender: Sender;
  log: FastifyBaseLogger;
  clock?: () => Date;
  limits?: Partial<typeof DEFAULT_LIMITS>;
}

export interface Actor {
  ip: string;
}

/** 6 digits from the CSPRNG, leading zeros kept. */
const newCode = () => String(randomInt(0, 1_000_000)).padStart(6, '0');
/**
 * The code is stored keyed with the flow token, which the database never sees in clear: a copy
 * of the table alone does not let anyone try the million codes offline.
 */
const codeHash = (flowToken: string, code: string) => createHmac('sha256', flowToken).update(code).digest('hex');

const defaultName = (method: Method, address: string) =>
  method === 'email' ? address.split('@')[0]!.slice(0, 64) : `Игрок ${address.slice(-4)}`;

export function createAuthService(deps: AuthServiceDeps) {
  const { db, config, sender, log } = deps;
  const now = deps.clock ?? (() => new Date());
  const limits = { ...DEFAULT_LIMITS, ...deps.limits };
  const limiter = createRateLimiter(db, now);

  // Messages go out after the answer: the time an answer takes must not tell a registered
  // address (a message is sent) from an unknown one at reset (nothing is sent). Failures are
  // logged; the player can ask again after a minute.
  const inFlight = new Set<Promise<void>>();
  function deliver(message: OutgoingMessage) {
    const p: Promise<void> = sender
      .send(message)
      .catch((err: unknown) => log.error({ err, to: message.to, channel: message.channel }, 'message not delivered'))
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  }

  async function startSession(q: Kysely<Database> | Transaction<Database>, user: UserRow): Promise<AuthResponse> {
    const token = newToken();
    await repo.insertToken(q, user.id, 'access', hashToken(token), new Date(now().getTime() + ACCESS_TOKEN_TTL_MS));
    return { access_token: token, user: toUser(user, now()) };
  }

  const refuseBlocked = (user: UserRow) => {
    if (user.blocked_at) throw new AppError('USER_BLOCKED');
  };

  /** The rules every code sent obeys, for a real address and an unknown one alike. */
  async function limitSend(actor: Actor, purpose: AuthFlowPurpose, channel: AuthChannel, address: string) {
    const last = await repo.lastSentAt(db, purpose, channel, address);
    const wait = last ? last.getTime() + RESEND_INTERVAL_MS - now().getTime() : 0;
    if (wait > 0) {
      const s = Math.ceil(wait / 1000);
      throw tooMany(s, MSG.sentRecently(s));
    }
    await limiter.count(`send:ip:${actor.ip}`, limits.sendsPerIp);
    await limiter.count(`send:addr:${channel}:${address}`, limits.sendsPerAddress);
  }

  /** Opens a flow; `code` null means the flow exists only to answer like a real one. */
  async function openFlow(values: {
    purpose: AuthFlowPurpose;
    channel: AuthChannel;
    address: string;
    withCode: boolean;
    userId?: number | null;
    passwordHash?: string | null;
    name?: string | null;
  }) {
    const token = newToken();
    const code = values.withCode ? newCode() : null;
    const at = now();
    await repo.sweep(db, at);
    await repo.insertFlow(db, {
      token_hash: hashToken(token),
      purpose: values.purpose,
      channel: values.channel,
      address: values.address,
      user_id: values.userId ?? null,
      code_hash: code ? codeHash(token, code) : null,
      password_hash: values.passwordHash ?? null,
      name: values.name ?? null,
      expires_at: new Date(at.getTime() + CODE_TTL_MS),
      last_sent_at: at,
    });
    return { token, code };
  }

  /** `counted`: a wrong or dead try, which also counts against the IP. */
  type CodeOutcome<T> = { ok: true; value: T } | { ok: false; error: AppError; counted: boolean };

  /**
   * Checks a code against its flow under a row lock and, when right, runs `onRight` in the same
   * transaction. A wrong try is committed before the error is thrown, so the count survives.
   */
  async function checkCode<T>(
    actor: Actor,
    purpose: AuthFlowPurpose,
    channel: AuthChannel,
    flowToken: string,
    code: string,
    onRight: (trx: Transaction<Database>, flow: FlowRow) => Promise<T>,
  ): Promise<T> {
    await limiter.check(`code:ip:${actor.ip}`, limits.codeFailuresPerIp);
    const address = await repo.flowAddress(db, hashToken(flowToken), purpose, channel);
    const addressKey = address ? `code:addr:${channel}:${address}` : null;
    if (addressKey) await limiter.check(addressKey, limits.codeFailuresPerAddress);
    const outcome = await db.transaction().execute(async (trx): Promise<CodeOutcome<T>> => {
      const flow = await repo.lockFlow(trx, hashToken(flowToken), purpose, channel);
      const at = now();
      if (!flow || flow.consumed_at || flow.expires_at <= at) {
        const error = new AppError('VALIDATION', { message: MSG.flowGone, errors: { [CODE_FIELD]: [MSG.flowGone] } });
        return { ok: false, error, counted: false };
      }
      if (flow.tries >= CODE_MAX_TRIES) return { ok: false, error: deadFlow(flow, at), counted: true };
      // A flow with no code compares against a random value, so it costs the same and never matches.
      const expected = flow.code_hash ?? randomBytes(32).toString('hex');
      if (!constantTimeEqual(codeHash(flowToken, code), expected) || !flow.code_hash) {
        const tries = flow.tries + 1;
        await repo.updateFlow(trx, flow.id, { tries });
        if (tries >= CODE_MAX_TRIES) return { ok: false, error: deadFlow(flow, at), counted: true };
        const message = MSG.wrongCode(CODE_MAX_TRIES - tries);
        return { ok: false, error: new AppError('VALIDATION', { message, errors: { [CODE_FIELD]: [message] } }), counted: true };
      }
      await repo.updateFlow(trx, flow.id, { consumed_at: at });
      return { ok: true, value: await onRight(trx, flow) };
    });
    if (outcome.ok) return outcome.value;
    if (outcome.counted) {
      await limiter.record(`code:ip:${actor.ip}`, limits.codeFailuresPerIp);
      if (addressKey) await limiter.record(addressKey, limits.codeFailuresPerAddress);
    }
    throw outcome.error;
  }

  /** A flow with 5 wrong tries is dead; a new one may be asked for once the minute has passed. */
  function deadFlow(flow: FlowRow, at: Date) {
    const wait = Math.max(1, Math.ceil((flow.last_sent_at.getTime() + RESEND_INTERVAL_MS - at.getTime()) / 1000));
    return new AppError('TOO_MANY_ATTEMPTS', { message: MSG.codeDead, errors: { [CODE_FIELD]: [MSG.codeDead] }, retryAfter: wait });
  }

  /** A unique-key race lost to a parallel request: a 409 with this message, never a 500. */
  async function withConflictAs<T>(message: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (isUniqueViolation(err)) throw new AppError('CONFLICT', { message });
      throw err;
    }
  }

  const findByAddress = (q: Kysely<Database> | Transaction<Database>, method: Method, address: string) =>
    repo.findUserBy(q, method === 'email' ? 'email' : 'phone', address);

  async function telegramSignIn(actor: Actor, check: (botToken: string) => TelegramCheck) {
    const botToken = config.TELEGRAM_BOT_TOKEN;
    if (!botToken) throw new AppError('NOT_FOUND', { message: MSG.telegramOff });
    await limiter.count(`social:ip:${actor.ip}`, limits.socialPerIp);
    const result = check(botToken);
    if (!result.ok) {
      throw new AppError('UNAUTHENTICATED', { message: result.reason === 'stale' ? MSG.telegramStale : MSG.telegramBad, details: result.reason });
    }
    return db.transaction().execute(async (trx) => {
      const user = await findOrCreateTelegramUser(trx, result.identity);
      refuseBlocked(user);
      return startSession(trx, user);
    });
  }

  async function findOrCreateTelegramUser(trx: Transaction<Database>, id: TelegramIdentity) {
    const telegramId = BigInt(id.id);
    const existing = await repo.findUserByTelegramId(trx, telegramId);
    if (existing) return existing;
    const name = [id.firstName, id.lastName].filter(Boolean).join(' ').trim() || id.username || `Игрок ${id.id.slice(-4)}`;
    // Two first sign-ins at once: the loser of the insert reads the winner's row.
    const created = await repo.insertTelegramUser(trx, { telegram_id: telegramId, name: name.slice(0, 64) });
    return created ?? (await repo.findUserByTelegramId(trx, telegramId))!;
  }

  return {
    /** Sign-up, step 1: a code to a new address; to a registered one, a "you have an account" note. Same answer. */
    async startRegistration(actor: Actor, method: Method, input: { address: string; password: string; name?: string }) {
      const channel = channelOf(method);
      await limitSend(actor, 'register', channel, input.address);
      // Hashed for both kinds of address, so neither answers faster.
      const passwordHash = await hashPassword(input.password);
      const existing = await findByAddress(db, method, input.address);
      const { token, code } = await openFlow({
        purpose: 'register',
        channel,
        address: input.address,
        withCode: !existing,
        passwordHash: existing ? null : passwordHash,
        name: input.name ?? null,
      });
      deliver(code ? texts.registerCode(channel, input.address, code) : texts.alreadyRegistered(channel, input.address, config.PUBLIC_URL));
      return token;
    },

    /** Sign-up resend: a new token and a new code; the old token stops working. */
    async resendRegistration(actor: Actor, method: Method, flowToken: string) {
      const channel = channelOf(method);
      const sendIpKey = `send:ip:${actor.ip}`;
      const address = await repo.flowAddress(db, hashToken(flowToken), 'register', channel);
      const sendAddrKey = `send:addr:${channel}:${address}`;
      // Limits are looked at first and counted after: a refusal must come before the token
      // rotates, or the player would be left holding a token that no longer exists.
      await limiter.check(sendIpKey, limits.sendsPerIp);
      if (address) await limiter.check(sendAddrKey, limits.sendsPerAddress);
      const gone = () => new AppError('VALIDATION', { message: MSG.flowGone, errors: { _: [MSG.flowGone] } });
      // Checked and rotated under the row lock: of two resends at once, the second sees the first's time.
      const result = await db.transaction().execute(async (trx) => {
        const flow = await repo.lockFlow(trx, hashToken(flowToken), 'register', channel);
        const at = now();
        if (!flow || flow.consumed_at || flow.expires_at <= at) return { error: gone() };
        if (flow.tries >= CODE_MAX_TRIES) return { error: deadFlow(flow, at) };
        const wait = flow.last_sent_at.getTime() + RESEND_INTERVAL_MS - at.getTime();
        if (wait > 0) {
          const s = Math.ceil(wait / 1000);
          return { error: tooMany(s, MSG.sentRecently(s)) };
        }
        if (flow.resends >= MAX_RESENDS) return { error: tooMany(RESEND_INTERVAL_MS / 1000, MSG.tooManyResends) };
        const token = newToken();
        const code = flow.code_hash ? newCode() : null;
        await repo.updateFlow(trx, flow.id, {
          token_hash: hashToken(token),
          code_hash: code ? codeHash(token, code) : null,
          tries: 0,
          resends: flow.resends + 1,
          expires_at: new Date(at.getTime() + CODE_TTL_MS),
          last_sent_at: at,
        });
        return { token, code, address: flow.address };
      });
      if ('error' in result) throw result.error;
      await limiter.record(sendIpKey, limits.sendsPerIp);
      await limiter.record(sendAddrKey, limits.sendsPerAddress);
      const { token, code } = result;
      deliver(code ? texts.registerCode(channel, result.address, code) : texts.alreadyRegistered(channel, result.address, config.PUBLIC_URL));
      return token;
    },

    /** Sign-up, step 2: the right code creates the account and signs it in. */
    async verifyRegistration(actor: Actor, method: Method, flowToken: string, code: string) {
      return withConflictAs(MSG.alreadyRegistered, () => checkCode(actor, 'register', channelOf(method), flowToken, code, async (trx, flow) => {
        // Someone finished a sign-up of the same address first.
        if (await findByAddress(trx, method, flow.address)) throw new AppError('CONFLICT', { message: MSG.alreadyRegistered });
        const user = await repo.insertUser(trx, {
          [method === 'email' ? 'email' : 'phone']: flow.address,
          password_hash: flow.password_hash,
          name: flow.name ?? defaultName(method, flow.address),
        });
        return startSession(trx, user);
      }));
    },

    /** Email or phone and password. Unknown login and wrong password answer alike, in the same time. */
    async login(actor: Actor, method: Method, address: string, password: string) {
      const accountKey = `login:acct:${method}:${address}`;
      const ipKey = `login:ip:${actor.ip}`;
      await limiter.check(ipKey, limits.loginFailuresPerIp);
      // Counted before the password is checked and cleared on success, so a burst of parallel
      // guesses at one account is cut off at the limit rather than after all of them ran.
      await limiter.count(accountKey, limits.loginFailuresPerAccount);
      const user = await findByAddress(db, method, address);
      if (!(await verifyPassword(user?.password_hash ?? null, password)) || !user) {
        await limiter.record(ipKey, limits.loginFailuresPerIp);
        throw new AppError('INVALID_CREDENTIALS');
      }
      // Only someone who knows the password learns that the account is blocked.
      refuseBlocked(user);
      await limiter.clear(accountKey);
      return startSession(db, user);
    },

    /** Reset, step 1: a code to a registered address; nothing to an unknown one. Same answer. */
    async startReset(actor: Actor, method: Method, address: string) {
      const channel = channelOf(method);
      await limitSend(actor, 'reset', channel, address);
      const user = await findByAddress(db, method, address);
      const { token, code } = await openFlow({ purpose: 'reset', channel, address, withCode: Boolean(user), userId: user?.id ?? null });
      if (code) deliver(texts.resetCode(channel, address, code));
      return token;
    },

    /** Reset, step 2: the right code gives a short-lived new_password_token. */
    async checkResetCode(actor: Actor, method: Method, flowToken: string, code: string) {
      return checkCode(actor, 'reset', channelOf(method), flowToken, code, async (trx, flow) => {
        const token = newToken();
        await repo.insertToken(trx, flow.user_id!, 'new_password', hashToken(token), new Date(now().getTime() + NEW_PASSWORD_TOKEN_TTL_MS));
        return token;
      });
    },

    /** Reset, step 3 (bearer = new_password_token): new password, every other session ended, a new one started. */
    async createNewPassword(bearer: string | undefined, password: string) {
      if (!bearer) throw new AppError('UNAUTHENTICATED', { message: MSG.newPasswordToken });
      // A cheap look first, so a made-up bearer cannot make us spend an argon2id hash.
      if (!(await repo.findLiveToken(db, hashToken(bearer), 'new_password', now()))) {
        throw new AppError('UNAUTHENTICATED', { message: MSG.newPasswordToken });
      }
      const passwordHash = await hashPassword(password);
      return db.transaction().execute(async (trx) => {
        const taken = await repo.takeToken(trx, hashToken(bearer), 'new_password', now());
        if (!taken) throw new AppError('UNAUTHENTICATED', { message: MSG.newPasswordToken });
        const before = (await repo.findUserById(trx, taken.user_id))!;
        refuseBlocked(before);
        const user = await repo.updateUser(trx, before.id, { password_hash: passwordHash });
        await repo.deleteAllTokens(trx, user.id);
        return startSession(trx, user);
      });
    },

    async logout(bearer: string | undefined) {
      const res = bearer ? await repo.deleteToken(db, hashToken(bearer), 'access') : undefined;
      if (!res || res.numDeletedRows === 0n) throw new AppError('UNAUTHENTICATED');
    },

    /** Public: which social sign-ins exist. Each answer carries a fresh Discord state and PKCE challenge. */
    async authConfig(origin: string) {
      let discord: { client_id: string; authorize_url: string } | null = null;
      if (config.DISCORD_CLIENT_ID && config.DISCORD_CLIENT_SECRET) {
        const state = newToken();
        const { verifier, challenge } = pkcePair();
        const redirectUri = `${(config.PUBLIC_URL ?? origin).replace(/\/$/, '')}/auth/discord/callback`;
        const at = now();
        await repo.deleteExpiredOauthStates(db, at);
        await repo.insertOauthState(db, {
          state_hash: hashToken(state),
          code_verifier: verifier,
          redirect_uri: redirectUri,
          expires_at: new Date(at.getTime() + OAUTH_STATE_TTL_MS),
        });
        const url = new URL(config.DISCORD_AUTHORIZE_URL);
        url.search = new URLSearchParams({
          response_type: 'code',
          client_id: config.DISCORD_CLIENT_ID,
          scope: 'identify email',
          redirect_uri: redirectUri,
          state,
          code_challenge: challenge,
          code_challenge_method: 'S256',
          prompt: 'none',
        }).toString();
        discord = { client_id: config.DISCORD_CLIENT_ID, authorize_url: url.toString() };
      }
      const botId = config.TELEGRAM_BOT_TOKEN ? botIdOf(config.TELEGRAM_BOT_TOKEN) : null;
      const telegram =
        config.TELEGRAM_BOT_USERNAME && botId !== null ? { bot_username: config.TELEGRAM_BOT_USERNAME, bot_id: botId } : null;
      return { discord, telegram };
    },

    /**
     * Discord's authorization code, with the state we issued: the PKCE verifier stored with it
     * completes the exchange. Links by verified email only, so a Discord account with an
     * unverified address cannot take over the account that owns it.
     */
    async discordSignIn(actor: Actor, input: { code: string; state: string; redirect_uri: string }) {
      const { DISCORD_CLIENT_ID: clientId, DISCORD_CLIENT_SECRET: clientSecret } = config;
      if (!clientId || !clientSecret) throw new AppError('NOT_FOUND', { message: MSG.discordOff });
      await limiter.count(`social:ip:${actor.ip}`, limits.socialPerIp);
      const stateRow = await repo.takeOauthState(db, hashToken(input.state), now());
      if (!stateRow || stateRow.redirect_uri !== input.redirect_uri) {
        throw new AppError('VALIDATION', { message: MSG.discordState, errors: { state: [MSG.discordState] } });
      }
      let profile: Awaited<ReturnType<typeof fetchDiscordUser>>;
      try {
        const accessToken = await exchangeCode({
          apiUrl: config.DISCORD_API_URL,
          clientId,
          clientSecret,
          code: input.code,
          redirectUri: stateRow.redirect_uri,
          codeVerifier: stateRow.code_verifier,
        });
        profile = await fetchDiscordUser(config.DISCORD_API_URL, accessToken);
      } catch (err) {
        if (!(err instanceof DiscordError)) throw err;
        throw new AppError('UNAUTHENTICATED', {
          message: err.kind === 'refused' ? MSG.discordRefused : MSG.discordUnavailable,
          details: err.message,
        });
      }
      const verifiedEmail = profile.email && profile.verified ? profile.email.trim().toLowerCase() : null;
      // A parallel first sign-in of the same Discord account loses the insert: try once more and find it.
      const signIn = () => db.transaction().execute(async (trx) => {
        let user = await repo.findUserBy(trx, 'discord_id', profile.id);
        if (!user && verifiedEmail) {
          const byEmail = await repo.findUserBy(trx, 'email', verifiedEmail);
          if (byEmail?.discord_id) throw new AppError('CONFLICT', { message: MSG.discordLinked });
          if (byEmail) user = await repo.updateUser(trx, byEmail.id, { discord_id: profile.id });
        }
        user ??= await repo.insertUser(trx, {
          discord_id: profile.id,
          email: verifiedEmail,
          name: (profile.global_name || profile.username || `Игрок ${profile.id.slice(-4)}`).slice(0, 64),
        });
        refuseBlocked(user);
        return startSession(trx, user);
      });
      try {
        return await signIn();
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
        return withConflictAs(MSG.alreadyRegistered, signIn);
      }
    },

    telegramWidgetSignIn: (actor: Actor, fields: Record<string, unknown>) =>
      telegramSignIn(actor, (botToken) => checkLoginWidget(fields, botToken, now())),

    webAppSignIn: (actor: Actor, initData: string) => telegramSignIn(actor, (botToken) => checkInitData(initData, botToken, now())),

    toUser: (user: UserRow): User => toUser(user, now()),

    /** Waits for messages still being handed to SMTP, the SMS gateway or the outbox. */
    settle: () => Promise.all([...inFlight]).then(() => undefined),
  };
}

export type AuthService = ReturnType<typeof createAuthService>;
