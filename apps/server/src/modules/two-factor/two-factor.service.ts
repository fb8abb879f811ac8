// Long file: one factory (createTwoFactorService) whose functions share the buckets of wrong codes and the rule that
// a code is used once; above it only its own constants and types.
import { createHash } from 'node:crypto';
import { type AuthResponse, type SignInResponse, TWO_FACTOR_MESSAGES as T } from '@adena/contract';
import type { DbHandle, Trx } from '../../db/schema';
import { AppError, fieldError } from '../../lib/app-error';
import { type IdempotencyKey, keyAnswered } from '../../lib/idempotency';
import { hashToken, newToken } from '../../lib/tokens';
import type { Caller, Client, SessionCaller, User } from '../sessions/caller';
import { requireLiveSession, sessionStillLive } from '../sessions/live-session';
import { SIGN_IN_OVERTAKEN, type SessionOrigin } from '../sessions/sessions.service';
import type { RateLimiter, RateRule } from '../sessions/rate-limit.service';
import { newRecoveryCode, newTotpSecret, otpauthUrl, totpStep } from './totp';
import { twoFactorRepository as repo } from './two-factor.repository';

/** PRODUCT.md section 7: a pending sign-in lives 10 minutes and takes 5 wrong codes. */
const CHALLENGE_TTL_MS = 10 * 60_000;
const CHALLENGE_TRIES = 5;
const RECOVERY_CODES = 10;
/** Wrong codes of one user over every way of entering one (enable, disable, sign-ins, step-up). */
export const CODE_FAILURES_PER_USER: RateRule = { limit: 10, windowMs: 15 * 60_000 };
/** A read that shows gift codes (GET /my_codes) accepts a session that stepped up this recently. */
export const STEP_UP_READ_MS = 10 * 60_000;
/**
 * An account without a password turns TOTP on, adds a passkey, creates an API key or sets its webhook
 * only from a session signed in this recently.
 */
export const FRESH_SIGN_IN_MS = 15 * 60_000;
/** Uses up the caller's checked second-factor code in the transaction it is given (requireStepUpIn). */
export type UseUpCode = (trx: Trx) => Promise<void>;

/**
 * First in the transaction of a purchase paid from the wallet (a code, a batch): uses up the second-factor code
 * (`useUp` holds the user's row, then checks the session), or without one holds the row (shared) and checks the
 * session. A block, a logout or a TOTP rescue that the call waited for on that row ends it with 401: no bearer code is
 * bought on a session ended meanwhile (a withdrawal's statement checks its bearer itself).
 */
export const useUpOrCheckSession = (trx: Trx, caller: Caller, useUp?: UseUpCode) => (useUp ? useUp(trx) : requireLiveSession(trx, caller));

/** What requireLastingAccessAddition guards, and what its fresh sign-in refusal tells the user to do. */
export type LastingAccess = 'passkey' | 'apiKey' | 'webhook';
const FRESH_SIGN_IN_MESSAGE: Record<LastingAccess, string> = {
  passkey: T.freshSignInPasskey,
  apiKey: T.freshSignInApiKey,
  webhook: T.freshSignInWebhook,
};

