import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { createSealer, deriveKey, type Sealer } from '../../lib/sealed';
import { GiveUp, type JobContext, type Jobs } from '../jobs/jobs.service';
import { MAIL_SEND_DEADLINE_MS, type Mailer } from './mail';
import type { Outbox, OutgoingMessage } from './outbox';
import { type SecretKeysDb, secretKeysRepository } from './secret-keys.repository';
import { DeliveryError, type SmsGateway } from './sms';
import { smsRefusal } from './sms-numbers';

export type { OutgoingMessage } from './outbox';

export const MESSAGE_JOB = 'message.send';
/** Sign-in and reset codes have workers of their own: nothing else in the queue can keep a player waiting for one. */
export const MESSAGE_LANE = 'messages';
/** Codes one process sends at the same time. */
export const MESSAGE_WORKERS = 2;
/** Sends tried per message; with the queue's back-off (1 s, 2 s, 4 s …) they span about eight minutes. */
const MESSAGE_ATTEMPTS = 10;
/**
 * A send is bounded as a whole (a mail by MAIL_SEND_DEADLINE_MS, 45 s, an SMS by the gateway's 10 s),
 * and the lease is twice the longest: no other worker takes a job while its send may still finish. A
 * code a stopped process left half-sent is taken again after this, not after the queue's five minutes.
 */
export const MESSAGE_LEASE_MS = 2 * MAIL_SEND_DEADLINE_MS;
/** A message that carries no code (the "you already have an account" note) is given up after this long. */
const NOTE_MAX_AGE_MS = 60 * 60_000;

/** What a mail or SMS job holds: the message sealed with the messages key, and when its code expires. */
export interface MessageJob {
  /** Epoch ms after which the message is useless and is dropped unsent; null for a note without a code. */
  exp: number | null;
  /** `lib/sealed.ts` box of the OutgoingMessage without its `code` field, or of null (nothing to send). */
  box: string;
  /** The code's flow (`Delivery.replaces`): a newer message of it withdraws this one while unsent. */
  ref?: string;
}

export interface Delivery {
  channel: OutgoingMessage['channel'];
  /** null: nothing is sent (an unknown address at reset), but the same work is done as for a message. */
  message: OutgoingMessage | null;
  /** When the code in the message stops working; a job still unsent then is dropped. */
  expiresAt?: Date;
  /**
   * The flow whose code this message carries: a resend's new code withdraws the flow's earlier message
   * while it waits for a retry (an SMTP 4xx), so the stale code cannot arrive after the new one and
   * spend one of the player's tries.
   */
  replaces?: string;
}

export interface CodeDelivery {
  /**
   * Where the channel is configured (SMTP for email, the gateway for SMS): seals the message and
   * enqueues its job, awaited, so the message is in the database when the answer leaves. Known
   * and unknown addresses both enqueue one job (a null message seals to a box of the same size),
   * so their answers take the same time. Where the channel is not configured, the message goes to
   * the outbox file after the answer, as before, and a null message to nothing.
   */
  deliver(d: Delivery): Promise<void>;
  /** Registers the send with the job queue (app.ts, once). */
  register(): void;
  /** Waits for outbox files still being written. */
  settle(): Promise<void>;
  close(): void;
}

export interface CodeDeliveryDeps {
  mail: Mailer | null;
  sms: SmsGateway | null;
  outbox: Outbox;
  log: FastifyBaseLogger;
  jobs: Pick<Jobs, 'enqueue' | 'register' | 'cancelPending'>;
  db: SecretKeysDb;
  /** SECRET_KEY; when unset the messages key is a random one kept in the database (secret_keys). */
  secretKey: string | undefined;
  now: () => Date;
}

const AAD = MESSAGE_JOB;
const KEY_NAME = 'messages';

/** SMTP 5xx is a permanent refusal; 4xx (421 try later, 450 mailbox busy …) and network errors pass. */
function mailRefusal(err: unknown): Error {
  const code = (err as { responseCode?: unknown }).responseCode;
  const text = err instanceof Error ? err.message : String(err);
  return typeof code === 'number' && code >= 500 ? new GiveUp(text) : err instanceof Error ? err : new Error(text);
}

