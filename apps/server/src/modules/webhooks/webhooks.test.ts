import { createSocket } from 'node:dgram';
import { lookup } from 'node:dns/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { TWO_FACTOR_MESSAGES, type WebhookDelivery } from '@adena/contract';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, type MockInstance, vi } from 'vitest';
import { createUser, createWallet, firstServerId, fund, TEST_TOTP_SECRET } from '../../../test/factories';
import { closeServer, listen, readBody } from '../../../test/fakes/http';
import { startSmtp } from '../../../test/fakes/smtp';
import { waitFor } from '../../../test/fakes/wait-for';
import { createTestApp, DB_KINDS, gate, type TestApp } from '../../../test/harness';
import { hashPassword } from '../../lib/password';
import { hashToken, newToken } from '../../lib/tokens';
import { jobsRepository } from '../jobs/jobs.repository';
import { createJobs, type JobContext, type JobHandler, type JobQueue } from '../jobs/jobs.service';
import { totpCode } from '../two-factor/totp';
import { isPrivateAddress, parseHosts, refusedAtSetup, type Resolve } from './address-guard';
import { registerWebhookDelivery, WEBHOOK_JOB, WEBHOOK_WORKERS } from './webhook-delivery';
import { createWebhooksService, WEBHOOK_TESTS } from './webhooks.service';

