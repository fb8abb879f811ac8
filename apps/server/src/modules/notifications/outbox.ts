import { randomBytes } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { privateFolder } from '../../lib/data-dir-lock';

/** PRODUCT.md section 5: the shape of an outbox file, and of every message we send. */
export interface OutgoingMessage {
  to: string;
  channel: 'email' | 'sms';
  subject: string;
  text: string;
  /** The one-time code in the text, or null for a message that carries none. */
  code: string | null;
}

export interface Outbox {
  write(message: OutgoingMessage): Promise<void>;
}

/**
 * The outbox of a bare machine: one JSON file per message, written whole (temp file + rename).
 * The messages hold sign-in codes in clear, so only the server's user may read them: the folder
 * is 0700 (a DATA_DIR made here too), tightened once per process if an earlier version made it
 * looser, and each file 0600.
 */
export function createOutbox(dataDir: string, log: FastifyBaseLogger): Outbox {
  const dir = resolve(dataDir, 'outbox');
  // Names sort in the order the messages were written (time, then a counter within the process).
  let seq = 0;
  let checked = false;
  return {
    async write(message) {
      if (checked) await mkdir(dir, { recursive: true, mode: 0o700 });
      else {
        privateFolder(dir);
        checked = true;
      }
      seq = (seq + 1) % 1_000_000;
      const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${String(seq).padStart(6, '0')}-${randomBytes(3).toString('hex')}.json`;
      const tmp = join(dir, `.${name}.tmp`);
      await writeFile(tmp, `${JSON.stringify(message, null, 2)}\n`, { mode: 0o600 });
      await rename(tmp, join(dir, name));
      // The file name is logged, never the text: a one-time code goes to the outbox file only.
      log.info({ to: message.to, channel: message.channel, file: join(dir, name) }, `outbox: ${message.subject}`);
    },
  };
}
