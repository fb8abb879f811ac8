import { isIPv6 } from 'node:net';

/**
 * The client address a rate limit counts under. An IPv6 client is counted by its /64: a subscriber
 * (or a rented server) gets a whole /64 and may send each request from a new address in it, which
 * would make every per-address limit unlimited. IPv4, IPv4-mapped IPv6 (`::ffff:1.2.3.4`) and
 * anything unparsable are counted as they are.
 */
export function addressKey(ip: string | null | undefined): string {
  if (!ip) return 'unknown';
  if (!ip.includes(':')) return ip;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  const bare = ip.replace(/%.*$/, ''); // a zone id (fe80::1%eth0)
  if (!isIPv6(bare)) return ip;
  const groups = hextets(bare);
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (an embedded IPv4 tail written as two). */
function hextets(ip: string): number[] {
  const text = ip.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_, a, b, c, d) => `${((+a << 8) | +b).toString(16)}:${((+c << 8) | +d).toString(16)}`);
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((h) => Number.parseInt(h, 16)));
  const [head = '', rest] = text.split('::');
  if (rest === undefined) return parse(head);
  const left = parse(head);
  const right = parse(rest);
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}