const KK = 1_000_000;
const BASE = 5000;
type Player = Awaited<ReturnType<typeof createUser>>;
interface Hit {
  at: number;
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** A local receiver whose answer each test sets; it records every request with the test clock's time. */
function receiver(clock: () => number) {
  const hits: Hit[] = [];
  let answer: (req: IncomingMessage, res: ServerResponse, n: number) => void = (_q, res) => res.end('ok');
  const server: Server = createServer(async (req, res) => {
    const body = await readBody(req);
    hits.push({ at: clock(), url: req.url ?? '', headers: req.headers as Record<string, string>, body });
    answer(req, res, hits.length);
  });
  return {
    hits,
    server,
    answerWith(fn: typeof answer) {
      answer = fn;
    },
  };
}

describe('webhook deliveries against a local receiver (pglite)', () => {
  let t: TestApp;
  let serverId: number;
  let nowMs = Date.now();
  const clock = () => nowMs;
  const rx = receiver(clock);
  let base = '';
  let queue: JobQueue;

  const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, who: Player, payload?: unknown) =>
    t.app.inject({ method, url, headers: who.auth, ...(payload === undefined ? {} : { payload: payload as object }) });
  const setWebhook = async (who: Player, events: string[], path = '/hook') => {
    const res = await call('PUT', '/api/webhook', who, { url: `${base}${path}`, events });
    expect(res.statusCode).toBe(200);
    return res.json() as { url: string; events: string[]; secret: string };
  };
  const log = async (who: Player) => (await call('GET', '/api/webhook/deliveries', who)).json() as WebhookDelivery[];

  beforeAll(async () => {
    t = await createTestApp('pglite', { env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
    serverId = await firstServerId(t.db.kysely);
    base = await listen(rx.server);
    // The app's own worker runs only while it listens; this queue runs the same handler on a clock the test moves.
    queue = createJobs({ db: t.db.kysely, dbNow: () => new Date(nowMs) });
    // 2 s to answer: the in-process receiver answers in milliseconds, but a loaded machine may stall for hundreds.
    registerWebhookDelivery(queue, { db: t.db.kysely, retryBaseMs: BASE, allowPrivate: true, timeoutMs: 2_000, now: () => new Date(nowMs) });
  });
  afterAll(async () => {
    await closeServer(rx.server);
    await t.close();
  });
  beforeEach(async () => {
    rx.hits.length = 0;
    rx.answerWith((_q, res) => res.end('ok'));
    // A minute ahead of the app's own clock, which stamps the jobs it enqueues: however long a test takes
    // to set up (tens of requests on a loaded machine), what it enqueued is due on the test's clock.
    nowMs = Date.now() + 60_000;
    await t.db.kysely.deleteFrom('jobs').execute();
  });
  afterEach(() => rx.answerWith((_q, res) => res.end('ok')));

  it('delivers code.activated signed by the Standard Webhooks rules, and the signature verifies', async () => {
    const seller = await createUser(t.db.kysely);
    const buyer = await createUser(t.db.kysely);
    const wallet = await createWallet(t.db.kysely, seller.id, serverId);
    await fund(t.db.kysely, wallet, 100n * BigInt(KK));
    const hook = await setWebhook(seller, ['code.activated']);
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(hook.secret.slice(6), 'base64').length).toBeGreaterThanOrEqual(24);

    const issued = (await call('POST', '/api/show_code/', seller, { gamesserver_id: serverId, nominal: KK, wallet_id: wallet.id })).json();
    await call('POST', `/api/codes/${issued.code_id}/cancel`, seller); // code.cancelled is not chosen: nothing is written
    const second = (await call('POST', '/api/show_code/', seller, { gamesserver_id: serverId, nominal: 2 * KK, wallet_id: wallet.id })).json();
    expect((await call('POST', '/api/activation_code/', buyer, { sert: second.sert })).statusCode).toBe(200);

    nowMs = Date.now();
    await queue.runDue();
    expect(rx.hits).toHaveLength(1);
    const hit = rx.hits[0]!;
    const verified = new Webhook(hook.secret).verify(hit.body, hit.headers) as { type: string; timestamp: string; data: { code: Record<string, unknown> } };
    expect(verified.type).toBe('code.activated');
    expect(verified.data.code).toMatchObject({ id: second.code_id, nominal: 2 * KK, status: 'activated' });
    expect(verified.data.code).not.toHaveProperty('sert');
    expect(hit.headers['webhook-id']).toMatch(/^msg_\d+$/);
    // A forged body does not verify with the same headers.
    expect(() => new Webhook(hook.secret).verify(hit.body.replace('activated', 'cancelled'), hit.headers)).toThrow();
    const [d] = await log(seller);
    expect(d).toMatchObject({ type: 'code.activated', status: 'delivered', attempts: 1, last_status_code: 200, next_attempt_at: null });
    expect(await log(seller)).toHaveLength(1);
  });

  it('retries a receiver answering 500 twice with growing gaps, delivers the third time and never again', async () => {
    const seller = await createUser(t.db.kysely);
    await setWebhook(seller, ['code.activated']);
    rx.answerWith((_q, res, n) => {
      res.statusCode = n <= 2 ? 500 : 200;
      res.end();
    });
    expect((await call('POST', '/api/webhook/test', seller)).statusCode).toBe(200);
    await queue.runDue();
    expect(rx.hits).toHaveLength(1);
    const first = (await log(seller))[0]!;
    expect(first).toMatchObject({ type: 'ping', status: 'pending', attempts: 1, last_status_code: 500 });
    expect(new Date(first.next_attempt_at!).getTime()).toBe(rx.hits[0]!.at + BASE);

    nowMs = rx.hits[0]!.at + BASE - 1;
    await queue.runDue();
    expect(rx.hits).toHaveLength(1);
    nowMs = rx.hits[0]!.at + BASE;
    await queue.runDue();
    expect(rx.hits).toHaveLength(2);
    const second = (await log(seller))[0]!;
    expect(second).toMatchObject({ status: 'pending', attempts: 2, last_status_code: 500 });
    const gap2 = new Date(second.next_attempt_at!).getTime() - rx.hits[1]!.at;
    expect(gap2).toBeGreaterThanOrEqual(2 * BASE);

    nowMs = rx.hits[1]!.at + gap2 - 1;
    await queue.runDue();
    expect(rx.hits).toHaveLength(2);
    nowMs = rx.hits[1]!.at + gap2;
    await queue.runDue();
    expect(rx.hits).toHaveLength(3);
    expect((await log(seller))[0]).toMatchObject({ status: 'delivered', attempts: 3, last_status_code: 200, next_attempt_at: null });
    const [a, b, c] = rx.hits;
    expect(c!.at - b!.at).toBeGreaterThanOrEqual(2 * (b!.at - a!.at));
    expect(new Set(rx.hits.map((h) => h.headers['webhook-id'])).size).toBe(1);

    nowMs += 4 * 24 * 60 * 60_000;
    await queue.runDue();
    expect(rx.hits).toHaveLength(3);
  });

  it('gives up three days after the event', async () => {
    const seller = await createUser(t.db.kysely);
    await setWebhook(seller, ['ping']);
    rx.answerWith((_q, res) => {
      res.statusCode = 503;
      res.end();
    });
    await call('POST', '/api/webhook/test', seller);
    const start = nowMs;
    for (let i = 0; i < 40 && (await log(seller))[0]!.status === 'pending'; i++) {
      const next = (await log(seller))[0]!.next_attempt_at;
      nowMs = Math.max(nowMs, new Date(next!).getTime());
      await queue.runDue();
    }
    const d = (await log(seller))[0]!;
    expect(d.status).toBe('failed');
    expect(rx.hits.at(-1)!.at - start).toBeLessThanOrEqual(3 * 24 * 60 * 60_000);
    const n = rx.hits.length;
    nowMs += 10 * 24 * 60 * 60_000;
    await queue.runDue();
    expect(rx.hits).toHaveLength(n);
  });

  it('does not send an event whose first try comes more than three days after it (every process was down)', async () => {
    const seller = await createUser(t.db.kysely);
    await setWebhook(seller, ['ping']);
    await call('POST', '/api/webhook/test', seller);
    nowMs += 4 * 24 * 60 * 60_000;
    await queue.runDue();
    expect(rx.hits).toHaveLength(0);
    expect((await log(seller))[0]).toMatchObject({ status: 'failed', attempts: 0 });
  });

  it('counts a receiver that does not answer in time as a failure', async () => {
    const seller = await createUser(t.db.kysely);
    await setWebhook(seller, ['ping']);
    rx.answerWith(() => {}); // never answers
    await call('POST', '/api/webhook/test', seller);
    await queue.runDue();
    expect(rx.hits).toHaveLength(1);
    const d = (await log(seller))[0]!;
    expect(d).toMatchObject({ status: 'pending', attempts: 1, last_status_code: null });
    const row = await t.db.kysely.selectFrom('webhook_deliveries').select('last_error').where('id', '=', BigInt(d.id)).executeTakeFirstOrThrow();
    expect(row.last_error).toMatch(/timeout/);
  });

  it('does not send what the seller has since unsubscribed from, nor what was waiting when they removed the endpoint', async () => {
    const seller = await createUser(t.db.kysely);
    const admin = await createUser(t.db.kysely, { admin: true });
    await createWallet(t.db.kysely, seller.id, serverId);
    await setWebhook(seller, ['request.completed', 'request.rejected']);
    const open = async () =>
      (await call('POST', '/api/up_balance_user/', seller, { gamesserver_id: serverId, amount: 3 * KK, currency_type: 1 })).json().success.id as number;
    const a = await open();
    expect((await call('POST', `/api/admin/requests/${a}/complete`, admin, {})).statusCode).toBe(200);
    // Queued, then the seller keeps only rejections: the completion is not sent.
    await setWebhook(seller, ['request.rejected']);
    await queue.runDue();
    expect(rx.hits).toEqual([]);
    expect((await log(seller))[0]).toMatchObject({ type: 'request.completed', status: 'failed' });
    // Queued, then the endpoint is removed and another set: the old event does not go to the new one.
    const b = await open();
    expect((await call('POST', `/api/admin/requests/${b}/reject`, admin, { reason: 'Нет перевода' })).statusCode).toBe(200);
    expect((await call('DELETE', '/api/webhook', seller)).statusCode).toBe(200);
    await setWebhook(seller, ['request.rejected'], '/new-hook');
    await queue.runDue();
    expect(rx.hits).toEqual([]);
    expect((await log(seller)).map((d) => d.status)).toEqual(['failed', 'failed']);
  });

  it('does not follow a redirect', async () => {
    const seller = await createUser(t.db.kysely);
    await setWebhook(seller, ['ping'], '/moved');
    rx.answerWith((req, res) => {
      if (req.url === '/moved') {
        res.writeHead(307, { location: `${base}/elsewhere` });
        return res.end();
      }
      res.end('ok');
    });
    await call('POST', '/api/webhook/test', seller);
    await queue.runDue();
    expect(rx.hits.map((h) => h.url)).toEqual(['/moved']);
    expect((await log(seller))[0]).toMatchObject({ status: 'pending', last_status_code: 307 });
  });

  it('reports request.completed and request.rejected to the player who made the request', async () => {
    const player = await createUser(t.db.kysely);
    const admin = await createUser(t.db.kysely, { admin: true });
    await createWallet(t.db.kysely, player.id, serverId);
    await setWebhook(player, ['request.completed', 'request.rejected']);
    const open = async () => (await call('POST', '/api/up_balance_user/', player, { gamesserver_id: serverId, amount: 3 * KK, currency_type: 1 })).json().success.id as number;
    const a = await open();
    const b = await open();
    expect((await call('POST', `/api/admin/requests/${a}/complete`, admin, {})).statusCode).toBe(200);
    expect((await call('POST', `/api/admin/requests/${b}/reject`, admin, { reason: 'Нет перевода' })).statusCode).toBe(200);
    await queue.runDue();
    const bodies = rx.hits.map((h) => JSON.parse(h.body) as { type: string; data: { request: { id: number; status: string } } });
    expect(bodies.map((x) => [x.type, x.data.request.id, x.data.request.status])).toEqual([
      ['request.completed', a, 'completed'],
      ['request.rejected', b, 'rejected'],
    ]);
  });

  it('keeps each user\u2019s webhook and log to themselves', async () => {
    const owner = await createUser(t.db.kysely);
    const stranger = await createUser(t.db.kysely);
    await setWebhook(owner, ['ping']);
    await call('POST', '/api/webhook/test', owner);
    expect((await call('GET', '/api/webhook', stranger)).json()).toBeNull();
    expect(await log(stranger)).toEqual([]);
    expect((await call('POST', '/api/webhook/test', stranger)).statusCode).toBe(404);
    expect((await call('POST', '/api/webhook/rotate', stranger)).statusCode).toBe(404);
    expect((await call('DELETE', '/api/webhook', stranger)).statusCode).toBe(404);
    expect((await call('GET', '/api/webhook', owner)).json()).toMatchObject({ url: `${base}/hook`, events: ['ping'] });
    expect(JSON.stringify((await call('GET', '/api/webhook', owner)).json())).not.toContain('whsec_');
    expect((await t.app.inject({ method: 'GET', url: '/api/webhook/deliveries' })).statusCode).toBe(401);
  });

  it('caps test pings per user (each may hold a job worker against a silent receiver); another user still tests', async () => {
    const spammer = await createUser(t.db.kysely);
    await setWebhook(spammer, ['ping']);
    const answers = [];
    for (let i = 0; i < WEBHOOK_TESTS.limit + 3; i++) answers.push(await call('POST', '/api/webhook/test', spammer));
    expect(answers.slice(0, WEBHOOK_TESTS.limit).map((r) => r.statusCode)).toEqual(Array(WEBHOOK_TESTS.limit).fill(200));
    for (const refused of answers.slice(WEBHOOK_TESTS.limit)) {
      expect(refused.statusCode).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    }
    // Nothing more was queued than the cap allowed.
    expect(await log(spammer)).toHaveLength(WEBHOOK_TESTS.limit);
    const seller = await createUser(t.db.kysely);
    await setWebhook(seller, ['ping']);
    expect((await call('POST', '/api/webhook/test', seller)).statusCode).toBe(200);
  });

  it('rotates the secret: later deliveries verify with the new one only', async () => {
    const seller = await createUser(t.db.kysely);
    const old = await setWebhook(seller, ['ping']);
    const again = await setWebhook(seller, ['ping', 'code.activated']);
    expect(again.secret).toBe(old.secret);
    const { secret } = (await call('POST', '/api/webhook/rotate', seller)).json() as { secret: string };
    expect(secret).not.toBe(old.secret);
    await call('POST', '/api/webhook/test', seller);
    nowMs = Date.now();
    await queue.runDue();
    const hit = rx.hits[0]!;
    expect(new Webhook(secret).verify(hit.body, hit.headers)).toMatchObject({ type: 'ping' });
    expect(() => new Webhook(old.secret).verify(hit.body, hit.headers)).toThrow();
  });

  it('answers bad webhook settings with Russian 422s', async () => {
    const seller = await createUser(t.db.kysely);
    const ftp = await call('PUT', '/api/webhook', seller, { url: 'ftp://example.com/x', events: ['ping'] });
    expect(ftp.statusCode).toBe(422);
    expect(ftp.json().errors.url[0]).toMatch(/http/);
    const none = await call('PUT', '/api/webhook', seller, { url: 'https://example.com/x', events: [] });
    expect(none.json().errors.events[0]).toMatch(/событие/);
    const unknown = await call('PUT', '/api/webhook', seller, { url: 'https://example.com/x', events: ['code.stolen'] });
    expect(unknown.statusCode).toBe(422);
    // A NUL or a direction mark in the address: refused on its field, and nothing was stored.
    for (const url of ['https://example.com/\u0000', 'https://example.com/\u202Ex']) {
      const res = await call('PUT', '/api/webhook', seller, { url, events: ['ping'] });
      expect(res.statusCode, url).toBe(422);
      expect(res.json().errors.url[0]).toBe('Уберите невидимые и управляющие символы');
    }
    expect((await call('GET', '/api/webhook', seller)).json()).toBeNull();
  });
});

describe('webhook addresses without WEBHOOK_ALLOW_PRIVATE (pglite)', () => {
  let t: TestApp;
  let nowMs = Date.now();
  const rx = receiver(() => nowMs);
  let port = 0;

  beforeAll(async () => {
    t = await createTestApp('pglite');
    port = Number(new URL(await listen(rx.server)).port);
  });
  afterAll(async () => {
    await closeServer(rx.server);
    await t.close();
  });

  it('refuses loopback and private address literals and localhost when the URL is set', async () => {
    const seller = await createUser(t.db.kysely);
    for (const url of [`http://127.0.0.1:${port}/`, 'http://10.0.0.5/', 'http://192.168.1.1/', 'http://169.254.169.254/latest', 'http://[::1]/', 'http://localhost/', 'http://[::ffff:127.0.0.1]/']) {
      const res = await t.app.inject({ method: 'PUT', url: '/api/webhook', headers: seller.auth, payload: { url, events: ['ping'] } });
      expect(res.statusCode, url).toBe(422);
      expect(res.json().errors.url[0]).toMatch(/внутренней сети/);
    }
  });

  it('refuses when it is set a name that resolves to a private address now; a name that does not resolve yet is left to delivery', async () => {
    const seller = await createUser(t.db.kysely);
    const caller = { user: await t.db.kysely.selectFrom('users').selectAll().where('id', '=', seller.id).executeTakeFirstOrThrow(), sessionId: null, ip: null };
    const answers: Record<string, string[]> = { 'localhost.': ['127.0.0.1'], 'mixed.example': ['93.184.216.34', '10.0.0.7'], 'hooks.example': ['93.184.216.34'] };
    const resolve: Resolve = async (host) => {
      const found = answers[host];
      if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      return found.map((address) => ({ address, family: 4 }));
    };
    const webhooks = createWebhooksService({ db: t.db.kysely, jobs: { enqueue: async () => null, wake: () => {} }, allowPrivate: false, resolve });
    for (const host of ['localhost.', 'mixed.example']) {
      const refused = webhooks.put(caller, { url: `https://${host}/hook`, events: ['ping'] });
      await expect(refused).rejects.toMatchObject({ code: 'VALIDATION', options: { errors: { url: [expect.stringMatching(/внутренней сети/)] } } });
    }
    expect(await t.db.kysely.selectFrom('webhooks').select('url').where('user_id', '=', seller.id).execute()).toEqual([]);
    expect((await webhooks.put(caller, { url: 'https://hooks.example/hook', events: ['ping'] })).url).toBe('https://hooks.example/hook');
    expect((await webhooks.put(caller, { url: 'https://not-yet.example/hook', events: ['ping'] })).url).toBe('https://not-yet.example/hook');
  });

  it('saves no endpoint for a session a recovery ended while the name was being looked up', async () => {
    const seller = await createUser(t.db.kysely);
    const user = await t.db.kysely.selectFrom('users').selectAll().where('id', '=', seller.id).executeTakeFirstOrThrow();
    const session = await t.db.kysely.selectFrom('tokens').select('id').where('user_id', '=', seller.id).where('kind', '=', 'access').executeTakeFirstOrThrow();
    const lookingUp = gate();
    const answered = gate();
    const resolve: Resolve = async () => {
      lookingUp.open();
      await answered.opened;
      return [{ address: '93.184.216.34', family: 4 }];
    };
    const webhooks = createWebhooksService({ db: t.db.kysely, jobs: { enqueue: async () => null, wake: () => {} }, allowPrivate: false, resolve });
    const saving = webhooks.put({ user, sessionId: session.id, ip: null }, { url: 'https://thief.example/hook', events: ['code.activated'] });
    await lookingUp.opened;
    // The owner's reset (or an operator's block of the stolen account) ends the session meanwhile.
    await t.db.kysely.deleteFrom('tokens').where('id', '=', session.id).execute();
    answered.open();
    await expect(saving).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    expect(await t.db.kysely.selectFrom('webhooks').select('url').where('user_id', '=', seller.id).execute()).toEqual([]);
  });

  it('refuses at delivery time a name that resolves to a private address, and sends nothing', async () => {
    const seller = await createUser(t.db.kysely);
    // When it was saved, the name resolved to a public address only (its answer changes later: DNS rebinding).
    const caller = { user: await t.db.kysely.selectFrom('users').selectAll().where('id', '=', seller.id).executeTakeFirstOrThrow(), sessionId: null, ip: null };
    const saving = createWebhooksService({ db: t.db.kysely, jobs: { enqueue: async () => null, wake: () => {} }, allowPrivate: false, resolve: async () => [{ address: '93.184.216.34', family: 4 }] });
    await saving.put(caller, { url: `http://receiver.test:${port}/hook`, events: ['ping'] });
    const resolve: Resolve = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ];
    nowMs = Date.now() + 60_000;
    const queue = createJobs({ db: t.db.kysely, dbNow: () => new Date(nowMs) });
    registerWebhookDelivery(queue, { db: t.db.kysely, retryBaseMs: BASE, allowPrivate: false, resolve, now: () => new Date(nowMs) });
    await t.app.inject({ method: 'POST', url: '/api/webhook/test', headers: seller.auth });
    await queue.runDue();
    expect(rx.hits).toHaveLength(0);
    const row = await t.db.kysely.selectFrom('webhook_deliveries').selectAll().where('user_id', '=', seller.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'pending', attempts: 1, last_status_code: null });
    expect(row.last_error).toMatch(/private address 127\.0\.0\.1/);
  });

