import { lookup as dnsLookup } from 'node:dns';
import { Resolver } from 'node:dns/promises';
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

export type Resolve = (host: string) => Promise<{ address: string; family: number }[]>;

export const systemResolve: Resolve = (host) =>
  new Promise((resolve, reject) => dnsLookup(host, { all: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))));

/**
 * A lookup through the DNS client (c-ares) instead of getaddrinfo, for a check made inside a request
 * (saving an endpoint): it runs off libuv's thread pool, which password hashing shares, so names that
 * never answer cannot stall sign-ins; each server is asked once and given `timeoutMs`. DNS only, not
 * /etc/hosts (a delivery's own lookup, through the system, still checks whatever that says).
 */
export function dnsResolve(timeoutMs: number): Resolve {
  return async (host) => {
    const resolver = new Resolver({ timeout: timeoutMs, tries: 1 });
    const [v4, v6] = await Promise.allSettled([resolver.resolve4(host), resolver.resolve6(host)]);
    return [
      ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 })) : []),
      ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 })) : []),
    ];
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
export function guardedLookup(resolve: Resolve, allowPrivate: boolean): LookupFunction {
  return (host, options, callback) => {
    resolve(host).then(
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
