import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCK_FILE, lockDataDir } from '../lib/data-dir-lock';
import { createOutbox } from '../modules/notifications/outbox';
import { createDb } from './client';

/** A file's or folder's permission bits. */
const modeOf = (path: string) => statSync(path).mode & 0o777;
const silent = { info() {} } as unknown as FastifyBaseLogger;

// Secrets at rest (the ledger's files, sign-in codes in the outbox) are kept from other local users
// by the app's folders (0700) and files (0600), whatever the umask: this runner's is 022.
describe('folders and files the app makes for secrets', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'adena-private-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a new DATA_DIR and its embedded database folder are 0700', async () => {
    const dataDir = join(dir, 'fresh', 'data');
    const lock = lockDataDir(dataDir);
    try {
      expect(modeOf(dataDir)).toBe(0o700);
      const db = await createDb({ dataDir });
      await db.close();
      expect(modeOf(join(dataDir, 'pglite'))).toBe(0o700);
      expect(readdirSync(join(dataDir, 'pglite'))).toContain('PG_VERSION');
    } finally {
      lock.release();
    }
    // createDb alone (no lock taken first) makes them so too.
    const other = join(dir, 'other');
    const db = await createDb({ dataDir: other });
    await db.close();
    expect([modeOf(other), modeOf(join(other, 'pglite'))]).toEqual([0o700, 0o700]);
  }, 60_000);

  it("keeps an existing DATA_DIR's mode, and tightens the app's own database folder made looser by an earlier version", async () => {
    const dataDir = join(dir, 'existing');
    mkdirSync(join(dataDir, 'pglite'), { recursive: true });
    chmodSync(dataDir, 0o755);
    chmodSync(join(dataDir, 'pglite'), 0o755);
    const db = await createDb({ dataDir });
    await db.close();
    expect(modeOf(dataDir)).toBe(0o755);
    expect(modeOf(join(dataDir, 'pglite'))).toBe(0o700);
    lockDataDir(dataDir).release();
    expect(modeOf(dataDir)).toBe(0o755);
    expect(readdirSync(dataDir)).not.toContain(LOCK_FILE);
  }, 60_000);

  it('the outbox: its folder (and a DATA_DIR it makes) 0700, each message 0600; an older, looser outbox folder tightened', async () => {
    const dataDir = join(dir, 'outbox-fresh');
    const outbox = createOutbox(dataDir, silent);
    await outbox.write({ to: 'a@example.com', channel: 'email', subject: 'Код входа', text: 'Код: 123456', code: '123456' });
    await outbox.write({ to: '+79990000000', channel: 'sms', subject: 'Код входа', text: 'Код: 654321', code: '654321' });
    const folder = join(dataDir, 'outbox');
    expect([modeOf(dataDir), modeOf(folder)]).toEqual([0o700, 0o700]);
    const files = readdirSync(folder);
    expect(files).toHaveLength(2);
    for (const f of files) expect(modeOf(join(folder, f))).toBe(0o600);

    const older = join(dir, 'outbox-older');
    mkdirSync(join(older, 'outbox'), { recursive: true });
    chmodSync(older, 0o755);
    chmodSync(join(older, 'outbox'), 0o755);
    await createOutbox(older, silent).write({ to: 'b@example.com', channel: 'email', subject: 'Код входа', text: 'Код: 111111', code: '111111' });
    expect([modeOf(older), modeOf(join(older, 'outbox'))]).toEqual([0o755, 0o700]);
  });
});