  it('classifies addresses', () => {
    for (const a of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.0.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fd00::1', 'fe80::1', '::ffff:10.0.0.1', '224.0.0.1']) {
      expect(isPrivateAddress(a), a).toBe(true);
    }
    // Addresses that carry an IPv4 one inside: 6to4 (2002::/16) and its relays (192.88.99.0/24), Teredo (2001::/32), IPv4-compatible (::/96), NAT64 (64:ff9b::/96, 64:ff9b:1::/48),
    // and IPv4-mapped in the hex form the URL parser writes ([::ffff:127.0.0.1] becomes [::ffff:7f00:1]).
    for (const a of ['2002:7f00:1::', '2002:a9fe:a9fe::1', '::7f00:1', '::a00:1', '::127.0.0.1', '64:ff9b::7f00:1', '64:ff9b:1::a00:1', '::ffff:7f00:1', '::ffff:0:7f00:1', 'fec0::1', '2001:0:7f00:1::1', '192.88.99.1']) {
      expect(isPrivateAddress(a), a).toBe(true);
    }
    for (const a of ['http://[2002:7f00:1::]/hook', 'http://[::7f00:1]/hook', 'http://[::ffff:127.0.0.1]/hook', 'http://[64:ff9b::a9fe:a9fe]/', 'http://[::ffff:0:7f00:1]/', 'http://[fec0::1]/']) {
      expect(refusedAtSetup(new URL(a)), a).toBe(true);
    }
    for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8', '2001:4860:4860::8888']) expect(isPrivateAddress(a), a).toBe(false);
  });
});

