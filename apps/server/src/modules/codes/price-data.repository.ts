import { type RawBuilder, sql } from 'kysely';
import { compiledForms } from '../../db/compiled-forms';
import type { CodeStatus } from '../../db/tables/codes';
import { type GameServerRow, OPEN_CODES_LIMIT, type Q } from './codes.repository';

/** GET /api/auth_varianty_adeny_za_kod's statements: a player's price data on a game server (decision record 0026). */
export const priceDataRepository = {
  /**
   * Everything the price data of each (owner, game server) pair shows (decision record 0026,
   * "Wallets and price data"): the server, the owner's wallet there (null when they have none yet),
   * their open codes (the newest OPEN_CODES_LIMIT singles and as many batch codes), their live variants
   * with counts, and the last code they activated there. Lists come back as arrays of native columns, so each value is parsed by
   * the driver exactly as separate queries' would be. Keyed by priceDataKey; a pair of an unknown
   * server has no entry.
   *
   * One pair is a statement PostgreSQL plans once per connection. Several go as two arrays in one
   * statement, which PostgreSQL plans on every call (about half a millisecond): worth it for a
   * batch large enough that the round trips it saves cost more (the service decides).
   */
  async priceDataOf(q: Q, pairs: ReadonlyArray<{ ownerId: number; gameServerId: number }>) {
    const { rows } = await q.executeQuery(priceDataRepository.priceDataCompiled(q, pairs));
    return priceDataFrom(rows);
  },

  /** priceDataOf's statement built and compiled afresh (what priceDataCompiled must equal). */
  priceDataQuery: (q: Q, pairs: ReadonlyArray<{ ownerId: number; gameServerId: number }>) => priceDataStatement(pairSource(pairs)).compile(q),

  /**
   * priceDataOf's statement compiled, to be run elsewhere (on the change feed's connection: `ChangeFeed.read`);
   * `priceDataFrom` reads its rows. Built and compiled once per form (one pair, several) and handle (`compiledForms`):
   * only the pairs, its first two parameters, change from call to call (a test compares it with a fresh compile).
   */
  priceDataCompiled: compiledForms({
    statement: (_q: Q, pairs: ReadonlyArray<{ ownerId: number; gameServerId: number }>) => priceDataStatement(pairSource(pairs)),
    sample: { ownerId: 0, gameServerId: 0 },
    leading: pairParameters,
  }),
  priceDataFrom,
  /**
   * The owner's wallet of each pair, compiled as priceDataCompiled is, for pairs whose server, codes and
   * variants a process holds; `walletOf` reads its rows.
   */
  priceDataHeldCompiled: compiledForms({
    statement: (_q: Q, pairs: ReadonlyArray<{ ownerId: number; gameServerId: number }>) => pairWalletStatement(pairSource(pairs)),
    sample: { ownerId: 0, gameServerId: 0 },
    leading: pairParameters,
  }),
  /** pairWalletStatement built and compiled afresh (what priceDataHeldCompiled must equal). */
  priceDataHeldQuery: (q: Q, pairs: ReadonlyArray<{ ownerId: number; gameServerId: number }>) => pairWalletStatement(pairSource(pairs)).compile(q),
  walletOf,
};

/** The pairs as priceDataStatement's row source: one pair a `VALUES` row (planned once), several two arrays. */
function pairSource(pairs: ReadonlyArray<{ ownerId: number; gameServerId: number }>) {
  const [owners, servers] = pairParameters(pairs);
  return pairs.length === 1
    ? sql`(VALUES (${owners}::int, ${servers}::int)) AS k(owner_id, server_id)`
    : sql`unnest(${owners}::int[], ${servers}::int[]) AS k(owner_id, server_id)`;
}

/** The pairs as pairSource's two parameters: one pair's ids, or two array literals. */
function pairParameters(pairs: ReadonlyArray<{ ownerId: number; gameServerId: number }>): [number | string, number | string] {
  if (pairs.length === 1) return [Math.trunc(pairs[0]!.ownerId), Math.trunc(pairs[0]!.gameServerId)];
  const ids = (pick: (p: { ownerId: number; gameServerId: number }) => number) => `{${pairs.map((p) => Math.trunc(pick(p))).join(',')}}`;
  return [ids((p) => p.ownerId), ids((p) => p.gameServerId)];
}

