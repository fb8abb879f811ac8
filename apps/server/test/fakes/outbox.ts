import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OutgoingMessage } from '../../src/modules/notifications/outbox';

/** Messages written to DATA_DIR/outbox, oldest first. */
export function readOutbox(dataDir: string): OutgoingMessage[] {
  const dir = join(dataDir, 'outbox');
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.json') && !n.startsWith('.'));
  } catch {
    return [];
  }
  return names.sort().map((n) => JSON.parse(readFileSync(join(dir, n), 'utf8')) as OutgoingMessage);
}