describe('the test ping (pglite)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp('pglite', { env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
  });
  afterAll(() => t.close());

  it('writes the delivery and its job together: when the job cannot be written, no delivery is left that nothing would send', async () => {
    const seller = await createUser(t.db.kysely);
    const put = await t.app.inject({ method: 'PUT', url: '/api/webhook', headers: seller.auth, payload: { url: 'http://127.0.0.1:9/hook', events: ['code.activated'] } });
    expect(put.statusCode).toBe(200);
    const broken = createWebhooksService({
      db: t.db.kysely,
      allowPrivate: true,
      jobs: {
        wake: () => {},
        enqueue: async () => {
          throw new Error('the job queue is down');
        },
      },
    });
    const caller = { user: (await t.db.kysely.selectFrom('users').selectAll().where('id', '=', seller.id).executeTakeFirstOrThrow()), sessionId: null, ip: null };
    await expect(broken.test(caller)).rejects.toThrow(/job queue is down/);
    expect(await t.db.kysely.selectFrom('webhook_deliveries').select('id').where('user_id', '=', seller.id).execute()).toEqual([]);
    // The real one writes both.
    const sent = await t.app.inject({ method: 'POST', url: '/api/webhook/test', headers: seller.auth });
    expect(sent.statusCode).toBe(200);
    const jobs = await t.db.kysely.selectFrom('jobs').select(['payload']).where('kind', '=', WEBHOOK_JOB).execute();
    expect(jobs.map((j) => (j.payload as { id: string }).id)).toContain(String(sent.json().id));
  });
});

