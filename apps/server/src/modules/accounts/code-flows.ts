import { createHmac, randomBytes, randomInt } from 'node:crypto';
import { CODE_MAX_TRIES, CODE_TTL_MS, RESEND_INTERVAL_MS } from '@adena/contract';
import type { AuthChannel, AuthFlowPurpose } from '../../db/tables/auth';
import { AppError } from '../../lib/app-error';
import { constantTimeEqual, hashToken, newToken } from '../../lib/tokens';
import type { Client } from '../sessions/caller';
import { accountsRepository as repo, type FlowRow, inTransaction, type Pool, type Tx } from './accounts.repository';
import { type RateLimiter, tooMany } from '../sessions/rate-limit.service';
import type { Limits } from './limits';
import { addressKey } from '../../lib/address-key';

export type Method = 'email' | 'phone';
export const channelOf = (m: Method): AuthChannel => (m === 'email' ? 'email' : 'sms');

export const CODE_MSG = {
  wrongCode: (left: number) => `Неверный код. Осталось попыток: ${left}`,
  codeDead: 'Слишком много неверных попыток. Запросите новый код',
  flowGone: 'Код устарел или уже использован. Запросите новый код',
  sentRecently: (s: number) => `Код уже отправлен. Новый можно запросить через ${s} с`,
} as const;

/** Problems with a code or its flow are shown under the code field: the field the web form has on that step. */
const CODE_FIELD = 'code';

/** 6 digits from the CSPRNG, leading zeros kept. */
export const newCode = () => String(randomInt(0, 1_000_000)).padStart(6, '0');
/**
 * The code is stored keyed with the flow token, which the database never sees in clear: a copy
 * of the table alone does not let anyone try the million codes offline.
 */
export const codeHash = (flowToken: string, code: string) => createHmac('sha256', flowToken).update(code).digest('hex');

/** A flow with 5 wrong tries is dead; a new one may be asked for once the minute has passed. */
export function deadFlow(flow: FlowRow, at: Date) {
  const wait = Math.max(1, Math.ceil((flow.last_sent_at.getTime() + RESEND_INTERVAL_MS - at.getTime()) / 1000));
  return new AppError('TOO_MANY_ATTEMPTS', { message: CODE_MSG.codeDead, errors: { [CODE_FIELD]: [CODE_MSG.codeDead] }, retryAfter: wait });
}

/** `counted`: a wrong or dead try. */
type CodeOutcome<T> = { ok: true; value: T } | { ok: false; error: AppError; counted: boolean };

/**
 * The one-time-code flows of sign-up and reset (the `auth_flows` table): a flow is opened with a
 * code sent to an address, and its token with the right code completes it once.
 */
