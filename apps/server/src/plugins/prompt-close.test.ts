import { connect, type Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../app';
import { seedDemoServers } from '../modules/system/seed';
import { createTestDb, type TestDb, testConfig } from '../../test/harness';

/** A raw connection to the app, with everything it has been sent and whether it has been closed. */
async function rawConnection(port: number) {
  const socket: Socket = connect(port, '127.0.0.1');
  await new Promise((r) => socket.once('connect', r));
  const seen = { text: '', closed: false };
  socket.on('data', (d) => (seen.text += d));
  socket.on('error', () => {});
  const closed = new Promise<void>((r) => socket.once('close', () => r()));
  void closed.then(() => (seen.closed = true));
  return { socket, seen, closed };
}

const GET = (path: string) => `GET ${path} HTTP/1.1\r\nHost: wallet.test\r\n`;

describe('closing the server (a deploy)', () => {
  let db: TestDb | undefined;
  let app: FastifyInstance | undefined;
  afterEach(async () => {
    await db?.close();
  });

  it('does not wait for connections that carry nothing, and still serves the request that was arriving', async () => {
    db = await createTestDb('pglite');
    await seedDemoServers(db.kysely);
    app = await buildApp(testConfig({ METRICS_PORT: '0' }), db);
    await app.listen({ port: 0, host: '127.0.0.1' });
    const port = (app.server.address() as { port: number }).port;
    const accepted: Socket[] = [];
    app.server.on('connection', (s: Socket) => accepted.push(s));

    // A browser's connection opened ahead of need, a metrics scraper's, one left idle after an
    // answer, and one whose request is half sent when the deploy begins.
    const silent = await rawConnection(port);
    const scraper = await rawConnection(app.deps.metricsPort()!);
    const idle = await rawConnection(port);
    idle.socket.write(`${GET('/api/gamesservers')}\r\n`);
    await expect.poll(() => idle.seen.text).toMatch(/\r\n\r\n\[/);
    const arriving = await rawConnection(port);
    arriving.socket.write(GET('/api/gamesservers'));
    // (the server has read it)
    await expect.poll(() => accepted[2]?.bytesRead ?? 0).toBeGreaterThan(0);

    const closed = app.close();
    await Promise.all([silent.closed, idle.closed]);
    expect(arriving.seen.closed).toBe(false);
    arriving.socket.write('\r\n');
    await arriving.closed;
    // The metrics listener closes after the app's own: its idle scraper does not hold it either.
    await Promise.all([closed, scraper.closed]);

    // The last request was served whole, and its answer ended the connection.
    expect(arriving.seen.text).toMatch(/^HTTP\/1\.1 200 /);
    expect(arriving.seen.text.toLowerCase()).toContain('connection: close');
    expect(arriving.seen.text).toContain('"cashier_nick":"AdenaKassa"');
    // A fresh PGlite's migrations run inside the test: on a loaded machine they alone took most of the default 30 s.
  }, 90_000);
});