/**
 * Tried as an attacker would: sellers point their webhooks at a server that never answers and send
 * test pings, each of which holds a delivery worker for up to WEBHOOK_TIMEOUT_MS. The victim is a
 * player signing up at that moment: the code still arrives at once, because mail and SMS codes have
 * workers of their own (the queue's lanes), not the ones the pings hold.
 */
describe.each(DB_KINDS)('sellers’ silent webhooks and a player’s sign-up code on %s', (kind) => {
  let t: TestApp;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  const silent = createServer(() => {}); // reads each request and never answers
  let base = '';
  let held = 0;
  silent.on('request', () => {
    held += 1;
  });
  beforeAll(async () => {
    [smtp, base] = await Promise.all([startSmtp(), listen(silent)]);
    // Pings wait a minute for the silent receiver: none gives its worker back while the test runs, however slow the machine.
    t = await createTestApp(kind, {
      env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_TIMEOUT_MS: '60000', SMTP_URL: smtp.url, MAIL_FROM: 'Кошелёк Тест <no-reply@adena.test>' },
    });
    await t.app.deps.jobs.start();
  });
  afterAll(async () => {
    await closeServer(silent);
    await t?.close();
    await smtp?.close();
  });

  it('sends the sign-up code while every webhook worker waits on a silent receiver', async () => {
    // Five sellers (one seller's deliveries take one worker at a time), two pings each.
    for (let s = 0; s < WEBHOOK_WORKERS + 1; s++) {
      const seller = await createUser(t.db.kysely);
      const put = await t.app.inject({ method: 'PUT', url: '/api/webhook', headers: seller.auth, payload: { url: `${base}/hook`, events: ['ping'] } });
      expect(put.statusCode).toBe(200);
      for (let i = 0; i < 2; i++) expect((await t.app.inject({ method: 'POST', url: '/api/webhook/test', headers: seller.auth })).statusCode).toBe(200);
    }
    // Every webhook worker of the process now holds a ping the receiver will never answer.
    await waitFor(() => (held >= WEBHOOK_WORKERS ? true : undefined), 'the webhook workers to be busy');
    const email = `victim.${Date.now()}@example.com`;
    const start = await t.app.inject({
      method: 'POST',
      url: '/api/email_register',
      remoteAddress: '10.9.8.7',
      payload: { email, password: 'correct horse 1', password_confirmation: 'correct horse 1' },
    });
    expect(start.statusCode).toBe(200);
    const mail = await smtp.next(email);
    expect(mail.code).toMatch(/^\d{6}$/);
    // The pings were still held when the code went out: none has been answered or timed out yet.
    expect(held).toBe(WEBHOOK_WORKERS);
    const finished = await t.db.kysely.selectFrom('webhook_deliveries').select('id').where('attempts', '>', 0).execute();
    expect(finished).toEqual([]);
  });
});

/**
 * Tried as an attacker would: one seller whose receiver never answers queues many events (test
 * pings here; cancelled codes would do the same). The victim is another seller: their event is
 * delivered at once, because one seller's deliveries take one worker at a time.
 */
describe.each(DB_KINDS)('one seller\u2019s silent receiver and another seller\u2019s events on %s', (kind) => {
  let t: TestApp;
  const silent = createServer(() => {});
  let held = 0;
  silent.on('request', () => {
    held += 1;
  });
  const live: string[] = [];
  const answering = createServer(async (req, res) => {
    live.push(await readBody(req));
    res.end('ok');
  });
  let silentBase = '';
  let liveBase = '';
  beforeAll(async () => {
    [silentBase, liveBase] = await Promise.all([listen(silent), listen(answering)]);
    t = await createTestApp(kind, { env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_TIMEOUT_MS: '60000' } });
    await t.app.deps.jobs.start();
  });
  afterAll(async () => {
    await closeServer(silent);
    await closeServer(answering);
    await t?.close();
  });

  it('delivers the other seller\u2019s event while the silent one holds a single worker', async () => {
    const put = async (who: Awaited<ReturnType<typeof createUser>>, url: string) =>
      expect((await t.app.inject({ method: 'PUT', url: '/api/webhook', headers: who.auth, payload: { url, events: ['ping'] } })).statusCode).toBe(200);
    const ping = async (who: Awaited<ReturnType<typeof createUser>>) =>
      expect((await t.app.inject({ method: 'POST', url: '/api/webhook/test', headers: who.auth })).statusCode).toBe(200);
    const flooder = await createUser(t.db.kysely);
    await put(flooder, `${silentBase}/hook`);
    for (let i = 0; i < 6; i++) await ping(flooder);
    await waitFor(() => (held >= 1 ? true : undefined), 'the first silent delivery');
    const seller = await createUser(t.db.kysely);
    await put(seller, `${liveBase}/hook`);
    await ping(seller);
    await waitFor(() => (live.length === 1 ? true : undefined), 'the other seller\u2019s ping');
    expect(JSON.parse(live[0]!).type).toBe('ping');
    // Its receiver has it; the delivery ends once the answer is back and recorded (the next test stops the queue).
    const recorded = async () =>
      (await t.db.kysely.selectFrom('webhook_deliveries').select('status').where('user_id', '=', seller.id).executeTakeFirst())?.status === 'delivered' || undefined;
    await waitFor(recorded, 'the other seller\u2019s delivery recorded');
    // The flooder's other pings wait for their own one worker; they did not take the rest.
    expect(held).toBe(1);
  });

  it('lets go of a delivery in flight when the process stops: no job is left to wait out its lease', async () => {
    const started = Date.now();
    await t.app.deps.jobs.stop();
    expect(Date.now() - started).toBeLessThan(4_800); // under the stop's 5 s grace: the handler ended at once
    const running = await t.db.kysely.selectFrom('jobs').select('id').where('kind', '=', WEBHOOK_JOB).where('state', '=', 'running').execute();
    expect(running).toEqual([]);
    const retried = await t.db.kysely.selectFrom('webhook_deliveries').select(['status', 'last_error']).where('last_error', 'like', '%stopping%').execute();
    expect(retried).toEqual([{ status: 'pending', last_error: 'the process was stopping' }]);
  });
});