/** priceDataOf's answer from its statement's rows. */
function priceDataFrom(rows: readonly PriceDataRaw[]) {
  return new Map(rows.map((r) => [priceDataKey(r.owner_id, r.id), priceDataOfRow(r)]));
}

/** The key of an (owner, game server) pair in priceDataOf's answer. */
export const priceDataKey = (ownerId: number, gameServerId: number) => `${ownerId}:${gameServerId}`;

/** The owner's wallet of each pair, nothing more: for pairs whose server, codes and variants are held (`priceDataHeldCompiled`). */
const pairWalletStatement = (pairs: RawBuilder<unknown>) => sql<PairWalletOnlyRaw>`
  SELECT k.owner_id, k.server_id AS id, w.id AS wallet_id, w.balance, w.balance_second, w.nick, w.telegram_price
    FROM ${pairs}
    LEFT JOIN wallets w ON w.user_id = k.owner_id AND w.gamesserver_id = k.server_id`;

/**
 * priceDataOf's statement over `pairs`, a row source with the columns owner_id and server_id, each
 * pair joined to its server.
 */
const priceDataStatement = (pairs: RawBuilder<unknown>) => sql<PriceDataRaw>`
  SELECT k.owner_id, g.id, g.name, g.active, g.standard_nominals, g.code_fee_bp, g.vip_code_fee_bp, g.min_nominal,
         w.id AS wallet_id, w.balance, w.balance_second, w.nick, w.telegram_price,
         o.ids AS open_ids, o.serts AS open_serts, o.nominals AS open_nominals, o.prices AS open_prices,
         o.variants AS open_variants, o.created AS open_created,
         v.ids AS var_ids, v.nominals AS var_nominals, v.created AS var_created, v.counts AS var_counts, v.opens AS var_opens,
         l.id AS last_id, l.nominal AS last_nominal, l.status AS last_status, l.activated_at AS last_activated_at
    FROM ${pairs}
    JOIN gamesservers g ON g.id = k.server_id
    LEFT JOIN wallets w ON w.user_id = k.owner_id AND w.gamesserver_id = g.id
    LEFT JOIN LATERAL (
      SELECT array_agg(c.id ORDER BY c.id DESC) AS ids, array_agg(c.sert ORDER BY c.id DESC) AS serts,
             array_agg(c.nominal::text ORDER BY c.id DESC) AS nominals, array_agg(c.price::text ORDER BY c.id DESC) AS prices,
             array_agg(c.pricekod_id ORDER BY c.id DESC) AS variants, array_agg(c.created_at ORDER BY c.id DESC) AS created
        FROM ((SELECT c.id, c.sert, c.nominal, c.price, c.pricekod_id, c.created_at FROM codes c
                WHERE c.user_id = k.owner_id AND c.gamesserver_id = g.id AND c.status = 'active' AND c.pricekod_id IS NULL
                ORDER BY c.id DESC LIMIT ${OPEN_CODES_LIMIT})
              UNION ALL
              (SELECT c.id, c.sert, c.nominal, c.price, c.pricekod_id, c.created_at FROM codes c
                WHERE c.user_id = k.owner_id AND c.gamesserver_id = g.id AND c.status = 'active' AND c.pricekod_id IS NOT NULL
                ORDER BY c.id DESC LIMIT ${OPEN_CODES_LIMIT})) c
    ) o ON w.id IS NOT NULL
    LEFT JOIN LATERAL (
      SELECT array_agg(p.id ORDER BY p.id DESC) AS ids, array_agg(p.nominal::text ORDER BY p.id DESC) AS nominals,
             array_agg(p.created_at ORDER BY p.id DESC) AS created,
             array_agg((SELECT count(*) FROM codes c WHERE c.pricekod_id = p.id AND c.status <> 'cancelled')::text ORDER BY p.id DESC) AS counts,
             array_agg((SELECT count(*) FROM codes c WHERE c.pricekod_id = p.id AND c.status = 'active')::text ORDER BY p.id DESC) AS opens
        FROM pricekods p
       WHERE p.user_id = k.owner_id AND p.gamesserver_id = g.id AND p.deleted_at IS NULL
    ) v ON w.id IS NOT NULL
    LEFT JOIN LATERAL (
      SELECT c.id, c.nominal, c.status, c.activated_at FROM codes c
       WHERE c.activated_by = k.owner_id AND c.gamesserver_id = g.id
       ORDER BY c.activated_at DESC, c.id DESC LIMIT 1
    ) l ON w.id IS NOT NULL`;

