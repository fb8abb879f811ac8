import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
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
}

const CURRENCY = { 1: 'adena', 2: 'coins' } as const;

/**
 * Prometheus metrics (prom-client) in a registry of this app's own, served on METRICS_PORT by a
 * listener separate from the public port. Request counts and durations are counted here as they
 * happen; the database's figures (pending requests, the job queue, movements of value) are read
 * when Prometheus scrapes, so every process reports the same shared truth and nothing is kept
 * between scrapes. A scrape while the database is away reports the process's own figures only.
 */
export function createMetrics({ db, poolStats, openSockets, log }: MetricsDeps) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  const requests = new Counter({
    name: 'adena_http_requests_total',
    help: 'HTTP requests answered, by route, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [registry],
  });
  const durations = new Histogram({
    name: 'adena_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by route, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
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

  let server: Server | null = null;
  return {
    /** Called once per answered request (onResponse). `route` is the route's pattern, never the raw URL. */
    observe(route: string, method: string, status: number, seconds: number) {
      const labels = { route, method, status: String(status) };
      requests.inc(labels);
      durations.observe(labels, seconds);
    },
    async text() {
      await readDatabase();
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
      if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