/** The name a DNS question asks (the first question of the message). */
function questionName(message: Buffer) {
  const labels: string[] = [];
  for (let i = 12; i < message.length && message[i]! > 0; i += message[i]! + 1) labels.push(message.toString('latin1', i + 1, i + 1 + message[i]!));
  return labels.join('.');
}

/**
 * Tried as an attacker would: sellers point their webhooks at names whose DNS server never answers.
 * A delivery looks its name up through the DNS client (c-ares, on the event loop), not getaddrinfo,
 * which runs on libuv's thread pool with two threads for such work: four stalled lookups there held
 * both, and every other lookup of the process (another seller's delivery, fetch to Telegram, Discord
 * or SMS) waited behind them.
 */
describe.each(DB_KINDS)('sellers\u2019 names whose DNS never answers and everyone else\u2019s lookups on %s', (kind) => {
  let t: TestApp;
  // A DNS server that reads every question and never answers.
  const dns = createSocket('udp4');
  const asked = new Set<string>();
  dns.on('message', (message) => asked.add(questionName(message)));
  const live: string[] = [];
  const answering = createServer(async (req, res) => {
    live.push(await readBody(req));
    res.end('ok');
  });
  let livePort = 0;
  let deliver: JobHandler<{ id: string }> | undefined;
  const ctx = (): JobContext => ({ id: 0n, kind: WEBHOOK_JOB, attempt: 1, signal: new AbortController().signal, persist: (write) => write() });
  const TIMEOUT_MS = 6_000;

  beforeAll(async () => {
    await new Promise<void>((resolve) => dns.bind(0, '127.0.0.1', resolve));
    livePort = Number(new URL(await listen(answering)).port);
    t = await createTestApp(kind, { env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
    // The handler itself, run by the test: the stalled deliveries would take every worker of a real queue.
    const jobs = {
      register: (_kind: string, handler: JobHandler<{ id: string }>) => {
        deliver = handler;
      },
    } as Pick<JobQueue, 'register'>;
    registerWebhookDelivery(jobs, { db: t.db.kysely, retryBaseMs: BASE, allowPrivate: true, timeoutMs: TIMEOUT_MS, dnsServers: [`127.0.0.1:${dns.address().port}`] });
  });
  afterAll(async () => {
    dns.close();
    await closeServer(answering);
    await t?.close();
  });

  it('delivers another seller\u2019s event to a name from /etc/hosts, and the process\u2019s own lookups go, while four deliveries wait on DNS', async () => {
    const pingTo = async (url: string) => {
      const seller = await createUser(t.db.kysely);
      expect((await t.app.inject({ method: 'PUT', url: '/api/webhook', headers: seller.auth, payload: { url, events: ['ping'] } })).statusCode).toBe(200);
      const sent = await t.app.inject({ method: 'POST', url: '/api/webhook/test', headers: seller.auth });
      expect(sent.statusCode).toBe(200);
      return String(sent.json().id);
    };
    const names = [1, 2, 3, 4].map((n) => `hooks-${n}.never-answers.test`);
    const stalledIds = [];
    for (const name of names) stalledIds.push(await pingTo(`http://${name}:${livePort}/hook`));
    // `localhost` is in /etc/hosts, which the DNS client does not read: the delivery reads it itself.
    const liveId = await pingTo(`http://localhost:${livePort}/hook`);

    const ended: string[] = [];
    const stalled = stalledIds.map((id) => deliver!({ id }, ctx()).then(
      () => ended.push(`stalled ${id}`),
      () => ended.push(`stalled ${id}`),
    ));
    // Every stalled delivery's question is with the silent server (not with getaddrinfo).
    await waitFor(() => (names.every((n) => asked.has(n)) ? true : undefined), 'the four names asked of the silent DNS server');
    await lookup('localhost');
    ended.push('lookup');
    await deliver!({ id: liveId }, ctx());
    ended.push('delivered');
    expect(live).toHaveLength(1);
    expect(JSON.parse(live[0]!).type).toBe('ping');
    // Both came before any stalled delivery ended.
    expect(ended).toEqual(['lookup', 'delivered']);

    // Each stalled one ends within its timeout, the lookup included: a failed try, retried later.
    await Promise.all(stalled);
    const rows = await t.db.kysely.selectFrom('webhook_deliveries').select(['id', 'status', 'attempts', 'last_error']).where('id', 'in', [...stalledIds, liveId].map(BigInt)).orderBy('id').execute();
    expect(rows.map((r) => r.status)).toEqual(['pending', 'pending', 'pending', 'pending', 'delivered']);
    for (const r of rows.slice(0, 4)) {
      expect(r.attempts).toBe(1);
      expect(r.last_error).toMatch(new RegExp(`timeout after ${TIMEOUT_MS} ms|ETIMEOUT`));
    }
  });
});

describe('the hosts file a delivery reads', () => {
  it('gives each name its addresses as getaddrinfo would: aliases, any case, IPv6, comments and junk skipped', () => {
    const names = parseHosts(
      ['127.0.0.1\tlocalhost', '::1 localhost ip6-localhost # loopback', '# 10.0.0.9 commented', '', '  172.18.0.5  Receiver receiver.internal', 'not-an-address skipped', '172.18.0.5 receiver'].join('\n'),
    );
    expect(names.get('localhost')).toEqual([
      { address: '127.0.0.1', family: 4 },
      { address: '::1', family: 6 },
    ]);
    expect(names.get('receiver')).toEqual([{ address: '172.18.0.5', family: 4 }]);
    expect(names.get('receiver.internal')).toEqual([{ address: '172.18.0.5', family: 4 }]);
    expect(names.has('skipped')).toBe(false);
    expect(names.has('commented')).toBe(false);
    expect([...names.keys()].sort()).toEqual(['ip6-localhost', 'localhost', 'receiver', 'receiver.internal']);
  });
});

describe.each(DB_KINDS)('a TOTP seller\u2019s webhook secret on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind, { env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
  });
  afterAll(() => t.close());

  it('setting the endpoint and rotating its secret ask for the code: a stolen session neither reads nor replaces the secret', async () => {
    const seller = await createUser(t.db.kysely, { totp: true });
    await t.db.kysely.updateTable('users').set({ password_hash: await hashPassword('Totp-Pa55word') }).where('id', '=', seller.id).execute();
    const call = (method: 'PUT' | 'POST', url: string, headers: Record<string, string> = {}, payload?: object) =>
      t.app.inject({ method, url, headers: { ...seller.auth, ...headers }, ...(payload ? { payload } : {}) });
    const code = async () => {
      await t.db.kysely.updateTable('users').set({ totp_last_step: null }).where('id', '=', seller.id).execute();
      return { 'x-two-factor-code': totpCode(TEST_TOTP_SECRET, new Date()) };
    };
    const body = { url: 'http://127.0.0.1:9/hook', events: ['code.activated'] };
    const set = await call('PUT', '/api/webhook', await code(), body);
    expect(set.statusCode).toBe(200);
    const secret = set.json().secret as string;
    const stored = async () => (await t.db.kysely.selectFrom('webhooks').select('secret').where('user_id', '=', seller.id).executeTakeFirstOrThrow()).secret;

    // The thief's session, without the code or with a wrong one: 403, no secret in the answer, nothing changed.
    for (const headers of [{}, { 'x-two-factor-code': '000000' }] as Record<string, string>[]) {
      const put = await call('PUT', '/api/webhook', headers, { url: 'http://127.0.0.1:9/thief', events: ['code.activated'] });
      expect(put.statusCode).toBe(403);
      expect(put.json().two_factor_required).toBe(true);
      expect(put.body).not.toContain('whsec_');
      const rotated = await call('POST', '/api/webhook/rotate', headers);
      expect(rotated.statusCode).toBe(403);
      expect(rotated.body).not.toContain('whsec_');
    }
    // The password does not replace the code.
    const withPassword = [
      await call('PUT', '/api/webhook', {}, { url: 'http://127.0.0.1:9/thief', events: ['code.activated'], password: 'Totp-Pa55word' }),
      await call('POST', '/api/webhook/rotate', {}, { password: 'Totp-Pa55word' }),
    ];
    for (const refused of withPassword) {
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toMatchObject({ two_factor_required: true });
      expect(refused.body).not.toContain('whsec_');
    }
    expect(await stored()).toBe(secret);
    expect((await t.app.inject({ method: 'GET', url: '/api/webhook', headers: seller.auth })).json().url).toBe('http://127.0.0.1:9/hook');

    // The owner, with the code, rotates.
    const rotated = await call('POST', '/api/webhook/rotate', await code());
    expect(rotated.statusCode).toBe(200);
    expect(rotated.json().secret).not.toBe(secret);
    expect(await stored()).toBe(rotated.json().secret);
  });
});

