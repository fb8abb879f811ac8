import { createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { JobQueue } from '../jobs/jobs.service';
import { RetryAfter } from '../jobs/jobs.service';
import { dnsResolve, guardedLookup, hostOf, isPrivateAddress, type Resolve } from './address-guard';
import { type WebhooksDb, webhooksRepository as repo } from './webhooks.repository';

export const WEBHOOK_JOB = 'webhook.deliver';
/** Deliveries wait on sellers' servers (up to WEBHOOK_TIMEOUT_MS each): they have workers of their own. */
export const WEBHOOK_LANE = 'webhooks';
/** Deliveries one process sends at the same time. */
export const WEBHOOK_WORKERS = 4;
/** Deliveries are retried for this long after the event. */
export const WEBHOOK_MAX_AGE_MS = 3 * 24 * 60 * 60_000;
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** Each DNS server a delivery's lookup asks waits this long at most (as getaddrinfo's default), within the delivery's timeout. */
export const WEBHOOK_LOOKUP_MS = 5_000;

/** The Standard Webhooks signature: v1,<base64 HMAC-SHA256 over id.timestamp.body with the secret's bytes>. */
export function sign(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

export const webhookId = (deliveryId: bigint | number) => `msg_${deliveryId}`;

type Sent = { statusCode: number } | { error: string };

/**
 * One POST, at most `timeoutMs` in all, the name's lookup included (a lookup the timer cut short is
 * cancelled), redirects not followed (node:http never follows them; a 3xx is a failure like any
 * non-2xx). A host given as an address literal is checked here, since the socket skips `lookup`
 * for it; a name is checked on every address DNS gives for it. `signal`
 * (the worker stopping) ends it at once as a failed attempt, so a deploy does not leave the
 * seller's deliveries waiting for the job's lease.
 */
export function post(
  url: string,
  headers: Record<string, string>,
  body: string,
  o: { timeoutMs: number; allowPrivate: boolean; resolve: Resolve; signal?: AbortSignal },
): Promise<Sent> {
  return new Promise((done) => {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return done({ error: 'bad url' });
    }
    const host = hostOf(u);
    if (isIP(host) && isPrivateAddress(host) && !o.allowPrivate) return done({ error: `refused private address ${host}` });
    const client = u.protocol === 'https:' ? https : u.protocol === 'http:' ? http : null;
    if (!client) return done({ error: 'only http and https' });
    const lookupEnded = new AbortController();
    const req = client.request(u, {
      method: 'POST',
      agent: false,
      lookup: guardedLookup(o.resolve, o.allowPrivate, lookupEnded.signal),
      headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'AdenaWallet-Webhooks/1', ...headers },
    });
    const timer = setTimeout(() => req.destroy(new Error(`timeout after ${o.timeoutMs} ms`)), o.timeoutMs);
    const stop = () => req.destroy(new Error('the process was stopping'));
    if (o.signal?.aborted) stop();
    else o.signal?.addEventListener('abort', stop, { once: true });
    req.on('close', () => {
      lookupEnded.abort();
      o.signal?.removeEventListener('abort', stop);
    });
    req.on('response', (res) => {
      // The receiver's body is not read beyond draining it: nothing of it is kept.
      res.resume();
      res.on('end', () => {
        clearTimeout(timer);
        done({ statusCode: res.statusCode ?? 0 });
      });
      res.on('error', () => {
        clearTimeout(timer);
        done({ statusCode: res.statusCode ?? 0 });
      });
    });
    req.on('error', (err) => {
      clearTimeout(timer);
      done({ error: err.message.slice(0, 300) });
    });
    req.end(body);
  });
}

export interface DeliveryOptions {
  db: WebhooksDb;
  /** The first retry this long after a failure; each next gap twice the one before. */
  retryBaseMs: number;
  allowPrivate: boolean;
  timeoutMs?: number;
  /** How a delivery looks its host up; by default DNS through c-ares (`dnsResolve`), off libuv's thread pool. */
  resolve?: Resolve;
  /** The DNS servers the default lookup asks instead of /etc/resolv.conf's (tests). */
  dnsServers?: string[];
  now?: () => Date;
}

