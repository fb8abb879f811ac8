import { CODE_TTL_MS, RESEND_INTERVAL_MS, RESENDS_USED_UP } from '@adena/contract';
import { refuseCommonPassword } from '../../lib/common-passwords';
import { AppError } from '../../lib/app-error';
import { hashPassword } from '../../lib/password';
import { hashToken, newToken } from '../../lib/tokens';
import type { CodeDelivery } from '../notifications/code-delivery';
import type { Client } from '../sessions/caller';
import { accountsRepository as repo, inTransaction, type Pool } from './accounts.repository';
import { CODE_MSG, type CodeFlows, channelOf, codeHash, type Method, newCode } from './code-flows';
import { codeTexts } from './code-messages';
import { type RateLimiter, tooMany } from '../sessions/rate-limit.service';
import type { Limits } from './limits';
import { ALREADY_REGISTERED, findByAddress, type SignIn, withConflictAs } from './sign-in';
import { addressKey } from '../../lib/address-key';
import type { SmsRules } from './sms-rules';

/** Resends per flow; after that the player starts over (and meets the per-address limits). */
const MAX_RESENDS = 5;

const defaultName = (method: Method, address: string) =>
  method === 'email' ? address.split('@')[0]!.slice(0, 64) : `Игрок ${address.slice(-4)}`;

export interface SignUpDeps {
  /** BRAND_NAME: the signature of every mail and SMS. */
  brand: string;
  db: Pool;
  flows: CodeFlows;
  limiter: RateLimiter;
  limits: Limits;
  signIn: SignIn;
  delivery: Pick<CodeDelivery, 'deliver'>;
  /** Which numbers get a sign-up SMS, and how many go out (toll fraud). */
  smsRules: Pick<SmsRules, 'signUpRefusal' | 'takeSignUpSms'>;
  /** PUBLIC_URL: the "you already have an account" note links to the reset page there. */
  publicUrl: string | undefined;
  now: () => Date;
}

