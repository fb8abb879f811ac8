import type { Config } from '../../config';
import { AppError } from '../../lib/app-error';
import { hashToken, newToken } from '../../lib/tokens';
import type { Client } from '../sessions/caller';
import { accountsRepository as repo, inTransaction, type Pool, type Tx } from './accounts.repository';
import { DiscordError, type DiscordUser, exchangeCode, fetchDiscordUser, pkcePair } from './discord';
import type { RateLimiter } from '../sessions/rate-limit.service';
import type { Limits } from './limits';
import { ALREADY_REGISTERED, isUniqueViolation, refuseBlocked, type SignIn, type SignInAsking, withConflictAs } from './sign-in';
import { botIdOf, checkInitData, checkLoginWidget, type TelegramCheck, type TelegramIdentity } from './telegram-check';
import { addressKey } from '../../lib/address-key';

/** A name from Discord or Telegram without control and format characters (a NUL would not even store). */
const printable = (name: string) => name.replace(/[\p{Cc}\p{Cf}]/gu, '').trim();
/** The first `max` characters (code points: an emoji is not cut in half into a stray surrogate, stored as «�»). */
const cut = (name: string, max: number) => Array.from(name).slice(0, max).join('');

const OAUTH_STATE_TTL_MS = 10 * 60_000;

const MSG = {
  discordOff: 'Вход через Discord не настроен',
  discordState: 'Вход через Discord устарел. Попробуйте ещё раз',
  discordRefused: 'Discord не подтвердил вход. Попробуйте ещё раз',
  discordUnavailable: 'Не удалось связаться с Discord. Попробуйте позже',
  discordLinked: 'Аккаунт с этой почтой уже привязан к другому аккаунту Discord',
  discordRefusedLink: 'Этот Discord отвязан от аккаунта при восстановлении доступа. Войдите по почте или телефону',
  discordEmailLinksClosed: 'После восстановления доступа Discord к этому аккаунту по почте не привязывается. Войдите по почте или телефону',
  telegramOff: 'Вход через Telegram не настроен',
  telegramBad: 'Не удалось проверить данные Telegram. Попробуйте войти ещё раз',
  telegramStale: 'Данные входа Telegram устарели. Попробуйте войти ещё раз',
  telegramUsed: 'Эти данные входа Telegram уже использованы. Попробуйте войти ещё раз',
} as const;

export type ExternalSignInConfig = Pick<
  Config,
  | 'PUBLIC_URL'
  | 'DISCORD_CLIENT_ID'
  | 'DISCORD_CLIENT_SECRET'
  | 'DISCORD_API_URL'
  | 'DISCORD_AUTHORIZE_URL'
  | 'TELEGRAM_BOT_TOKEN'
  | 'TELEGRAM_BOT_USERNAME'
  | 'TELEGRAM_AUTH_MAX_AGE_S'
>;

export interface ExternalSignInDeps {
  db: Pool;
  config: ExternalSignInConfig;
  limiter: RateLimiter;
  limits: Limits;
  signIn: SignIn;
  /** Discord sign-ins ask for the second factor; Telegram's do not (Telegram holds the account). */
  signInAsking?: SignInAsking;
  now: () => Date;
}