describe.each(DB_KINDS)('a seller\u2019s webhook secret without TOTP on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind, { env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
  });
  afterAll(() => t.close());

  const hookOf = (userId: number) => t.db.kysely.selectFrom('webhooks').select(['url', 'events', 'secret']).where('user_id', '=', userId).executeTakeFirstOrThrow();
  const call = (method: 'GET' | 'PUT' | 'POST', url: string, headers: Record<string, string>, payload?: object) =>
    t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });

  it("a stolen access token alone neither reads nor replaces the secret of a password account without TOTP; the owner's password does", async () => {
    const owner = await createUser(t.db.kysely);
    await t.db.kysely.updateTable('users').set({ password_hash: await hashPassword('Owner-Pa55word') }).where('id', '=', owner.id).execute();
    const set = await call('PUT', '/api/webhook', owner.auth, { url: 'http://127.0.0.1:9/hook', events: ['code.activated'], password: 'Owner-Pa55word' });
    expect(set.statusCode).toBe(200);
    const before = await hookOf(owner.id);
    expect(before.secret).toBe(set.json().secret);

    // The thief holds a copy of the owner's session, not the password. Setting the same URL again would
    // answer the secret (to sign fake events to the owner's receiver); another URL would send the owner's
    // orders to the thief's server, and either outlives logout, «Завершить другие сеансы» and a password change.
    for (const [password, message] of [
      [undefined, 'Введите текущий пароль'],
      ['', 'Введите текущий пароль'],
      ['guess-1234', 'Неверный текущий пароль'],
    ] as const) {
      const given = password === undefined ? {} : { password };
      for (const url of ['http://127.0.0.1:9/hook', 'http://127.0.0.1:9/thief']) {
        const put = await call('PUT', '/api/webhook', owner.auth, { url, events: ['code.activated', 'request.completed'], ...given });
        expect(put.statusCode, `${url} ${password}`).toBe(422);
        expect(put.json().errors.password).toEqual([message]);
        expect(put.body).not.toContain('whsec_');
      }
      const rotated = await call('POST', '/api/webhook/rotate', owner.auth, password === undefined ? undefined : given);
      expect(rotated.statusCode, String(password)).toBe(422);
      expect(rotated.json().errors.password).toEqual([message]);
      expect(rotated.body).not.toContain('whsec_');
    }
    const emptyBody = await call('POST', '/api/webhook/rotate', owner.auth, {});
    expect(emptyBody.statusCode).toBe(422);
    expect(emptyBody.json().errors.password).toEqual(['Введите текущий пароль']);
    expect(await hookOf(owner.id)).toEqual(before);
    expect((await call('GET', '/api/webhook', owner.auth)).json()).toMatchObject({ url: 'http://127.0.0.1:9/hook', events: ['code.activated'] });
    // The wrong guesses locked nothing: the owner still signs in with the password.
    expect((await t.app.inject({ method: 'POST', url: '/api/login', payload: { email: owner.email, password: 'Owner-Pa55word' } })).statusCode).toBe(200);

    // The owner, with the password, changes the events (the secret stays) and rotates the secret.
    const changed = await call('PUT', '/api/webhook', owner.auth, { url: 'http://127.0.0.1:9/hook', events: ['code.cancelled'], password: 'Owner-Pa55word' });
    expect(changed.statusCode).toBe(200);
    expect(changed.json()).toEqual({ url: 'http://127.0.0.1:9/hook', events: ['code.cancelled'], secret: before.secret });
    const rotated = await call('POST', '/api/webhook/rotate', owner.auth, { password: 'Owner-Pa55word' });
    expect(rotated.statusCode).toBe(200);
    expect(rotated.json().secret).not.toBe(before.secret);
    expect(await hookOf(owner.id)).toMatchObject({ events: ['code.cancelled'], secret: rotated.json().secret });
  });

  it('an account without a password or TOTP sets the webhook and rotates its secret only from a fresh Discord or Telegram sign-in, not an old or a passkey session', async () => {
    const owner = await createUser(t.db.kysely); // Telegram or Discord only: no password, no TOTP
    const setFreshness = (at: Date) => t.db.kysely.updateTable('tokens').set({ created_at: at }).where('token_hash', '=', hashToken(owner.token)).execute();
    // Signed in a moment ago: no password asked.
    const set = await call('PUT', '/api/webhook', owner.auth, { url: 'http://127.0.0.1:9/hook', events: ['code.activated'] });
    expect(set.statusCode).toBe(200);
    const before = await hookOf(owner.id);

    // The thief's copy of the session is an hour old; a session a passkey made a moment ago is not the
    // account's own sign-in either.
    await setFreshness(new Date(Date.now() - 60 * 60_000));
    const viaPasskey = newToken();
    await t.db.kysely.insertInto('tokens').values({ user_id: owner.id, kind: 'access', token_hash: hashToken(viaPasskey), method: 'passkey' }).execute();
    for (const auth of [owner.auth, { authorization: `Bearer ${viaPasskey}` }]) {
      for (const refused of [
        await call('PUT', '/api/webhook', auth, { url: 'http://127.0.0.1:9/hook', events: ['code.activated'] }),
        await call('PUT', '/api/webhook', auth, { url: 'http://127.0.0.1:9/thief', events: ['code.activated'] }),
        await call('POST', '/api/webhook/rotate', auth),
      ]) {
        expect(refused.statusCode).toBe(403);
        expect(refused.json().message).toBe(TWO_FACTOR_MESSAGES.freshSignInWebhook);
        expect(refused.body).not.toContain('whsec_');
      }
    }
    expect(await hookOf(owner.id)).toEqual(before);

    // The owner signed in again a moment ago: the secret is replaced, no password asked.
    await setFreshness(new Date());
    const rotated = await call('POST', '/api/webhook/rotate', owner.auth);
    expect(rotated.statusCode).toBe(200);
    expect(await hookOf(owner.id)).toMatchObject({ url: 'http://127.0.0.1:9/hook', secret: rotated.json().secret });
    expect(rotated.json().secret).not.toBe(before.secret);
  });
});

