// Telegram's side of a sign-in for tests: data signed as the Login Widget and the mini app sign it.
import { createHash, createHmac } from 'node:crypto';
import { webAppSecret } from '../../src/modules/accounts/telegram-check';

/** Signs Login Widget fields the way Telegram does: HMAC-SHA-256 keyed with SHA-256(bot token). */
export function signWidget(fields: Record<string, string | number>, botToken: string): Record<string, string | number> {
  const dcs = Object.keys(fields)
    .sort()
    .map((k) => `${k}=${fields[k]}`)
    .join('\n');
  const hash = createHmac('sha256', createHash('sha256').update(botToken).digest()).update(dcs).digest('hex');
  return { ...fields, hash };
}

/** Signs initData pairs (kept in the order given, as Telegram does) with the mini app key; `signature` stays in. */
export function signInitData(pairs: Array<[string, string]>, botToken: string): string {
  const dcs = [...pairs]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join('\n');
  const sp = new URLSearchParams(pairs);
  sp.append('hash', createHmac('sha256', webAppSecret(botToken)).update(dcs).digest('hex'));
  return sp.toString();
}