/**
 * The job that delivers one outbox row: sends it signed, records the outcome on the row (the
 * seller's delivery log) and, on a non-2xx answer, a timeout or a refused address, asks the queue
 * for the next attempt `retryBaseMs · 2^(attempt-1)` later, until three days after the event.
 */
export function registerWebhookDelivery(jobs: Pick<JobQueue, 'register'>, o: DeliveryOptions) {
  const now = o.now ?? (() => new Date());
  const timeoutMs = o.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  // Not getaddrinfo: its lookups of names that never answer would hold libuv's two threads for slow
  // work and stall every other lookup of the process, other sellers' deliveries included.
  const resolve = o.resolve ?? dnsResolve(Math.min(timeoutMs, WEBHOOK_LOOKUP_MS), { servers: o.dnsServers });
  const send = { timeoutMs, allowPrivate: o.allowPrivate, resolve };
  jobs.register<{ id: string }>(WEBHOOK_JOB, async (payload, ctx) => {
    const id = BigInt(payload.id);
    const d = await repo.forSend(o.db, id);
    if (d?.status !== 'pending') return;
    const attempts = ctx.attempt;
    if (!d.url || !d.secret) {
      await repo.finish(o.db, id, { status: 'failed', attempts, statusCode: null, error: 'endpoint removed', nextAttemptAt: null });
      return;
    }
    // An event the seller has since unsubscribed from is not sent (a ping is sent whatever they chose).
    if (d.type !== 'ping' && !d.events?.includes(d.type)) {
      await repo.finish(o.db, id, { status: 'failed', attempts, statusCode: null, error: 'event unsubscribed', nextAttemptAt: null });
      return;
    }
    // A first try (or a retry) that comes past the three days, after an outage or behind a backlog, is not sent.
    if (now().getTime() > new Date(d.created_at).getTime() + WEBHOOK_MAX_AGE_MS) {
      await repo.finish(o.db, id, { status: 'failed', attempts: attempts - 1, statusCode: null, error: 'expired', nextAttemptAt: null });
      return;
    }
    const timestamp = Math.floor(now().getTime() / 1000);
    const msgId = webhookId(d.id);
    const sent = await post(
      d.url,
      { 'webhook-id': msgId, 'webhook-timestamp': String(timestamp), 'webhook-signature': sign(d.secret, msgId, timestamp, d.body) },
      d.body,
      { ...send, signal: ctx.signal },
    );
    const statusCode = 'statusCode' in sent ? sent.statusCode : null;
    if (statusCode !== null && statusCode >= 200 && statusCode < 300) {
      // Delivered: recorded even through a short outage of the database, or the job would deliver it again.
      await ctx.persist(() => repo.finish(o.db, id, { status: 'delivered', attempts, statusCode, error: null, nextAttemptAt: null }));
      return;
    }
    const error = 'error' in sent ? sent.error : `HTTP ${statusCode}`;
    const gap = o.retryBaseMs * 2 ** (attempts - 1);
    const next = new Date(now().getTime() + gap);
    if (next.getTime() > new Date(d.created_at).getTime() + WEBHOOK_MAX_AGE_MS) {
      await repo.finish(o.db, id, { status: 'failed', attempts, statusCode, error, nextAttemptAt: null });
      return;
    }
    await repo.finish(o.db, id, { status: 'pending', attempts, statusCode, error, nextAttemptAt: next });
    throw new RetryAfter(gap, error);
    // A delivery is bounded by its timeout (its DNS lookup included): one a stopped process left is taken again a minute after it.
  }, { lane: WEBHOOK_LANE, leaseMs: send.timeoutMs + 60_000 });
}
