import { Resolver } from 'node:dns/promises';
import { readFileSync } from 'node:fs';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * Which addresses a webhook may reach: not loopback, private, link-local, shared, multicast or
 * reserved ones (the service's own network, cloud metadata at 169.254.169.254), unless
 * WEBHOOK_ALLOW_PRIVATE is set. Checked on the URL when it is set and again on every address DNS
 * gives at delivery time; the connection goes to the address that was checked.
 */
const blocked = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  // The 6to4 relays' anycast (deprecated, RFC 7526): a relay hands the packet to the IPv4 address inside it.
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 3],
] as const) {
  blocked.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [
  // ::/96 holds ::, ::1 and the IPv4-compatible ::a.b.c.d (deprecated, and some stacks still route it to the IPv4 address).
  ['::', 96],
  ['::1', 128],
  // NAT64: the well-known and the local-use prefixes reach the IPv4 address in their low 32 bits.
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  // 6to4 embeds an IPv4 address (2002:7f00:1:: is 127.0.0.1's).
  ['2002::', 16],
  // Teredo also carries an IPv4 address (the server's, and the client's obfuscated) and is reached through relays.
  ['2001::', 32],
  ['100::', 64],
  ['2001:db8::', 32],
  // SIIT's IPv4-translated ::ffff:0:a.b.c.d reaches the IPv4 address where a translator runs.
  ['::ffff:0:0:0', 96],
  ['fc00::', 7],
  ['fe80::', 10],
  // Site-local (deprecated, still routed inside some networks).
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(net, bits, 'ipv6');
}

/** True for an address a webhook must not reach (an IPv4-mapped IPv6 address counts as its IPv4 one). */
export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return blocked.check(mapped[1]!, 'ipv4');
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family === 6) return blocked.check(address, 'ipv6');
  return true;
}

/** A URL's host without IPv6 brackets. */
export const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

/** The check when the URL is set, without DNS: an address literal or a name of this machine. */
export function refusedAtSetup(url: URL): boolean {
  const host = hostOf(url).toLowerCase();
  if (isIP(host)) return isPrivateAddress(host);
  return host === 'localhost' || host.endsWith('.localhost');
}

export type Address = { address: string; family: number };

/** Looks a name up; `signal` ends the lookup (the delivery gave up on it) so nothing of it outlives the request. */
export type Resolve = (host: string, signal?: AbortSignal) => Promise<Address[]>;

/** How long one read of the hosts file is used before it is read again. */
const HOSTS_FILE_TTL_MS = 5_000;
let hostsRead: { at: number; names: Map<string, Address[]> } | null = null;

/** The addresses a hosts file gives each name (lower case), as getaddrinfo's `files` step reads it. */
export function parseHosts(text: string): Map<string, Address[]> {
  const names = new Map<string, Address[]>();
  for (const line of text.split('\n')) {
    const [address = '', ...aliases] = line.replace(/#.*/, '').trim().split(/\s+/);
    const family = isIP(address);
    if (!family) continue;
    for (const alias of aliases) {
      const name = alias.toLowerCase();
      const known = names.get(name) ?? [];
      if (!known.some((a) => a.address === address)) known.push({ address, family });
      names.set(name, known);
    }
  }
  return names;
}

/**
 * /etc/hosts' answer for a name, read at most every few seconds. Read synchronously: it is a
 * small local file, and an asynchronous read would queue on libuv's thread pool, which this
 * lookup exists to stay off.
 */
function fromHostsFile(host: string): Address[] {
  const now = Date.now();
  if (!hostsRead || now - hostsRead.at > HOSTS_FILE_TTL_MS) {
    let text = '';
    try {
      text = readFileSync('/etc/hosts', 'utf8');
    } catch {
      // No hosts file: DNS alone answers.
    }
    hostsRead = { at: now, names: parseHosts(text) };
  }
  return hostsRead.names.get(host.toLowerCase()) ?? [];
}

/**
 * A lookup through the DNS client (c-ares) instead of getaddrinfo (`dns.lookup`), for saving an
 * endpoint and for each delivery: it runs off libuv's thread pool, where getaddrinfo gets only two
 * of four threads, shared with password hashing and every other lookup of the process (fetch to
 * Telegram, Discord, SMS), so names that never answer cannot stall sign-ins or other sellers'
 * deliveries. Each server is asked once and given `timeoutMs`; `signal` cancels the questions.
 * The hosts file is read first, as getaddrinfo does (`localhost`, compose's `extra_hosts`,
 * Kubernetes' `hostAliases`), since c-ares' queries do not read it; DNS search domains are not
 * applied (a name is asked as written). `servers` replaces /etc/resolv.conf's (tests).
 */
export function dnsResolve(timeoutMs: number, o: { servers?: string[] } = {}): Resolve {
  return async (host, signal) => {
    const listed = fromHostsFile(host);
    if (listed.length > 0) return listed;
    signal?.throwIfAborted();
    const resolver = new Resolver({ timeout: timeoutMs, tries: 1 });
    if (o.servers) resolver.setServers(o.servers);
    const cancel = () => resolver.cancel();
    signal?.addEventListener('abort', cancel, { once: true });
    try {
      const [v4, v6] = await Promise.allSettled([resolver.resolve4(host), resolver.resolve6(host)]);
      // Neither answered: the reason (ENOTFOUND, ETIMEOUT) goes to the seller's delivery log.
      if (v4.status === 'rejected' && v6.status === 'rejected') throw v4.reason;
      return [
        ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 })) : []),
        ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 })) : []),
      ];
    } finally {
      signal?.removeEventListener('abort', cancel);
    }
  };
}

export class RefusedAddress extends Error {
  constructor(readonly address: string) {
    super(`refused private address ${address}`);
    this.name = 'RefusedAddress';
  }
}

/**
 * A `lookup` for http.request: resolves, refuses the host when any of its addresses is private
 * (unless allowed), and hands the socket only the addresses it checked, so a DNS answer that
 * changes between a check and the connection cannot send the request elsewhere.
 */
export function guardedLookup(resolve: Resolve, allowPrivate: boolean, signal?: AbortSignal): LookupFunction {
  return (host, options, callback) => {
    resolve(host, signal).then(
      (all) => {
        const family = typeof options === 'object' && options.family ? options.family : 0;
        const addresses = all.filter((a) => family === 0 || a.family === family);
        const bad = addresses.find((a) => isPrivateAddress(a.address));
        if (addresses.length === 0) return callback(Object.assign(new Error(`no address for ${host}`), { code: 'ENOTFOUND' }), '', 4);
        if (bad && !allowPrivate) return callback(new RefusedAddress(bad.address), '', 4);
        if (typeof options === 'object' && options.all) return (callback as unknown as (e: null, a: typeof addresses) => void)(null, addresses);
        callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (err: Error) => callback(err as NodeJS.ErrnoException, '', 4),
    );
  };
}