export interface TwoFactorDeps {
  db: DbHandle;
  /** After a user's own TOTP was turned off (committed): an operator without it hears the operators no more. */
  turnedOff?: (userId: number) => void;
  limiter: RateLimiter;
  /** Starts a session for a user: the accounts module's sign-in. */
  issue: (q: Trx | DbHandle, user: User, origin: SessionOrigin) => Promise<AuthResponse>;
  now: () => Date;
  /**
   * A password reset that waited for the second factor (`askBeforeReset`): applied in the
   * transaction of the good code (the accounts module's reset: new password, sessions ended,
   * leftovers revoked; the ended sessions' ids), and its sessions' sockets told after COMMIT.
   */
  resets: { apply(trx: Trx, userId: number, passwordHash: string): Promise<number[]>; announce(ended: number[]): void };
  /** The accounts module's check of the signed-in user's current password (422, 429 after 5 wrong). */
  currentPassword: { check(user: User, password: string | undefined, opts?: { optional?: boolean }): Promise<void> };
  /** A Discord id that waited for the second factor (`signInAsking`'s `linkDiscordId`): linked in the good code's transaction. */
  links: { discord(trx: Trx, userId: number, discordId: string): Promise<void> };
  /** Whether the user signed in from this browser before (sessions module): its wrong codes have a bucket of their own. */
  browsers: {
    isKnown(userId: number, browserHash: string): Promise<boolean>;
    /** Forgets the user's remembered browsers but `keep` (TOTP turned on: the others signed in without it). */
    forgetOthers(q: Trx, userId: number, keep: string | null): Promise<void>;
  };
  /** BRAND_NAME: the issuer an authenticator app shows above the account. */
  brand: string;
  /** Whether a session has shown the second factor (sessions module). */
  sessionShowed: (userId: number, sessionId: number) => Promise<boolean>;
}

const isTotp = (code: string) => /^\d{6}$/.test(code);
const recoveryHash = (userId: number, code: string) =>
  createHash('sha256').update(`${userId}:${code.replace(/[\s-]/g, '').toLowerCase()}`).digest('hex');
const labelOf = (u: User) => u.email ?? u.phone ?? u.name ?? `#${u.id}`;

const stepUpRefused = (message: string = T.required) => new AppError('FORBIDDEN', { message, body: { two_factor_required: true } });

/**
 * TOTP (RFC 6238) and recovery codes: setup, enable, disable, the sign-in's second step and the
 * step-up of money going out. A code is accepted once: its time step must be later than the
 * last one accepted, taken by one conditional UPDATE, so parallel uses of one code let one through.
 */