describe('«Отправить тест» on a queue that polls rarely (pglite)', () => {
  let t: TestApp;
  let queue: JobQueue;
  const hits: number[] = [];
  const rx = createServer((_q, res) => {
    hits.push(Date.now());
    res.end('ok');
  });
  /** When each look of this queue's workers found nothing due: the worker then sleeps out its poll. */
  const emptyLooks: number[] = [];
  let claims: MockInstance | null = null;
  beforeAll(async () => {
    t = await createTestApp('pglite', { env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
    const base = await listen(rx);
    // Watched from before the workers start, so their first look is seen.
    const claim = jobsRepository.claim;
    claims = vi.spyOn(jobsRepository, 'claim').mockImplementation(async (q, c) => {
      const job = await claim.call(jobsRepository, q, c);
      if (q === t.db.kysely && !job) emptyLooks.push(Date.now());
      return job;
    });
    // Workers that look for due jobs every 20 s unless woken (one: no lanes given, the webhook lane has one).
    queue = createJobs({ db: t.db.kysely, pollMs: 20_000 });
    registerWebhookDelivery(queue, { db: t.db.kysely, retryBaseMs: BASE, allowPrivate: true, timeoutMs: 2_000 });
    await queue.start();
    const seller = await createUser(t.db.kysely);
    await t.db.kysely.insertInto('webhooks').values({ user_id: seller.id, url: `${base}/hook`, events: ['code.activated'], secret: `whsec_${Buffer.alloc(32).toString('base64')}` }).execute();
    sellerId = seller.id;
  });
  let sellerId = 0;
  afterAll(async () => {
    await queue.stop();
    claims?.mockRestore();
    await closeServer(rx);
    await t.close();
  });

  it('sends the ping at once, not at the next poll', async () => {
    // The workers' first look at the empty queue is over: they sleep for 20 s now. Were the ping
    // enqueued before that look, the look would find it and the wake would go untested.
    await vi.waitFor(() => expect(emptyLooks.length).toBeGreaterThan(0), { timeout: 10_000, interval: 20 });
    const asleepFrom = emptyLooks[0]!;
    const user = await t.db.kysely.selectFrom('users').selectAll().where('id', '=', sellerId).executeTakeFirstOrThrow();
    const webhooks = createWebhooksService({ db: t.db.kysely, jobs: queue, allowPrivate: true });
    await webhooks.test({ user, sessionId: null, ip: null } as never);
    await waitFor(async () => (hits.length > 0 ? true : undefined), 'the ping to arrive', 15_000);
    expect(hits).toHaveLength(1);
    // Woken: it came before the sleeping worker's poll would have looked again.
    expect(hits[0]! - asleepFrom).toBeLessThan(20_000);
  });
});
