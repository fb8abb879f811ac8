import { randomBytes } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';

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

/** The outbox of a bare machine: one JSON file per message, written whole (temp file + rename). */
export function createOutbox(dataDir: string, log: FastifyBaseLogger): Outbox {
  const dir = resolve(dataDir, 'outbox');
  // Names sort in the order the messages were written (time, then a counter within the process).
  let seq = 0;
  return {
    async write(message) {
      await mkdir(dir, { recursive: true });
      seq = (seq + 1) % 1_000_000;
      const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${String(seq).padStart(6, '0')}-${randomBytes(3).toString('hex')}.json`;
      const tmp = join(dir, `.${name}.tmp`);
      await writeFile(tmp, `${JSON.stringify(message, null, 2)}\n`);
      await rename(tmp, join(dir, name));
      // The file name is logged, never the text: a one-time code goes to the outbox file only.
      log.info({ to: message.to, channel: message.channel, file: join(dir, name) }, `outbox: ${message.subject}`);
    },
  };
}
