import type { ChangeFeed } from '../../db/changes';
import { coalesce } from '../../db/coalesce';
import { createFollowedCache } from '../../db/followed-cache';
import type { CodesDb } from './codes.repository';
import { type PairWalletOnlyRaw, type PriceDataRaw, type PriceDataRow, priceDataRepository as repo } from './price-data.repository';

/** What a process holds of a pair: all of its price data but the wallet. */
type HeldPart = Omit<Extract<PriceDataRow, { open: unknown }>, 'wallet'>;

/**
 * Distinct price-data pairs from which a batch is read by one statement (see priceDataOf): fifty
 * players' reads at 50 connections went at about 6 200 req/s one statement a pair and 12 000 with
 * batches of eight or more in one (decision record 0026).
 */
const PRICE_DATA_BATCH = 8;
/** How long a pair's codes and variants are held at most: a safety net, as the session cache's TTL. */
const HELD_TTL_MS = 30_000;
/** Pairs held at most per process (the oldest go first). */
const HELD_MAX = 5_000;
/** A pair is held only while its open codes and variants are this many or fewer: some tens of KB of memory at most each. */
const HELD_ITEMS_MAX = 100;

type Pair = { ownerId: number; gameServerId: number };

/**
 * The price data of (owner:server) keys through `read`: below `oneFrom` distinct pairs a statement per pair (each
 * planned once), from there one statement for all. Null when a read answered null (could not be made).
 */
async function readPairs<T>(keys: readonly string[], oneFrom: number, read: (pairs: Pair[]) => Promise<Map<string, T> | null>) {
  const pairs = keys.map((key) => {
    const [ownerId, gameServerId] = key.split(':').map(Number) as [number, number];
    return { ownerId, gameServerId };
  });
  if (pairs.length >= oneFrom) return read(pairs);
  const found = await Promise.all(pairs.map((pair) => read([pair])));
  return found.some((m) => m === null) ? null : new Map(found.flatMap((m) => [...(m ?? [])]));
}

/**
 * GET /api/auth_varianty_adeny_za_kod's reads (decision record 0026, "Wallets and price data"), by key
 * (`priceDataKey`).
 *
 * `of`: the reads of every caller waiting at that moment, started after each of them arrived (db/coalesce.ts), so
 * an answer holds everything committed before its caller asked; callers of the same (owner, server) share one. A
 * small batch reads each pair with the statement PostgreSQL planned once; from PRICE_DATA_BATCH pairs on, one
 * statement reads them all (planned each time, which costs less than the round trips it saves).
 *
 * `onFeed`: the same for cached callers, on the change feed's connection, the read being their session's barrier
 * too ("The wallet read as the barrier"). Every key asked is answered, null for an unknown server; a key the feed
 * could not read is left out, and its caller goes the usual way. On that one connection statements run one after
 * another, so any batch of two pairs or more is one statement. A pair's server, codes and variants read there are
 * held ("Codes and variants held in memory") until a change of them is heard on the feed's `price_data_changed`
 * (migration 0047): the next reads of that pair ask PostgreSQL for its wallet alone, and take the rest from what
 * is held if it is still held once the answer came, that is once every change committed before the read was sent
 * has been heard.
 */
export function createPriceDataReads(deps: { db: CodesDb; feed?: Pick<ChangeFeed, 'read' | 'subscribe'> }) {
  const { db, feed } = deps;
  const held = createFollowedCache<HeldPart>({ ttlMs: HELD_TTL_MS, max: HELD_MAX });
  if (feed) held.follow({ subscribe: (handlers) => feed.subscribe(handlers, 'price_data_changed') });

  /**
   * Pairs nothing is held of, read whole; what they show of codes and variants is held from now on (if no change
   * came meanwhile). Every key is answered (null: an unknown server); null when the feed could not read.
   */
  async function readWhole(keys: readonly string[]): Promise<Map<string, PriceDataRow | null> | null> {
    if (keys.length === 0 || !feed) return new Map();
    const started = held.begin();
    const found = await readPairs(keys, 2, async (pairs) => {
      const rows = await feed.read<PriceDataRaw>(repo.priceDataCompiled(db, pairs));
      if (!rows) return null;
      const read = repo.priceDataFrom(rows);
      for (const [key, d] of read) {
        if (!d.wallet || d.open.length + d.variants.length > HELD_ITEMS_MAX) continue;
        held.put(key, Number(key.slice(0, key.indexOf(':'))), { server: d.server, open: d.open, variants: d.variants, last: d.last }, started);
      }
      return read;
    });
    return found && new Map(keys.map((key) => [key, found.get(key) ?? null]));
  }

  /**
   * Pairs whose server, codes and variants are held: their wallet read, the rest taken from what is still held after
   * the answer. A key whose part was dropped meanwhile is left out; null when the feed could not read.
   */
  async function readHeld(keys: readonly string[]): Promise<Map<string, PriceDataRow | null> | null> {
    if (keys.length === 0 || !feed) return new Map();
    const found = await readPairs(keys, 2, async (pairs) => {
      const rows = await feed.read<PairWalletOnlyRaw>(repo.priceDataHeldCompiled(db, pairs));
      return rows ? new Map(rows.map((r) => [`${r.owner_id}:${r.id}`, repo.walletOf(r)])) : null;
    });
    if (!found) return null;
    const answers = new Map<string, PriceDataRow | null>();
    for (const key of keys) {
      const wallet = found.get(key);
      const part = held.get(key);
      if (part && wallet) answers.set(key, { server: part.server, wallet, open: part.open, variants: part.variants, last: part.last });
    }
    return answers;
  }

  return {
    of: coalesce(async (keys: string[]) => (await readPairs(keys, PRICE_DATA_BATCH, (pairs) => repo.priceDataOf(db, pairs))) ?? new Map()),
    onFeed: coalesce(
      async (keys: string[]) => {
        const holding = new Set(keys.filter((key) => held.get(key) !== undefined));
        const whole = holding.size === 0 ? keys : keys.filter((key) => !holding.has(key));
        const parts = await Promise.all([readHeld([...holding]), readWhole(whole)]);
        return new Map(parts.flatMap((part) => [...(part ?? [])]));
      },
      { maxInFlight: 1 },
    ),
  };
}