// Long: a factory holding 3 small functions; each is short.
export function createCodeFlows(deps: { db: Pool; limiter: RateLimiter; limits: Limits; now: () => Date }) {
  const { db, limiter, limits, now } = deps;

  /**
   * PRODUCT.md section 8: one new code per address a minute (429 with the seconds left). `browser`: a
   * reset asked from a browser the account has signed in from counts only that browser's flows, so
   * a stranger asking for the owner's address every minute cannot keep the owner's own reset at 429.
   */
  async function refuseWithinMinute(q: Pool | Tx, purpose: AuthFlowPurpose, channel: AuthChannel, address: string, browser: string | null) {
    const last = await repo.lastSentAt(q, purpose, channel, address, browser);
    const wait = last ? last.getTime() + RESEND_INTERVAL_MS - now().getTime() : 0;
    if (wait > 0) {
      const s = Math.ceil(wait / 1000);
      throw tooMany(s, CODE_MSG.sentRecently(s));
    }
  }

  return {
    /** The rules every code sent obeys, for a real address and an unknown one alike. */
    /**
     * The browser whose own minute the code goes under (`knownBrowser`, or null: the address's minute).
     * Once the address's hourly allowance through remembered browsers is spent, a remembered browser
     * waits for the address's minute like any other, rather than being refused.
     */
    async limitSend(client: Client, purpose: AuthFlowPurpose, channel: AuthChannel, address: string, knownBrowser: string | null = null) {
      let own = knownBrowser;
      if (own) {
        await refuseWithinMinute(db, purpose, channel, address, own);
        const allowance = await limiter.take([[`send:known:${purpose}:${channel}:${address}`, limits.knownBrowserResetsPerAddress]]).catch((err: unknown) => {
          if (err instanceof AppError && err.code === 'TOO_MANY_ATTEMPTS') return null;
          throw err;
        });
        if (!allowance) own = null;
      }
      if (!own) await refuseWithinMinute(db, purpose, channel, address, null);
      await limiter.count(`send:ip:${addressKey(client.ip)}`, limits.flowsPerIp);
      return own;
    },

    /** Opens a flow; `withCode` false means the flow exists only to answer like a real one. */
    async openFlow(values: {
      purpose: AuthFlowPurpose;
      channel: AuthChannel;
      address: string;
      withCode: boolean;
      userId?: number | null;
      passwordHash?: string | null;
      name?: string | null;
      /** A browser the account signed in from (limitSend's `knownBrowser`): the minute counts its flows only. */
      knownBrowser?: string | null;
    }) {
      const token = newToken();
      const code = values.withCode ? newCode() : null;
      const at = now();
      const expiresAt = new Date(at.getTime() + CODE_TTL_MS);
      await repo.sweepFlows(db, at);
      await limiter.sweep(at);
      // limitSend looked first; this decides, with the address's flows locked from the look to the
      // insert, so that parallel requests cannot each open a flow within the minute.
      const { id } = await inTransaction(db, async (trx) => {
        await repo.lockAddress(trx, values.purpose, values.channel, values.address);
        await refuseWithinMinute(trx, values.purpose, values.channel, values.address, values.knownBrowser ?? null);
        return repo.insertFlow(trx, {
          token_hash: hashToken(token),
          purpose: values.purpose,
          channel: values.channel,
          address: values.address,
          user_id: values.userId ?? null,
          code_hash: code ? codeHash(token, code) : null,
          password_hash: values.passwordHash ?? null,
          name: values.name ?? null,
          expires_at: expiresAt,
          last_sent_at: at,
          browser_hash: values.knownBrowser ?? null,
        });
      });
      return { token, code, expiresAt, flowId: id };
    },

    /**
     * Checks a code against its flow under a row lock and, when right, runs `onRight` in the same
     * transaction. A wrong try is committed before the error is thrown, so the count survives.
     * Wrong tries count against their flow only (5 end it): wrong codes in other flows never block
     * the owner's fresh one. Guessing is bounded by the flows an address may open (20 an hour).
     */
    async checkCode<T>(
      _client: Client,
      flowKind: { purpose: AuthFlowPurpose; channel: AuthChannel },
      attempt: { flowToken: string; code: string },
      onRight: (trx: Tx, flow: FlowRow) => Promise<T>,
    ): Promise<T> {
      const { purpose, channel } = flowKind;
      const { flowToken, code } = attempt;
      const outcome = await inTransaction(db, async (trx): Promise<CodeOutcome<T>> => {
        const flow = await repo.lockFlow(trx, hashToken(flowToken), purpose, channel);
        const at = now();
        if (!flow || flow.consumed_at || flow.expires_at <= at) {
          const error = new AppError('VALIDATION', { message: CODE_MSG.flowGone, errors: { [CODE_FIELD]: [CODE_MSG.flowGone] } });
          return { ok: false, error, counted: false };
        }
        if (flow.tries >= CODE_MAX_TRIES) return { ok: false, error: deadFlow(flow, at), counted: true };
        // A flow with no code compares against a random value, so it costs the same and never matches.
        const expected = flow.code_hash ?? randomBytes(32).toString('hex');
        if (!constantTimeEqual(codeHash(flowToken, code), expected) || !flow.code_hash) {
          const tries = flow.tries + 1;
          await repo.updateFlow(trx, flow.id, { tries });
          if (tries >= CODE_MAX_TRIES) return { ok: false, error: deadFlow(flow, at), counted: true };
          const message = CODE_MSG.wrongCode(CODE_MAX_TRIES - tries);
          return { ok: false, error: new AppError('VALIDATION', { message, errors: { [CODE_FIELD]: [message] } }), counted: true };
        }
        await repo.updateFlow(trx, flow.id, { consumed_at: at });
        return { ok: true, value: await onRight(trx, flow) };
      });
      if (outcome.ok) return outcome.value;
      throw outcome.error;
    },
  };
}

export type CodeFlows = ReturnType<typeof createCodeFlows>;