/** A pair's wallet as the service uses it (null: the owner has none there yet). */
function walletOf(r: PairWalletOnlyRaw) {
  return r.wallet_id === null ? null : { id: r.wallet_id, balance: r.balance!, balance_second: r.balance_second!, nick: r.nick, telegram_price: r.telegram_price };
}

/** A pair's server and wallet as the service uses them (wallet null: the owner has none there yet). */
function serverAndWalletOf(r: PairWalletRaw) {
  const server = {
    id: r.id,
    name: r.name,
    active: r.active,
    standard_nominals: r.standard_nominals,
    code_fee_bp: r.code_fee_bp,
    vip_code_fee_bp: r.vip_code_fee_bp,
    min_nominal: r.min_nominal,
  };
  return { server, wallet: walletOf(r) };
}

/** What a pair's price data shows of the owner's codes and variants there. */
function codesPartOf(r: PriceDataRaw) {
  const open = (r.open_ids ?? []).map((id, i) => ({
    id,
    sert: r.open_serts![i]!,
    gameServerId: r.id,
    nominal: BigInt(r.open_nominals![i]!),
    price: BigInt(r.open_prices![i]!),
    status: 'active' as const,
    userVariantId: r.open_variants![i] ?? null,
    createdAt: r.open_created![i]!,
    activatedAt: null,
  }));
  const variants = (r.var_ids ?? []).map((id, i) => ({
    id,
    gameServerId: r.id,
    nominal: BigInt(r.var_nominals![i]!),
    createdAt: r.var_created![i]!,
    count: r.var_counts![i]!,
    openCount: r.var_opens![i]!,
  }));
  const last =
    r.last_id === null ? undefined : { id: r.last_id, nominal: r.last_nominal!, status: r.last_status as CodeStatus, activatedAt: r.last_activated_at };
  return { open, variants, last };
}

/** One row of the price data as the service uses it. */
function priceDataOfRow(r: PriceDataRaw) {
  const { server, wallet } = serverAndWalletOf(r);
  if (wallet === null) return { server, wallet: null };
  const { open, variants, last } = codesPartOf(r);
  return { server, wallet, open, variants, last };
}

/** pairWalletStatement's row as the driver parses it. */
export interface PairWalletOnlyRaw {
  owner_id: number;
  id: number;
  wallet_id: number | null;
  balance: bigint | null;
  balance_second: bigint | null;
  nick: string | null;
  telegram_price: bigint | null;
}

/** A pair's server and wallet columns as the driver parses them. */
export interface PairWalletRaw {
  owner_id: number;
  id: number;
  name: string;
  active: boolean;
  standard_nominals: GameServerRow['standard_nominals'];
  code_fee_bp: number;
  vip_code_fee_bp: number;
  min_nominal: bigint;
  wallet_id: number | null;
  balance: bigint | null;
  balance_second: bigint | null;
  nick: string | null;
  telegram_price: bigint | null;
}

/** The price data statement's one row as the driver parses it. */
export interface PriceDataRaw extends PairWalletRaw {
  open_ids: number[] | null;
  open_serts: string[] | null;
  open_nominals: string[] | null;
  open_prices: string[] | null;
  open_variants: Array<number | null> | null;
  open_created: Date[] | null;
  var_ids: number[] | null;
  var_nominals: string[] | null;
  var_created: Date[] | null;
  var_counts: string[] | null;
  var_opens: string[] | null;
  last_id: number | null;
  last_nominal: bigint | null;
  last_status: string | null;
  last_activated_at: Date | null;
}

export type PriceDataRow = ReturnType<typeof priceDataOfRow>;