/** Sign-up by email or phone: a code to the address, then the code creates the account. */
// Long: a factory holding 4 small functions; each is short.
export function createSignUpService(deps: SignUpDeps) {
  const texts = codeTexts(deps.brand);
  const { db, flows, limiter, limits, signIn, delivery, smsRules, publicUrl, now } = deps;

  /** Rotates a flow's token and code under its row lock; of two resends at once, the second sees the first's time. */
  const rotateFlow = (channel: ReturnType<typeof channelOf>, flowToken: string) =>
    inTransaction(db, async (trx) => {
      const gone = () => new AppError('VALIDATION', { message: CODE_MSG.flowGone, errors: { _: [CODE_MSG.flowGone] } });
      const flow = await repo.lockFlow(trx, hashToken(flowToken), 'register', channel);
      const at = now();
      if (!flow || flow.consumed_at || flow.expires_at <= at) return { error: gone() };
      // A flow opened before SMS_COUNTRIES changed (or before the rule) is resent under today's rule.
      const refused = channel === 'sms' ? smsRules.signUpRefusal(flow.address) : null;
      if (refused) return { error: refused };
      // A flow its 5 wrong codes ended is resent like a live one: the new code comes with 5 tries, as
      // the refusal of the 5th wrong code tells the player («Запросите новый код»). No more guesses than
      // before: a resend after the 4th wrong code reset the tries too, and the minute and MAX_RESENDS hold.
      // Once a minute per address, over all its flows (another flow of it may have sent meanwhile),
      // decided under the same lock as a new flow's (code-flows.ts).
      await repo.lockAddress(trx, 'register', channel, flow.address);
      const last = (await repo.lastSentAt(trx, 'register', channel, flow.address)) ?? flow.last_sent_at;
      const wait = last.getTime() + RESEND_INTERVAL_MS - at.getTime();
      if (wait > 0) {
        const s = Math.ceil(wait / 1000);
        return { error: tooMany(s, CODE_MSG.sentRecently(s)) };
      }
      if (flow.resends >= MAX_RESENDS) return { error: tooMany(RESEND_INTERVAL_MS / 1000, RESENDS_USED_UP) };
      const token = newToken();
      const code = flow.code_hash ? newCode() : null;
      const expiresAt = new Date(at.getTime() + CODE_TTL_MS);
      await repo.updateFlow(trx, flow.id, {
        token_hash: hashToken(token),
        code_hash: code ? codeHash(token, code) : null,
        tries: 0,
        resends: flow.resends + 1,
        expires_at: expiresAt,
        last_sent_at: at,
      });
      return { token, code, address: flow.address, expiresAt, flowId: flow.id };
    });

  return {
    /** Step 1: a code to a new address; to a registered one, a "you have an account" note. Same answer. */
    async startRegistration(client: Client, method: Method, input: { address: string; password: string; name?: string }) {
      const channel = channelOf(method);
      // Decided by the number alone, before anything about an account is looked up.
      const refused = method === 'phone' ? smsRules.signUpRefusal(input.address) : null;
      if (refused) throw refused;
      refuseCommonPassword(input.password);
      // Counted for a registered number's note too: the answers must not tell the two apart. Taken before the
      // address's sends: a sign-up the spent budget refuses must not use up one of them (players behind a shared
      // address, told to sign up by email, were then refused that and their resets too).
      const sms = method === 'phone' ? await smsRules.takeSignUpSms() : null;
      try {
        await flows.limitSend(client, 'register', channel, input.address);
        // Hashed for both kinds of address, so neither answers faster.
        const passwordHash = await hashPassword(input.password);
        const existing = await findByAddress(db, method, input.address);
        const { token, code, expiresAt, flowId } = await flows.openFlow({
          purpose: 'register',
          channel,
          address: input.address,
          withCode: !existing,
          passwordHash: existing ? null : passwordHash,
          name: input.name ?? null,
        });
        // The note to a registered address carries no code; it is sealed, enqueued and dropped when late alike.
        const message = code ? texts.registerCode(channel, input.address, code) : texts.alreadyRegistered(channel, input.address, publicUrl);
        await delivery.deliver({ channel, message, expiresAt, replaces: `register:${flowId}` });
        return token;
      } catch (err) {
        await sms?.giveBack();
        throw err;
      }
    },

    /** Resend: a new token and a new code; the old token stops working. */
    async resendRegistration(client: Client, method: Method, flowToken: string) {
      const channel = channelOf(method);
      const sendIpKey = `send:ip:${addressKey(client.ip)}`;
      // Counted before the token rotates (a refusal must come first, or the player would be left
      // holding a token that no longer exists), given back when the resend is refused.
      const tries = await limiter.take([[sendIpKey, limits.flowsPerIp]]);
      const sms = method === 'phone' ? await smsRules.takeSignUpSms().catch(async (err: unknown) => {
        await tries.giveBack();
        throw err;
      }) : null;
      const result = await rotateFlow(channel, flowToken);
      if ('error' in result) {
        await tries.giveBack();
        await sms?.giveBack();
        throw result.error;
      }
      const { token, code, expiresAt } = result;
      const message = code ? texts.registerCode(channel, result.address, code) : texts.alreadyRegistered(channel, result.address, publicUrl);
      await delivery.deliver({ channel, message, expiresAt, replaces: `register:${result.flowId}` });
      return token;
    },

    /** Step 2: the right code creates the account and signs it in. */
    async verifyRegistration(client: Client, method: Method, flowToken: string, code: string) {
      const flowKind = { purpose: 'register' as const, channel: channelOf(method) };
      return withConflictAs(ALREADY_REGISTERED, () =>
        flows.checkCode(client, flowKind, { flowToken, code }, async (trx, flow) => {
          // Someone finished a sign-up of the same address first.
          if (await findByAddress(trx, method, flow.address)) throw new AppError('CONFLICT', { message: ALREADY_REGISTERED });
          const user = await repo.insertUser(trx, {
            [method === 'email' ? 'email' : 'phone']: flow.address,
            password_hash: flow.password_hash,
            name: flow.name ?? defaultName(method, flow.address),
          });
          return signIn(trx, user, { method, client });
        }),
      );
    },
  };
}

export type SignUpService = ReturnType<typeof createSignUpService>;
