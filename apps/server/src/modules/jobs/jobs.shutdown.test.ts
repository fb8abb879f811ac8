import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTestApp, holdLocks, type TestApp } from '../../../test/harness';

describe('closing the app', () => {
  let t: TestApp | null = null;
  afterEach(async () => {
    await t?.close();
    t = null;
  });

  it('stops the job queue before it waits for requests in flight: a slow request does not keep workers claiming until the exit deadline', async () => {
    t = await createTestApp('pglite');
    const { app, db } = t;
    await app.listen({ port: 0, host: '127.0.0.1' });
    const stop = vi.spyOn(app.deps.jobs, 'stop');
    // PGlite has one connection: a transaction held open keeps a sign-in's read waiting, so the request stays in flight.
    const held = await holdLocks(db.kysely, (trx) => sql`SELECT 1`.execute(trx));
    // The sign-in has reached the server once its request is read (PGlite has no view of who waits on what).
    let arrived = 0;
    app.server.on('request', () => {
      arrived += 1;
    });
    const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/login`;
    let answered = false;
    const signIn = fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email: 'a@example.com', password: 'x'.repeat(12) }) }).finally(() => {
      answered = true;
    });
    // Closing before the request arrives would test nothing: no request in flight to wait for (and a
    // connection that has not sent a byte yet is dropped at once, plugins/prompt-close.ts).
    await vi.waitFor(() => expect(arrived).toBe(1), { timeout: 10_000, interval: 10 });
    const closed = app.close();
    try {
      await expect.poll(() => stop.mock.calls.length, { timeout: 5_000 }).toBe(1);
      // And the queue stopped while the sign-in was still in flight, not once it was answered.
      expect(answered).toBe(false);
    } finally {
      await held.release();
      await signIn.catch(() => {});
      await closed;
    }
  });

  it('stops listening at once although a job in hand keeps the queue waiting for it (up to its grace)', async () => {
    // Diff review: awaited in preClose, the queue's wait held the listener open and the other preClose hooks back.
    t = await createTestApp('pglite');
    const { app, db } = t;
    let started = false;
    app.deps.jobs.register('test.hangs', () => {
      started = true;
      return new Promise<void>(() => {});
    });
    await app.deps.jobs.enqueue(db.kysely, 'test.hangs', {});
    await app.listen({ port: 0, host: '127.0.0.1' });
    await expect.poll(() => started).toBe(true);
    const closed = app.close();
    // Within the queue's 5 s grace, with the most room a loaded machine can be given: held back, it stays listening 5 s.
    await expect.poll(() => app.server.listening, { timeout: 4_000, interval: 20 }).toBe(false);
    await closed;
  });
});