/**
 * One-time codes and account notes (decision record 0020): by email through SMTP and by SMS
 * through the gateway, as jobs of the queue, retried with back-off; whichever channel is not
 * configured goes to the outbox (DATA_DIR/outbox/) instead, which stays the only place a code is
 * written in clear. A job holds its message sealed with AES-256-GCM; the row is deleted when the
 * message is sent or dropped, and its payload cleared when it fails for good.
 */
export function createCodeDelivery(deps: CodeDeliveryDeps): CodeDelivery {
  const { mail, sms, outbox, log, jobs, db, now } = deps;

  let sealer: Promise<Sealer> | undefined;
  const sealerOf = () => {
    sealer ??= (async () => {
      if (deps.secretKey) return createSealer(deriveKey(deps.secretKey, KEY_NAME));
      const stored = await secretKeysRepository.getOrCreate(db, KEY_NAME, randomBytes(32).toString('base64'));
      return createSealer(Buffer.from(stored, 'base64'));
    })().catch((err: unknown) => {
      sealer = undefined; // the database was away: try again next time
      throw err;
    });
    return sealer;
  };

  const configured = (channel: OutgoingMessage['channel']) => (channel === 'email' ? mail !== null : sms !== null);

  async function send(m: Omit<OutgoingMessage, 'code'>) {
    if (m.channel === 'email' && mail) {
      await mail.sendMail({ to: m.to, subject: m.subject, text: m.text }).catch((err: unknown) => {
        throw mailRefusal(err);
      });
    } else if (m.channel === 'sms' && sms) {
      // The services refuse such a number when asked (422); this holds for a job queued before that
      // rule, and for any sender to come: no premium-rate, satellite or landline SMS on our bill.
      if (smsRefusal(m.to, null)) throw new GiveUp('not sent: the number is no mobile of any country');
      await sms.sendSms(m.to, m.text).catch((err: unknown) => {
        throw err instanceof DeliveryError && err.permanent ? new GiveUp(err.message) : err;
      });
    } else {
      // A process configured without this channel took the job: the outbox of this process.
      await outbox.write({ ...m, code: null });
    }
  }

  async function run(job: MessageJob, ctx: Pick<JobContext, 'id' | 'attempt'>) {
    if (job.exp !== null && now().getTime() >= job.exp) {
      log.info({ job: String(ctx.id) }, 'message dropped unsent: its code has expired');
      return;
    }
    let message: Omit<OutgoingMessage, 'code'> | null;
    // Outside the give-up: reading the key from the database can fail on a blip, and the queue's
    // retry then sends the code; only a message the key cannot open is given up.
    const sealer = await sealerOf();
    try {
      message = sealer.open(job.box, AAD) as typeof message;
    } catch {
      throw new GiveUp('cannot open the sealed message (SECRET_KEY changed?)');
    }
    if (message === null) return;
    await send(message);
  }

  const inFlight = new Set<Promise<void>>();
  function toOutbox(message: OutgoingMessage) {
    const p: Promise<void> = outbox
      .write(message)
      .catch((err: unknown) => log.error({ err, to: message.to, channel: message.channel }, 'message not written to the outbox'))
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  }

  return {
    async deliver({ channel, message, expiresAt, replaces }) {
      if (!configured(channel)) {
        if (message) toOutbox(message);
        return;
      }
      // The code travels inside the text; the `code` field is for the outbox file only.
      const inner = message ? { to: message.to, channel: message.channel, subject: message.subject, text: message.text } : null;
      const at = now().getTime();
      const exp = expiresAt ? expiresAt.getTime() : null;
      const job: MessageJob = { exp, box: (await sealerOf()).seal(inner, AAD), ...(replaces ? { ref: replaces } : {}) };
      if (replaces) await jobs.cancelPending(db, MESSAGE_JOB, replaces);
      await jobs.enqueue(db, MESSAGE_JOB, job, { maxAttempts: MESSAGE_ATTEMPTS, maxAgeMs: exp !== null ? Math.max(1, exp - at) : NOTE_MAX_AGE_MS });
    },
    register() {
      jobs.register<MessageJob>(MESSAGE_JOB, run, { scrubOnFail: true, lane: MESSAGE_LANE, leaseMs: MESSAGE_LEASE_MS });
    },
    settle: () => Promise.all([...inFlight]).then(() => undefined),
    close: () => mail?.close(),
  };
}
