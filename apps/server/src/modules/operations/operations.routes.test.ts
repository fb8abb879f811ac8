import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../app';
import { createDb } from '../../db/client';
import { createUser, createWallet, firstServerId, fund } from '../../../test/factories';
import { createTestApp, DB_KINDS, holdLocks, lockWaits, type TestApp, testConfig } from '../../../test/harness';
import { freePort } from '../../../test/pg-cluster';

describe.each(DB_KINDS)('operations on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind, { env: { METRICS_PORT: '0' } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => t.close());

  it('health keeps answering { status: "ok" } and ready answers 200 while the database answers', async () => {
    const health = await t.app.inject({ method: 'GET', url: '/api/health' });
    expect(health.json()).toMatchObject({ status: 'ok' });
    const ready = await t.app.inject({ method: 'GET', url: '/api/ready' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready' });
  });

  it('returns the caller’s sane X-Request-Id, replaces an insane one, and makes one when absent', async () => {
    const given = await t.app.inject({ method: 'GET', url: '/api/health', headers: { 'x-request-id': 'lb-42.abc' } });
    expect(given.headers['x-request-id']).toBe('lb-42.abc');
    const insane = await t.app.inject({ method: 'GET', url: '/api/health', headers: { 'x-request-id': 'a b\u0000<script>' } });
    expect(insane.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const made = await t.app.inject({ method: 'GET', url: '/api/health' });
    expect(made.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(made.headers['x-request-id']).not.toBe(insane.headers['x-request-id']);
  });

  it('serves Prometheus metrics on their own port only: requests by route pattern and status, pending requests, movements, jobs', async () => {
    const serverId = await firstServerId(t.db.kysely);
    const user = await createUser(t.db.kysely);
    const wallet = await createWallet(t.db.kysely, user.id, serverId, 'Metric');
    await fund(t.db.kysely, wallet, 5_000_000n);
    const down = await t.app.inject({
      method: 'POST',
      url: '/api/down_balance_user/',
      headers: user.auth,
      payload: { gamesserver_id: serverId, amount: 2_000_000, currency_type: 1 },
    });
    expect(down.statusCode).toBe(200);
    await t.app.inject({ method: 'GET', url: `/api/delete_balance_user/987654321`, headers: user.auth });

    const port = t.app.deps.metricsPort();
    expect(port).toBeGreaterThan(0);
    const res = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toMatch(/adena_http_requests_total\{route="\/api\/down_balance_user\/",method="POST",status="200"\} 1/);
    // The route's pattern, never the id a caller put in the URL.
    expect(text).toMatch(/adena_http_request_duration_seconds_bucket\{le="[^"]+",route="\/api\/delete_balance_user\/:id"/);
    expect(text).not.toContain('987654321');
    expect(text).toMatch(new RegExp(`adena_pending_requests\\{server="${serverId}",type="output",currency="adena"\\} 1`));
    expect(text).toMatch(/adena_money_movements\{kind="[a-z_]+"\} \d+/);
    expect(text).toMatch(/adena_realtime_sockets 0/);
    expect(text).toMatch(/adena_db_up 1/);
    if (kind === 'postgres') expect(text).toMatch(/adena_db_pool_connections\{state="max"\} \d+/);
    // The public port does not serve them.
    const publicPort = (t.app.server.address() as { port: number }).port;
    expect((await fetch(`http://127.0.0.1:${publicPort}/metrics`)).headers.get('content-type')).not.toMatch(/openmetrics|version=0\.0\.4/);
    expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);
  });

  it.runIf(kind === 'postgres')('scrapes of a locked database share one read and answer within the bound with adena_db_up 0', async () => {
    const port = t.app.deps.metricsPort();
    const lock = await holdLocks(t.db.kysely, (trx) => sql`LOCK TABLE ledger_transactions IN ACCESS EXCLUSIVE MODE`.execute(trx));
    try {
      const scrapes = Array.from({ length: 4 }, () => fetch(`http://127.0.0.1:${port}/metrics`).then(async (r) => ({ status: r.status, text: await r.text() })));
      await expect.poll(() => lockWaits(t.db.kysely, '%ledger_transactions%')).toBe(1);
      await new Promise((r) => setTimeout(r, 300));
      expect(await lockWaits(t.db.kysely, '%ledger_transactions%')).toBe(1);
      for (const scrape of await Promise.all(scrapes)) {
        expect(scrape.status).toBe(200);
        expect(scrape.text).toMatch(/adena_db_up 0/);
      }
      // Players' calls are served meanwhile.
      expect((await t.app.inject({ method: 'GET', url: '/api/gamesservers' })).statusCode).toBe(200);
    } finally {
      await lock.release();
    }
    await expect.poll(async () => (await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()).match(/adena_db_up (\d)/)?.[1]).toBe('1');
  }, 30_000);

  it('turns /api/ready to 503 at once when draining, and keeps serving every other call', async () => {
    t.app.deps.readiness.drain();
    const ready = await t.app.inject({ method: 'GET', url: '/api/ready' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toEqual({ status: 'draining', message: 'Сервер перезапускается. Повторите попытку' });
    expect((await t.app.inject({ method: 'GET', url: '/api/gamesservers' })).statusCode).toBe(200);
  });
});

describe('a missing asset', () => {
  let t: TestApp;
  let web: string;
  beforeAll(async () => {
    web = mkdtempSync(join(tmpdir(), 'adena-web-'));
    mkdirSync(join(web, 'assets'));
    writeFileSync(join(web, 'index.html'), '<!doctype html><title>Адена</title>');
    writeFileSync(join(web, 'assets', 'app-1234.js'), 'console.log(1)');
    t = await createTestApp('pglite', { env: { WEB_DIST: web } });
  });
  afterAll(async () => {
    await t.close();
    rmSync(web, { recursive: true, force: true });
  });

  it('answers 404, not the page, so a script of an older build fails to load', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/assets/app-1234.js' })).statusCode).toBe(200);
    const gone = await t.app.inject({ method: 'GET', url: '/assets/app-old.js' });
    expect(gone.statusCode).toBe(404);
    expect(gone.headers['content-type']).not.toMatch(/html/);
    // Client routes still get the page.
    const page = await t.app.inject({ method: 'GET', url: '/history' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/html/);
  });
});

describe('a database that does not answer', () => {
  it('keeps the process serving: ready and every database call answer 503 with a Russian message, health 200', async () => {
    const port = await freePort();
    const db = await createDb({ databaseUrl: `postgres://postgres@127.0.0.1:${port}/postgres`, dataDir: '' });
    const app = await buildApp(testConfig(), db);
    try {
      await app.ready();
      const ready = await app.inject({ method: 'GET', url: '/api/ready' });
      expect(ready.statusCode).toBe(503);
      expect(ready.json()).toEqual({ status: 'unavailable', message: 'Сервис временно недоступен. Повторите попытку через минуту' });
      for (const url of ['/api/gamesservers', '/api/user']) {
        const res = await app.inject({ method: 'GET', url, headers: { authorization: 'Bearer x'.padEnd(50, 'x') } });
        expect(res.statusCode).toBe(503);
        expect(res.json()).toEqual({ message: 'Сервис временно недоступен. Повторите попытку через минуту' });
        expect(res.headers['retry-after']).toBe('5');
      }
      const login = await app.inject({ method: 'POST', url: '/api/login', payload: { email: 'a@b.ru', password: 'secret123' } });
      expect(login.statusCode).toBe(503);
      expect((await app.inject({ method: 'GET', url: '/api/health' })).statusCode).toBe(200);
    } finally {
      await app.close();
      await db.close();
    }
  });
});
