import type { SignInResponse } from '@adena/contract';
import { refuseCommonPassword } from '../../lib/common-passwords';
import { AppError } from '../../lib/app-error';
import { hashPassword } from '../../lib/password';
import type { CodeDelivery } from '../notifications/code-delivery';
import type { Client, User } from '../sessions/caller';
import type { SessionsService } from '../sessions/sessions.service';
import { accountsRepository as repo, inTransaction, type Pool, type Tx } from './accounts.repository';
import { type CodeFlows, channelOf, type Method } from './code-flows';
import { codeTexts } from './code-messages';
import { findByAddress, refuseBlocked, type SignIn } from './sign-in';
import type { SmsRules } from './sms-rules';

const NEW_PASSWORD_TOKEN_REFUSED = 'Ссылка для смены пароля недействительна или устарела. Начните восстановление заново';

export interface ResetDeps {
  /** BRAND_NAME: the signature of every mail and SMS. */
  brand: string;
  db: Pool;
  flows: CodeFlows;
  sessions: Pick<SessionsService, 'issueNewPasswordToken' | 'newPasswordTokenUser' | 'takeNewPasswordToken' | 'endAllSessions' | 'announceEnded' | 'isKnownBrowser'>;
  signIn: SignIn;
  /**
   * A reset proves the mailbox or phone, not the second factor: with TOTP on nothing changes until
   * the code is given (the two-factor module keeps the new password's hash and calls `apply`).
   */
  askBeforeReset: (trx: Tx, user: User, passwordHash: string) => Promise<SignInResponse>;
  delivery: Pick<CodeDelivery, 'deliver'>;
  /** A reset's SMS goes to a mobile only (of any country); the sign-up budget never holds it back. */
  smsRules: Pick<SmsRules, 'resetRefusal'>;
  /**
   * In the reset's transaction: what a thief who held a session could have left behind and would
   * outlive the ended sessions (seller API keys, passkeys), revoked (README "Rules": after a reset).
   */
  revokeLeftovers?: (userId: number, trx: Tx) => Promise<void>;
}

/** Password reset: a code to the address, a short-lived new-password token, a new password. */
export function createResetService(deps: ResetDeps) {
  const texts = codeTexts(deps.brand);
  const { db, flows, sessions, signIn, delivery } = deps;
  const refused = () => new AppError('UNAUTHENTICATED', { message: NEW_PASSWORD_TOKEN_REFUSED });

  /** The reset itself: the new password, every session ended, the leftovers revoked; the ended sessions' ids. */
  async function apply(trx: Tx, userId: number, passwordHash: string) {
    await repo.updateUser(trx, userId, { password_hash: passwordHash });
    // Another reset of this account still open (its code seen by someone else) no longer sets a password;
    // closed before the tokens end, so a code check under way is waited for and its token ends too.
    await repo.closeResetFlows(trx, userId);
    const endedIds = await sessions.endAllSessions(userId, trx);
    await deps.revokeLeftovers?.(userId, trx);
    return endedIds;
  }

  return {
    apply,
    /** After COMMIT: the sockets of every session a reset ended are told and closed. */
    announce: (ended: number[]) => sessions.announceEnded(ended, 'password_reset'),

    /** Step 1: a code to a registered address; nothing to an unknown one. Same answer. */
    async startReset(client: Client, method: Method, address: string) {
      const channel = channelOf(method);
      // Decided by the number alone, before the account is looked up: the answer tells nothing of one.
      const refused = method === 'phone' ? deps.smsRules.resetRefusal(address) : null;
      if (refused) throw refused;
      const user = await findByAddress(db, method, address);
      // From a browser the account signed in from, the minute counts that browser's own requests only:
      // a stranger asking for this address every minute does not keep the owner's reset at 429.
      // (Asked for unknown addresses too, as user 0: the answer takes the same time either way.)
      const remembered = client.browser && (await sessions.isKnownBrowser(user?.id ?? 0, client.browser)) ? client.browser : null;
      const knownBrowser = await flows.limitSend(client, 'reset', channel, address, remembered);
      const { token, code, expiresAt } = await flows.openFlow({ purpose: 'reset', channel, address, withCode: Boolean(user), userId: user?.id ?? null, knownBrowser });
      // An unknown address enqueues a job too (sealed null, sending nothing): the answers take the same time.
      await delivery.deliver({ channel, message: code ? texts.resetCode(channel, address, code) : null, expiresAt });
      return token;
    },

    /** Step 2: the right code gives a short-lived new_password_token. */
    async checkResetCode(client: Client, method: Method, flowToken: string, code: string) {
      const flowKind = { purpose: 'reset' as const, channel: channelOf(method) };
      return flows.checkCode(client, flowKind, { flowToken, code }, (trx, flow) => sessions.issueNewPasswordToken(flow.user_id!, trx));
    },

    /** Step 3 (bearer = new_password_token): new password, every other session ended, a new one started. */
    async createNewPassword(client: Client, method: Method, bearer: string | undefined, password: string) {
      if (!bearer) throw refused();
      refuseCommonPassword(password);
      // A cheap look first, so a made-up bearer cannot make us spend an argon2id hash.
      const owner = await sessions.newPasswordTokenUser(bearer);
      if (owner === null) throw refused();
      const passwordHash = await hashPassword(password);
      const { answer, ended } = await inTransaction(db, async (trx) => {
        // The user's row before the token's: a block, a TOTP rescue, a password change, another reset or
        // a second factor's step applying one takes that row and then deletes the user's tokens. The token
        // deleted first, each waited for the other's lock and one side answered 503. Spent meanwhile, the
        // token is not found below, and the answer is the same 401.
        const before = await repo.lockUserById(trx, owner);
        const userId = await sessions.takeNewPasswordToken(bearer, trx);
        if (userId === null || !before) throw refused();
        refuseBlocked(before);
        if (before.totp_secret) return { answer: await deps.askBeforeReset(trx, before, passwordHash), ended: [] };
        const endedIds = await apply(trx, before.id, passwordHash);
        const user = (await repo.findUserById(trx, before.id))!;
        return { answer: await signIn(trx, user, { method, client }), ended: endedIds };
      });
      // After COMMIT: the sockets of every session the reset ended are told and closed.
      sessions.announceEnded(ended, 'password_reset');
      return answer;
    },
  };
}

export type ResetService = ReturnType<typeof createResetService>;