/** Sign-in through Discord (OAuth with PKCE) and Telegram (Login Widget, mini app). */
// Long: a factory holding 9 small functions; each is short.
export function createExternalSignInService(deps: ExternalSignInDeps) {
  const { db, config, limiter, limits, signIn, now } = deps;

  /**
   * A social sign-in that failed on the caller's side (Telegram data unsigned, stale or used; a Discord state
   * not ours or not this browser's, or a code Discord refused) counts against the address: 429 once its
   * failures are used up. Counted after the check, never before: a sign-in Telegram signed, or one whose
   * state we gave this browser and whose code Discord takes, is never refused for someone else's junk.
   */
  const failedFrom = (client: Client) => limiter.count(`social:ip:${addressKey(client.ip)}`, limits.socialPerIp);

  /** A fresh state and PKCE challenge, stored hashed with the verifier; the authorize URL that carries them. */
  async function discordLink(clientId: string, origin: string, browserKey: string) {
    const state = newToken();
    const { verifier, challenge } = pkcePair();
    const redirectUri = `${(config.PUBLIC_URL ?? origin).replace(/\/$/, '')}/auth/discord/callback`;
    const at = now();
    await repo.deleteExpiredOauthStates(db, at);
    await repo.insertOauthState(db, {
      state_hash: hashToken(state),
      code_verifier: verifier,
      redirect_uri: redirectUri,
      browser_hash: hashToken(browserKey),
      expires_at: new Date(at.getTime() + OAUTH_STATE_TTL_MS),
    });
    const url = new URL(config.DISCORD_AUTHORIZE_URL);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      scope: 'identify email',
      redirect_uri: redirectUri,
      state,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      prompt: 'none',
    }).toString();
    return { client_id: clientId, authorize_url: url.toString() };
  }

  /**
   * Discord's profile for an authorization code, exchanged with the verifier stored beside the state. The
   * state is checked first, in the database: junk without one we gave this browser never reaches Discord.
   */
  async function discordProfile(
    app: { id: string; secret: string },
    client: Client,
    input: { code: string; state: string; redirect_uri: string },
    browserKey: string | undefined,
  ) {
    // A state issued to another browser (an attacker's link carrying their own sign-in) is refused.
    const stateRow = browserKey ? await repo.takeOauthState(db, hashToken(input.state), hashToken(browserKey), now()) : undefined;
    if (!stateRow || stateRow.redirect_uri !== input.redirect_uri) {
      await failedFrom(client);
      throw new AppError('VALIDATION', { message: MSG.discordState, errors: { state: [MSG.discordState] } });
    }
    const asAppError = (err: unknown) => {
      if (!(err instanceof DiscordError)) return err;
      return new AppError('UNAUTHENTICATED', { message: err.kind === 'refused' ? MSG.discordRefused : MSG.discordUnavailable, details: err.message });
    };
    let accessToken: string;
    try {
      accessToken = await exchangeCode({
        apiUrl: config.DISCORD_API_URL,
        clientId: app.id,
        clientSecret: app.secret,
        code: input.code,
        redirectUri: stateRow.redirect_uri,
        codeVerifier: stateRow.code_verifier,
      });
    } catch (err) {
      // A code Discord refused is the caller's failure; Discord out of reach is nobody's.
      if (err instanceof DiscordError && err.kind === 'refused') await failedFrom(client);
      throw asAppError(err);
    }
    try {
      return await fetchDiscordUser(config.DISCORD_API_URL, accessToken);
    } catch (err) {
      throw asAppError(err);
    }
  }

  /**
   * The account of a Discord profile: by Discord id, else by verified email (`link`: the Discord id
   * is to be linked to it), else a new one.
   */
  async function findOrCreateDiscordUser(trx: Tx, profile: DiscordUser) {
    const verifiedEmail = profile.email && profile.verified ? profile.email.trim().toLowerCase() : null;
    const byDiscord = await repo.findUserBy(trx, 'discord_id', profile.id);
    if (byDiscord) return { user: byDiscord, link: false };
    if (verifiedEmail) {
      // Locked: a password reset (or TOTP turned on) committing meanwhile is waited for and its row is the one
      // checked below and signed in with. Read unlocked, the checks saw the row before a recovery closed links by
      // address, and the link then went through on the recovered account (a thief's Discord, right after it).
      const byEmail = await repo.lockUserByEmail(trx, verifiedEmail);
      if (byEmail?.discord_id) throw new AppError('CONFLICT', { message: MSG.discordLinked });
      if (byEmail && (await repo.discordRefused(trx, byEmail.id, profile.id))) throw new AppError('CONFLICT', { message: MSG.discordRefusedLink });
      // After a recovery no Discord account is linked by the address: one the thief verified it on, never linked
      // yet, would be linked now.
      if (byEmail?.discord_email_links_closed_at) throw new AppError('CONFLICT', { message: MSG.discordEmailLinksClosed });
      if (byEmail) return { user: byEmail, link: true };
    }
    const created = await repo.insertUser(trx, {
      discord_id: profile.id,
      email: verifiedEmail,
      name: cut(printable(profile.global_name || profile.username || ''), 64) || `Игрок ${profile.id.slice(-4)}`,
    });
    return { user: created, link: false };
  }

  async function telegramSignIn(client: Client, method: 'telegram' | 'telegram_app', check: (botToken: string) => TelegramCheck) {
    const botToken = config.TELEGRAM_BOT_TOKEN;
    if (!botToken) throw new AppError('NOT_FOUND', { message: MSG.telegramOff });
    // The signature first (one HMAC): only failures count against the address, so junk from it cannot
    // refuse a login Telegram signed. Valid ones are not counted at all: only Telegram can make them, each
    // signs in once, and a carrier address has many players behind it.
    const result = check(botToken);
    if (!result.ok) {
      await failedFrom(client);
      throw new AppError('UNAUTHENTICATED', { message: result.reason === 'stale' ? MSG.telegramStale : MSG.telegramBad, details: result.reason });
    }
    const signedIn = await inTransaction(db, async (trx) => {
      // Each signed login result signs in once: a copied link or launch data cannot be replayed.
      const at = now();
      const usedUntil = new Date((result.identity.authDate + config.TELEGRAM_AUTH_MAX_AGE_S + 300) * 1000);
      if (!(await repo.claimTelegramSignIn(trx, result.hash, usedUntil, at))) return null;
      const user = await findOrCreateTelegramUser(trx, result.identity);
      refuseBlocked(user);
      return signIn(trx, user, { method, client });
    });
    if (!signedIn) {
      await failedFrom(client);
      throw new AppError('UNAUTHENTICATED', { message: MSG.telegramUsed, details: 'replayed' });
    }
    return signedIn;
  }

  async function findOrCreateTelegramUser(trx: Tx, id: TelegramIdentity) {
    const telegramId = BigInt(id.id);
    const existing = await repo.findUserByTelegramId(trx, telegramId);
    if (existing) return existing;
    const name = printable([id.firstName, id.lastName].filter(Boolean).join(' ')) || printable(id.username ?? '') || `Игрок ${id.id.slice(-4)}`;
    // Two first sign-ins at once: the loser of the insert reads the winner's row.
    const created = await repo.insertTelegramUser(trx, { telegram_id: telegramId, name: cut(name, 64) });
    return created ?? (await repo.findUserByTelegramId(trx, telegramId))!;
  }

  return {
    /** Public: which social sign-ins exist. Each answer carries a fresh Discord state and PKCE challenge. */
    async authConfig(origin: string, browserKey: string) {
      const discord =
        config.DISCORD_CLIENT_ID && config.DISCORD_CLIENT_SECRET ? await discordLink(config.DISCORD_CLIENT_ID, origin, browserKey) : null;
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
    async discordSignIn(client: Client, input: { code: string; state: string; redirect_uri: string }, browserKey: string | undefined) {
      const { DISCORD_CLIENT_ID: id, DISCORD_CLIENT_SECRET: secret } = config;
      if (!id || !secret) throw new AppError('NOT_FOUND', { message: MSG.discordOff });
      const profile = await discordProfile({ id, secret }, client, input, browserKey);
      const origin = { method: 'discord' as const, client };
      const attempt = () =>
        inTransaction(db, async (trx) => {
          const { user, link } = await findOrCreateDiscordUser(trx, profile);
          refuseBlocked(user);
          if (!link) return (deps.signInAsking ?? signIn)(trx, user, origin);
          // A user with TOTP on: the link waits for the code, so a Discord account with the same
          // verified email but without the code leaves nothing on the account.
          if (user.totp_secret && deps.signInAsking) return deps.signInAsking(trx, user, origin, { linkDiscordId: profile.id });
          return (deps.signInAsking ?? signIn)(trx, await repo.updateUser(trx, user.id, { discord_id: profile.id, discord_linked_by_email: true }), origin);
        });
      // A parallel first sign-in of the same Discord account loses the insert: try once more and find it.
      try {
        return await attempt();
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
        return withConflictAs(ALREADY_REGISTERED, attempt);
      }
    },

    /** A recovery's part: the Discord id of an account with another way in is unlinked and not linked again by email. */
    unlinkDiscordForGood: (trx: Tx, userId: number) => repo.unlinkDiscordForGood(trx, userId),

    /** A Discord link that waited for the second factor (two-factor module's verify, in its transaction). */
    linkDiscord: (trx: Tx, userId: number, discordId: string) => repo.linkDiscord(trx, userId, discordId),

    telegramWidgetSignIn: (client: Client, fields: Record<string, unknown>) =>
      telegramSignIn(client, 'telegram', (botToken) => checkLoginWidget(fields, botToken, now(), config.TELEGRAM_AUTH_MAX_AGE_S)),

    webAppSignIn: (client: Client, initData: string) =>
      telegramSignIn(client, 'telegram_app', (botToken) => checkInitData(initData, botToken, now(), config.TELEGRAM_AUTH_MAX_AGE_S)),
  };
}

export type ExternalSignInService = ReturnType<typeof createExternalSignInService>;
