import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { collectDefaultMetrics, Gauge, type Metric, Registry } from 'prom-client';
import { type OperationsDb, operationsRepository as repo } from './operations.repository';

export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
  max: number;
}

export interface MetricsDeps {
  db: OperationsDb;
  /** The database pool's figures (null on the embedded database: one session, no pool). */
  poolStats: () => PoolStats | null;
  /** Socket.IO connections this process holds. */
  openSockets: () => number;
  log: { warn(obj: object, msg: string): void };
  /** How long a scrape waits for the database's figures before answering without them (adena_db_up 0). */
  dbReadBoundMs?: number;
}

const CURRENCY = { 1: 'adena', 2: 'coins' } as const;

/**
 * Prometheus metrics (prom-client) in a registry of this app's own, served on METRICS_PORT by a
 * listener separate from the public port. Request counts and durations are counted here as they
 * happen; the database's figures (pending requests, the job queue, movements of value) are read
 * when Prometheus scrapes, so every process reports the same shared truth and nothing is kept
 * between scrapes. A scrape while the database is away reports the process's own figures only.
 */
// Long: a factory of short functions sharing the process's counters and the scrape's listener.
export function createMetrics({ db, poolStats, openSockets, log, dbReadBoundMs = 5_000 }: MetricsDeps) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  const requests = requestSeries(registry, [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]);
  new Gauge({
    name: 'adena_db_pool_connections',
    help: 'Database pool connections by state (total, idle, waiting clients, max)',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const s = poolStats();
      if (!s) return;
      for (const state of ['total', 'idle', 'waiting', 'max'] as const) this.set({ state }, s[state]);
    },
  });
  new Gauge({
    name: 'adena_realtime_sockets',
    help: 'Open realtime (Socket.IO) connections on this process',
    registers: [registry],
    collect() {
      this.set(openSockets());
    },
  });
  const pending = new Gauge({
    name: 'adena_pending_requests',
    help: 'Deposits and withdrawals waiting for an operator, by game server, type and currency',
    labelNames: ['server', 'type', 'currency'] as const,
    registers: [registry],
  });
  const jobs = new Gauge({
    name: 'adena_jobs',
    help: 'Jobs in the queue by kind and state (pending, running, failed)',
    labelNames: ['kind', 'state'] as const,
    registers: [registry],
  });
  const movements = new Gauge({
    name: 'adena_money_movements',
    help: 'Ledger transactions (movements of value) recorded, by kind; a counter kept by the database',
    labelNames: ['kind'] as const,
    registers: [registry],
  });
  const dbUp = new Gauge({ name: 'adena_db_up', help: '1 when the last scrape reached the database', registers: [registry] });

  async function readDatabase() {
    try {
      const [p, j, m] = await Promise.all([repo.pendingRequests(db), repo.jobs(db), repo.movements(db)]);
      pending.reset();
      for (const r of p) pending.set({ server: String(r.gamesserver_id), type: r.type, currency: CURRENCY[r.currency_type as 1 | 2] ?? String(r.currency_type) }, Number(r.n));
      jobs.reset();
      for (const r of j) jobs.set({ kind: r.kind, state: r.state }, Number(r.n));
      movements.reset();
      for (const r of m) movements.set({ kind: r.kind }, Number(r.n));
      dbUp.set(1);
    } catch (err) {
      dbUp.set(0);
      log.warn({ err: (err as Error).message }, 'metrics: database figures unavailable');
    }
  }

  /**
   * One read of the database's figures at a time: scrapes arriving meanwhile share it, and none waits
   * longer than dbReadBoundMs (a slow or locked database then reads adena_db_up 0). Before, every scrape
   * (each Prometheus, every 15 s) held three pool connections for as long as the database took, so a
   * slow database piled scrapes up until they filled the pool the players' calls need.
   */
  let reading: Promise<void> | null = null;
  async function readDatabaseBounded() {
    reading ??= readDatabase().finally(() => {
      reading = null;
    });
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), dbReadBoundMs);
    });
    try {
      if ((await Promise.race([reading, bound])) === 'late') {
        dbUp.set(0);
        log.warn({ boundMs: dbReadBoundMs }, 'metrics: database figures late; answered without them');
      }
    } finally {
      clearTimeout(timer);
    }
  }

  let server: Server | null = null;
  return {
    /** Called once per answered request (onResponse). `route` is the route's pattern, never the raw URL. */
    observe(route: string, method: string, status: number, seconds: number) {
      requests.observe(route, method, status, seconds);
    },
    async text() {
      await readDatabaseBounded();
      return registry.metrics();
    },
    contentType: registry.contentType,
    /** Starts the separate listener; resolves with its port. */
    async listen(port: number, host: string): Promise<number> {
      server = createServer((req, res) => {
        if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
          res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Not found\n');
          return;
        }
        this.text().then(
          (body) => res.writeHead(200, { 'Content-Type': registry.contentType }).end(body),
          (err: Error) => res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' }).end(`${err.message}\n`),
        );
      });
      await new Promise<void>((resolve, reject) => {
        server!.once('error', reject);
        server!.listen(port, host, () => resolve());
      });
      return (server.address() as AddressInfo).port;
    },
    async close() {
      const s = server;
      server = null;
      if (!s) return;
      // A scrape is cheap to cut and repeat; a connection left open by a scraper must not hold the close.
      const closed = new Promise<void>((resolve) => s.close(() => resolve()));
      s.closeAllConnections();
      await closed;
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

type Labels = { route: string; method: string; status: string };
interface Series {
  labels: Labels;
  /** Answers per bucket, not cumulative; the last counts those above every bound. */
  counts: number[];
  sum: number;
  count: number;
}

/**
 * `adena_http_requests_total` and `adena_http_request_duration_seconds` in the exposition format
 * prom-client writes for a Counter and a Histogram, counted in plain arrays (decision record 0027,
 * second pass): prom-client hashes the label object on every observation, which cost more than the
 * rest of a small answer's hooks; here an answer costs one map lookup, and the text is built when
 * Prometheus scrapes.
 */
function requestSeries(registry: Registry, bounds: number[]) {
  const series = new Map<string, Series>();
  const metric = (name: string, help: string, type: 'counter' | 'histogram', values: () => unknown[]) =>
    ({
      name,
      help,
      type,
      aggregator: 'sum',
      get: async () => ({ name, help, type, aggregator: 'sum', values: values() }),
      reset: () => series.clear(),
    }) as unknown as Metric;
  registry.registerMetric(
    metric('adena_http_requests_total', 'HTTP requests answered, by route, method and status', 'counter', () =>
      [...series.values()].map((s) => ({ labels: s.labels, value: s.count })),
    ),
  );
  const durations = 'adena_http_request_duration_seconds';
  registry.registerMetric(
    metric(durations, 'Time to answer an HTTP request, by route, method and status', 'histogram', () =>
      [...series.values()].flatMap((s) => {
        let below = 0;
        return [
          ...bounds.map((le, i) => {
            below += s.counts[i] ?? 0;
            return { labels: { le, ...s.labels }, value: below, metricName: `${durations}_bucket` };
          }),
          { labels: { le: '+Inf', ...s.labels }, value: s.count, metricName: `${durations}_bucket` },
          { labels: s.labels, value: s.sum, metricName: `${durations}_sum` },
          { labels: s.labels, value: s.count, metricName: `${durations}_count` },
        ];
      }),
    ),
  );
  return {
    observe(route: string, method: string, status: number, seconds: number) {
      const key = `${status} ${method} ${route}`;
      let s = series.get(key);
      if (!s) {
        s = { labels: { route, method, status: String(status) }, counts: new Array<number>(bounds.length + 1).fill(0), sum: 0, count: 0 };
        series.set(key, s);
      }
      let i = 0;
      while (i < bounds.length && seconds > (bounds[i] as number)) i++;
      s.counts[i] = (s.counts[i] ?? 0) + 1;
      s.sum += seconds;
      s.count++;
    },
  };
}