// Long: only as the sum of its functions, each short, which share the buckets and the one-use rule.
export function createTwoFactorService({ db, limiter, issue, now, resets, links, currentPassword, browsers, sessionShowed, brand, turnedOff }: TwoFactorDeps) {
  /**
   * The bucket of a user's wrong codes. A browser the user signed in from (with the code, for a TOTP
   * user) has one of its own: someone holding the password or a stolen token spends the shared one
   * and locks out no sign-in, reset or step-up of the owner's own browsers.
   */
  async function codeKey(userId: number, client: Client | undefined) {
    const shared = `2fa:user:${userId}`;
    return client?.browser && (await browsers.isKnown(userId, client.browser)) ? `${shared}:browser:${client.browser}` : shared;
  }

  /**
   * Checks and uses up a TOTP or recovery code of a user with TOTP on; false when it is wrong or used.
   * In `q`'s transaction when given: rolled back with it, the code is not spent.
   */
  async function useCode(q: Trx | DbHandle, userId: number, secret: string, code: string): Promise<boolean> {
    const at = now();
    if (isTotp(code)) {
      const step = totpStep(secret, code, at);
      return step !== null && repo.takeStep(q, userId, step);
    }
    return repo.takeRecoveryCode(q, userId, recoveryHash(userId, code), at);
  }

  /**
   * One use of a code, in one transaction under the user's row, as every use of a code: the session checked first (a
   * block, a logout or a TOTP rescue the call waited for has ended it: 401, the code not counted), the code checked
   * against the secret the row holds now and used up (`wrong`, counted against the per-user limit, when it is not
   * good), then `apply` in the same transaction. With TOTP turned off meanwhile: 409, as the code it was sent with
   * can no longer be checked (a step-up that let the call through then skipped the current password the call would
   * now be asked for: review 2026-11-29). Two such calls take turns; a code works once.
   */
  async function spendCode(caller: Caller, code: string, use: { wrong: () => AppError; apply: (trx: Trx) => Promise<void> }) {
    const userId = caller.user.id;
    const tries = await limiter.take([[await codeKey(userId, caller), CODE_FAILURES_PER_USER]]);
    let wrong = false;
    try {
      await repo.transaction(db, async (trx) => {
        await repo.holdUser(trx, userId);
        if (!(await sessionStillLive(trx, caller))) throw new AppError('UNAUTHENTICATED');
        const secret = (await repo.totpState(trx, userId))?.totp_secret;
        if (!secret) throw new AppError('CONFLICT', { message: T.notOn });
        if (!(await useCode(trx, userId, secret, code))) {
          wrong = true;
          throw use.wrong();
        }
        await use.apply(trx);
      });
    } catch (err) {
      if (!wrong) await tries.giveBack();
      throw err;
    }
    await tries.giveBack().catch(() => {});
  }

  /** A change a code from the app (or a recovery code) allows (spendCode): 422 for a wrong code. */
  const underCode = (caller: Caller, code: string, change: (trx: Trx) => Promise<void>) =>
    spendCode(caller, code, { wrong: () => fieldError('code', T.wrongCode), apply: change });

  /**
   * Why a session has no setup to finish: it ended (a logout, a block, a reset while the call waited took the setup
   * with the session: 401, as any call of an ended session) or it never started one, or another setup replaced it (409).
   */
  async function noSetupOrEnded(q: Trx | DbHandle, caller: Caller) {
    return (await sessionStillLive(q, caller)) ? new AppError('CONFLICT', { message: T.noSetup }) : new AppError('UNAUTHENTICATED');
  }

  /** The X-Two-Factor-Code header as a code to check: 403 when it is absent or not shaped like one. */
  function headerCode(header: string | string[] | undefined) {
    const code = typeof header === 'string' ? header.replace(/[\s-]/g, '').toLowerCase() : '';
    if (!/^(\d{6}|[a-z0-9]{10})$/.test(code)) throw stepUpRefused();
    return code;
  }

  /**
   * The code of the X-Two-Factor-Code header used up (spendCode: 403 for a wrong one, 401 for a session ended while it
   * waited) and the session marked as stepped up. The write it guards runs after, in its own transaction, and checks
   * the session again there (requireLiveSession): it can still wait for a block or a logout after this one commits.
   */
  async function requireStepUp(caller: Caller, header: string | string[] | undefined) {
    if (!caller.user.totp_secret) return;
    const code = headerCode(header);
    const sessionId = caller.sessionId;
    await spendCode(caller, code, {
      wrong: () => stepUpRefused(T.wrongCode),
      apply: async (trx) => {
        if (sessionId !== null) await repo.markSteppedUp(trx, caller.user.id, sessionId, now());
      },
    });
  }

  /**
   * requireStepUp whose code is used up inside the transaction `run` opens, by the `useUp` it is handed: a movement
   * that transaction then refuses (a low balance, the server's limits) rolls the code back with it, so the player's
   * corrected retry can give the same code instead of waiting for the next one. The wrong-code limit is taken
   * before `run` (on its own connection, not inside the transaction) and given back unless the code was wrong. With
   * `idem`, a used code is let through when the key already holds its answer (its call replays it, moving nothing).
   */
  async function requireStepUpIn<T>(caller: Caller, header: string | string[] | undefined, run: (useUp?: UseUpCode) => Promise<T>, idem?: IdempotencyKey) {
    const secret = caller.user.totp_secret;
    // No code to use up: the call goes as one without a header (a withdrawal's statement still refuses a user whose
    // TOTP was turned on a moment ago).
    if (!secret) return run();
    const code = headerCode(header);
    const userId = caller.user.id;
    const tries = await limiter.take([[await codeKey(userId, caller), CODE_FAILURES_PER_USER]]);
    let wrong = false;
    let answer: T;
    try {
      answer = await run(async (trx) => {
        // The user's row first, whatever the code: a recovery code's UPDATE locks only its own row, and the session's
        // row comes next, while a TOTP rescue or a block holds the user's row and deletes the sessions (a deadlock).
        await repo.holdUser(trx, userId);
        // A block, a logout or a rescue the call waited for on that row has ended its session: 401, the code not counted.
        if (!(await sessionStillLive(trx, caller))) throw new AppError('UNAUTHENTICATED');
        if (!(await useCode(trx, userId, secret, code))) {
          // A keyed retry sent while its first try still ran, with the same code: that try has committed by now (this
          // transaction waited for the user's row), its code is spent and its answer stored; `run` replays it.
          if (idem && (await keyAnswered(trx, userId, idem))) return;
          wrong = true;
          throw stepUpRefused(T.wrongCode);
        }
        if (caller.sessionId !== null) await repo.markSteppedUp(trx, userId, caller.sessionId, now());
      });
    } catch (err) {
      if (!wrong) await tries.giveBack();
      throw err;
    }
    // The movement has committed: a try that could not be given back counts one failure too many until its window ends,
    // which must not turn the committed movement's answer into an error (a retry without a key would move money again).
    await tries.giveBack().catch(() => {});
    return answer;
  }

  /**
   * For an account without a password: 403 unless this session is the account's own sign-in (Discord,
   * Telegram) of the last FRESH_SIGN_IN_MS. A passkey's session does not count: a stolen session could
   * add a passkey and sign in with it to look fresh. Accounts with a password give it instead.
   */
  async function requireFreshSignIn(caller: Caller, message: string) {
    if (caller.user.password_hash) return;
    const at = caller.sessionId === null ? null : await repo.ownSignInAt(db, caller.user.id, caller.sessionId);
    if (!at || now().getTime() - new Date(at).getTime() > FRESH_SIGN_IN_MS) throw new AppError('FORBIDDEN', { message });
  }

  async function steppedUpRecently(caller: Caller): Promise<boolean> {
    if (caller.sessionId === null) return false;
    const at = await repo.steppedUpAt(db, caller.user.id, caller.sessionId);
    return Boolean(at && now().getTime() - new Date(at).getTime() < STEP_UP_READ_MS);
  }

  return {
    /**
     * POST /2fa/setup: a new pending secret of this session (replacing its own unfinished setup, never
     * another session's); 409 while TOTP is on.
     */
    async setup(caller: SessionCaller) {
      const secret = newTotpSecret();
      const res = await repo.setPendingSecret(db, caller.user.id, caller.sessionId, secret);
      if (res === 'totpOn') throw new AppError('CONFLICT', { message: T.alreadyOn });
      if (res === 'sessionEnded') throw new AppError('UNAUTHENTICATED');
      return { secret, otpauth_url: otpauthUrl(secret, labelOf(caller.user), brand) };
    },

    /**
     * POST /2fa/enable: the first code from the app turns TOTP on and hands out the recovery codes,
     * once. An account with a password gives it too: with a stolen session alone a thief could turn
     * TOTP on with their own authenticator, and the owner's sign-ins and resets would then ask for it.
     * Only this session's setup is taken: another session's setup (a stolen one's) neither replaces it
     * nor is turned on by it.
     */
    async enable(caller: SessionCaller, code: string, password?: string) {
      const userId = caller.user.id;
      await currentPassword.check(caller.user, password, { optional: true });
      // An account without a password (Discord, Telegram) proves itself by a fresh sign-in instead:
      // a session stolen earlier cannot do it.
      await requireFreshSignIn(caller, T.freshSignIn);
      const state = await repo.totpState(db, userId);
      if (state?.totp_secret) throw new AppError('CONFLICT', { message: T.alreadyOn });
      const secret = await repo.pendingSecret(db, userId, caller.sessionId);
      if (!secret) throw await noSetupOrEnded(db, caller);
      const tries = await limiter.take([[await codeKey(userId, caller), CODE_FAILURES_PER_USER]]);
      const step = totpStep(secret, code, now());
      if (step === null) throw fieldError('code', T.wrongCode);
      await tries.giveBack();
      const codes = Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
      await repo.transaction(db, async (trx) => {
        const enabled = await repo.enable(trx, userId, caller.sessionId, secret, step);
        // Thrown in the transaction: a setup gone meanwhile rolls back TOTP coming on.
        if (enabled === 'totpOn') throw new AppError('CONFLICT', { message: T.alreadyOn });
        if (enabled === 'noSetup') throw await noSetupOrEnded(trx, caller);
        await repo.replaceRecoveryCodes(trx, userId, codes.map((c) => recoveryHash(userId, c)));
        // The session just gave a good code: it has shown the second factor (an operator's area opens).
        await repo.markSteppedUp(trx, userId, caller.sessionId, now());
        // Browsers remembered before were signed in without the code: only this one stays.
        await browsers.forgetOthers(trx, userId, caller.browser ?? null);
      });
      return { enabled: true as const, recovery_codes: codes };
    },

    /** An operator's turning TOTP off for a user (accounts admin), in their transaction: recovery codes go too. */
    turnOff: (trx: Trx, userId: number) => repo.disable(trx, userId),

    /**
     * POST /2fa/disable: a current TOTP code or an unused recovery code turns it off (underCode: a thief's call that
     * waited for the owner's block or logout no longer strips the second factor after it).
     */
    async disable(caller: Caller, code: string) {
      await underCode(caller, code, (trx) => repo.disable(trx, caller.user.id));
      turnedOff?.(caller.user.id);
      return { enabled: false as const };
    },

    /**
     * POST /2fa/recovery_codes (beyond PRODUCT.md): a current code, or an unused recovery code, replaces the recovery
     * codes with ten new ones (underCode); the old list (used up, or lost with the paper it was on) stops working. Two
     * calls at once take turns, the later list replacing the earlier.
     */
    async newRecoveryCodes(caller: SessionCaller, code: string) {
      const userId = caller.user.id;
      const codes = Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
      await underCode(caller, code, (trx) => repo.replaceRecoveryCodes(trx, userId, codes.map((c) => recoveryHash(userId, c))));
      return { recovery_codes: codes };
    },

    /**
     * A sign-in that asks for the second factor (password, phone, Discord, reset): with TOTP on,
     * the token of a pending sign-in instead of a session. `linkDiscordId` waits with it and is
     * linked by the good code; the caller links at once a user without TOTP, who is not asked.
     */
    async signInAsking(q: Trx | DbHandle, user: User, origin: SessionOrigin, pending: { linkDiscordId?: string } = {}): Promise<SignInResponse> {
      if (!user.totp_secret) return issue(q, user, origin);
      const token = newToken();
      // Nor does a pending sign-in begin once the password changed meanwhile (sessions.issueAccessToken).
      if (!(await repo.insertChallenge(q, user, hashToken(token), new Date(now().getTime() + CHALLENGE_TTL_MS), pending))) {
        throw new AppError('UNAUTHENTICATED', { message: SIGN_IN_OVERTAKEN });
      }
      return { two_factor_required: true, two_factor_token: token };
    },

    /**
     * A password reset of a user with TOTP on: nothing changes yet. The new password's hash waits
     * with a pending sign-in, and POST /2fa/verify applies the reset with the good code; a mailbox or
     * phone alone changes nothing (README "Second factors").
     */
    async askBeforeReset(q: Trx | DbHandle, user: User, passwordHash: string): Promise<SignInResponse> {
      const token = newToken();
      if (!(await repo.insertChallenge(q, user, hashToken(token), new Date(now().getTime() + CHALLENGE_TTL_MS), { newPasswordHash: passwordHash }))) {
        throw new AppError('UNAUTHENTICATED', { message: SIGN_IN_OVERTAKEN });
      }
      return { two_factor_required: true, two_factor_token: token };
    },

    /** POST /2fa/verify: the pending sign-in's second step. 401 unknown or expired, 429 after 5 wrong codes. */
    async verify(client: Client, token: string, code: string): Promise<AuthResponse> {
      const tokenHash = hashToken(token);
      const at = now();
      const tried = await repo.countTry(db, tokenHash, at, CHALLENGE_TRIES);
      if (!tried) {
        const state = await repo.challengeState(db, tokenHash);
        // A reset waiting for the code was never applied: the old password stands, so «Войдите снова» with the
        // new one fails; the way on is the reset again (the web links it).
        const resets = Boolean(state?.resets);
        // This sign-in is spent; signing in again may start another at once. The same call answers the same until
        // the pending sign-in expires, then 401: Retry-After says when that is, so a client that obeys it asks once
        // more, not once a second for ten minutes (contract review 14).
        const left = state ? new Date(state.expires_at).getTime() - at.getTime() : 0;
        if (left > 0) {
          throw new AppError('TOO_MANY_ATTEMPTS', { message: resets ? T.resetTooManyCodes : T.tooManyCodes, retryAfter: Math.ceil(left / 1000) });
        }
        throw new AppError('UNAUTHENTICATED', { message: resets ? T.resetExpired : T.expired });
      }
      const user = await repo.findUser(db, tried.user_id);
      if (!user || user.blocked_at) throw new AppError('UNAUTHENTICATED', { message: T.expired });
      // TOTP turned off meanwhile: the password was enough after all, but the code must still be a real one.
      const secret = user.totp_secret;
      if (!secret) throw fieldError('code', T.wrongCode);
      // A wrong code counts towards the user's limit even though its transaction rolls back; anything else gives the try back.
      // Refused by that limit (429, wait), no code was checked: the pending sign-in's own try is given back too, or
      // presses during the wait used up its 5 and a right code after it was told «Слишком много неверных кодов».
      const tries = await limiter.take([[await codeKey(user.id, client), CODE_FAILURES_PER_USER]]).catch(async (err: unknown) => {
        await repo.giveTryBack(db, tokenHash);
        throw err;
      });
      let wrong = false;
      const { answer, ended } = await repo
        .transaction(db, async (trx) => {
          await repo.holdUser(trx, user.id);
          const challenge = await repo.takeChallenge(trx, tokenHash);
          if (!challenge) throw new AppError('UNAUTHENTICATED', { message: T.expired });
          // The code is used only now, in the transaction of the taken challenge: a sign-in that ends
          // meanwhile (a password change, «Завершить другие сеансы», a block, a rescue, a parallel verify)
          // or fails below leaves it unspent. A wrong one rolls the challenge back for the next try.
          if (!(await useCode(trx, user.id, secret, code))) {
            wrong = true;
            throw fieldError('code', T.wrongCode);
          }
          // A reset that waited for this code happens now, before the new session starts.
          const endedIds = challenge.new_password_hash ? await resets.apply(trx, user.id, challenge.new_password_hash) : [];
          if (challenge.link_discord_id) await links.discord(trx, user.id, challenge.link_discord_id);
          // The session starts against the password just set by a waiting reset (issueAccessToken checks it).
          const signedIn = challenge.new_password_hash ? { ...user, password_hash: challenge.new_password_hash } : user;
          // The session is named after the second step: the first one's method is not kept with the challenge.
          return { answer: await issue(trx, signedIn, { method: 'two_factor', client }), ended: endedIds };
        })
        .finally(async () => {
          if (!wrong) await tries.giveBack();
        });
      if (ended.length > 0) resets.announce(ended);
      return answer;
    },

    /**
     * Step-up (show_code, and withdrawals with the header): nothing for a user without TOTP; for one
     * with it, 403 `{ message, two_factor_required: true }` unless the header holds a good unused code.
     */
    requireStepUp,
    requireStepUpIn,
    /**
     * Adding a way in that lasts beyond the session: a passkey (signs in alone), a seller API key
     * (issues codes under /api/v1) or the seller's webhook (setting or rotating it answers the secret
     * that signs events, and its endpoint hears of every order). With TOTP on the code (step-up);
     * without it the current password (422, the shared 5 wrong a quarter of an hour), or a stolen
     * session could leave itself one that
     * outlives logout, «Завершить другие сеансы» and a password change; an account with neither TOTP
     * nor a password signed in with Discord or Telegram within FRESH_SIGN_IN_MS (it has no reset either).
     */
    async requireLastingAccessAddition(caller: Caller, what: LastingAccess, header: string | string[] | undefined, password: string | undefined) {
      if (caller.user.totp_secret) return requireStepUp(caller, header);
      await currentPassword.check(caller.user, password, { optional: true });
      await requireFreshSignIn(caller, FRESH_SIGN_IN_MESSAGE[what]);
    },

    /**
     * The step-up of a keyed call that moves value (show_code, pricekods): a retry whose key already
     * holds its answer is replayed without a fresh code (the first try's code was spent); the key
     * `run` gets then refuses the call, should the claim turn out fresh after all. Otherwise as
     * requireStepUpIn: `run` uses the code up first thing in its transaction (`useUp`, absent without
     * TOTP or on a replay), so a call refused for its amount leaves the code unspent.
     */
    async stepUpUnlessReplayIn<T>(
      caller: Caller,
      header: string | string[] | undefined,
      idem: IdempotencyKey | undefined,
      run: (idem: IdempotencyKey | undefined, useUp?: UseUpCode) => Promise<T>,
    ) {
      if (!caller.user.totp_secret) return run(idem);
      if (idem && (await keyAnswered(db, caller.user.id, idem))) return run({ ...idem, freshRefused: () => stepUpRefused() });
      return requireStepUpIn(caller, header, (useUp) => run(idem, useUp), idem);
    },

    /** Whether a keyed withdrawal of this caller is a retry whose answer is stored (its statement replays it). */
    isReplay: async (caller: Caller, idem: IdempotencyKey | undefined) => Boolean(caller.user.totp_secret && idem && (await keyAnswered(db, caller.user.id, idem))),

    /**
     * The step-up of a read that shows gift codes (GET /my_codes): a session that gave a good code in
     * the last STEP_UP_READ_MS passes; otherwise as requireStepUp.
     */
    async requireRecentStepUp(caller: Caller, header: string | string[] | undefined) {
      if (!caller.user.totp_secret || (await steppedUpRecently(caller))) return;
      await requireStepUp(caller, header);
    },

    /**
     * Admin calls (with ADMIN_REQUIRE_2FA) come from a session that showed the second factor: one
     * signed in with the code or a passkey, or that gave a good code since. A Telegram sign-in is not
     * asked for the code (PRODUCT.md section 7), so an operator's Telegram session is asked here, once:
     * 403 `two_factor_required` until a call carries a good `X-Two-Factor-Code`, which marks the session.
     */
    /** Whether it used up the header's code (then that code was this request's step-up too). */
    async proveAdminSession(caller: Caller, header: string | string[] | undefined): Promise<boolean> {
      if (!caller.user.totp_secret || caller.sessionId === null) return false;
      if (await sessionShowed(caller.user.id, caller.sessionId)) return false;
      if (header === undefined) throw stepUpRefused(T.adminSession);
      await requireStepUp(caller, header);
      return true;
    },

    /**
     * Whether a read may show the caller's open codes whole (the wallet page's price data): without
     * TOTP, or with a good code in this call's header (a wrong one is refused, 403), or after a step-up
     * by this session in the last STEP_UP_READ_MS. Otherwise the read masks them.
     */
    async mayShowCodes(caller: Caller, header: string | string[] | undefined): Promise<boolean> {
      if (!caller.user.totp_secret) return true;
      if (header !== undefined) {
        await requireStepUp(caller, header);
        return true;
      }
      return steppedUpRecently(caller);
    },

  };
}

export type TwoFactorService = ReturnType<typeof createTwoFactorService>;
export { stepUpRefused };
