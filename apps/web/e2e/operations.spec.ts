import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, request as httpRequest, type Server } from 'node:http';
import { createConnection, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/src/app';
import { createDb, type Db } from '../../server/src/db/client';
import { seedDemoServers } from '../../server/src/modules/system/seed';
import { createUser, createWallet, firstServerId, fund } from '../../server/test/factories';
import { createTestDb, type TestDb, testConfig } from '../../server/test/harness';
import { launchBrowser, newPage, WEB_DIST } from './harness';

const KK = 1_000_000;
type Node = { app: FastifyInstance; db: Db; port: number };

/**
 * A round-robin balancer without stickiness, like HAProxy's `mode http` with `balance roundrobin`:
 * every HTTP request, even on one keep-alive connection from the browser, goes to the next backend;
 * a WebSocket upgrade too, after which its connection stays where it landed.
 */
async function startBalancer(ports: number[]) {
  let next = 0;
  const perBackend = ports.map(() => 0);
  const pick = () => {
    const i = next++ % ports.length;
    perBackend[i]! += 1;
    return ports[i]!;
  };
  const sockets = new Set<Socket>();
  const server: Server = createHttpServer((req, res) => {
    const upstream = httpRequest({ host: '127.0.0.1', port: pick(), method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  server.on('upgrade', (req, client: Socket, head: Buffer) => {
    const upstream = createConnection(pick(), '127.0.0.1', () => {
      const lines = [`${req.method} ${req.url} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length) upstream.write(head);
      client.pipe(upstream).pipe(client);
    });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    perBackend,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

describe('two app processes behind a round-robin balancer without sticky sessions', () => {
  let shared: TestDb;
  let nodes: Node[];
  let balancer: Awaited<ReturnType<typeof startBalancer>>;
  let browser: Browser;
  let dataDir: string;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    shared = await createTestDb('postgres');
    await seedDemoServers(shared.kysely);
    dataDir = mkdtempSync(join(tmpdir(), 'adena-lb-'));
    nodes = [];
    for (let i = 0; i < 2; i++) {
      // Each node has its own pool and its own Socket.IO server with the PostgreSQL adapter.
      const db = await createDb({ databaseUrl: shared.url!, dataDir: '' });
      const app = await buildApp(testConfig({ DATA_DIR: dataDir, WEB_DIST }), db);
      await app.listen({ port: 0, host: '127.0.0.1' });
      nodes.push({ app, db, port: (app.server.address() as { port: number }).port });
    }
    balancer = await startBalancer(nodes.map((n) => n.port));
    browser = await launchBrowser();
  });
  afterAll(async () => {
    for (const c of contexts) await c.close();
    await browser?.close();
    await balancer?.close();
    for (const n of nodes ?? []) {
      await n.app.close();
      await n.db.close();
    }
    await shared?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('signs in through the balancer, shows realtime connected and sees an operator’s decision made on the other node', async () => {
    const sid = await firstServerId(shared.kysely);
    const player = await createUser(shared.kysely, { name: 'Игрок За Балансером' });
    const admin = await createUser(shared.kysely, { admin: true });
    const wallet = await createWallet(shared.kysely, player.id, sid, 'Balanced');
    await fund(shared.kysely, wallet, 5n * BigInt(KK));

    const { context, page } = await newPage(browser, { width: 1280, height: 900 });
    contexts.push(context);
    await context.addInitScript(
      ([t, s]) => {
        if (!sessionStorage.getItem('seeded')) {
          localStorage.setItem('access_token', t as string);
          localStorage.setItem('gamesserver_id', s as string);
          sessionStorage.setItem('seeded', '1');
        }
      },
      [player.token, String(sid)],
    );
    await page.goto(balancer.url);
    await expect
      .poll(() => page.getByTestId('realtime-indicator').getAttribute('data-state'), { timeout: 20_000 })
      .toBe('connected');
    const balance = () => page.getByTestId('balance').textContent().then((s) => (s ?? '').replace(/\D/g, ''));
    await expect.poll(balance, { timeout: 10_000 }).toBe(String(5 * KK));
    // The page's requests went to both processes.
    expect(balancer.perBackend.every((n) => n > 0)).toBe(true);

    // The socket is held by one process; the player's deposit and the operator's decision go to the other.
    const holder = nodes.findIndex((n) => n.app.deps.realtime.io.engine.clientsCount > 0);
    expect(holder).toBeGreaterThanOrEqual(0);
    expect(nodes.filter((n) => n.app.deps.realtime.io.engine.clientsCount > 0)).toHaveLength(1);
    // Over WebSocket: one connection, which a balancer keeps on one process.
    const sockets = [...nodes[holder]!.app.deps.realtime.io.of('/').sockets.values()];
    expect(sockets.map((s) => s.conn.transport.name)).toEqual(['websocket']);
    const other = nodes[1 - holder]!.app;
    const dep = await other.inject({ method: 'POST', url: '/api/up_balance_user/', headers: player.auth, payload: { gamesserver_id: sid, amount: 3 * KK, currency_type: 1 } });
    expect(dep.statusCode).toBe(200);
    await page.evaluate(() => Object.assign(window, { __sameDocument: true }));
    const done = await other.inject({ method: 'POST', url: `/api/admin/requests/${dep.json().success.id}/complete`, headers: admin.auth, payload: {} });
    expect(done.statusCode).toBe(200);

    // The new balance arrives over the socket on the first process, without a reload.
    await expect.poll(balance, { timeout: 10_000 }).toBe(String(8 * KK));
    expect(await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument)).toBe(true);
    expect(await page.getByTestId('realtime-indicator').getAttribute('data-state')).toBe('connected');
  });
});
