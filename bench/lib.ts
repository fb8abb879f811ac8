// Shared pieces of the benchmark scripts: a throwaway PostgreSQL, the real server as its own
// process, a bare Fastify route as the ceiling, and autocannon runs printed as figures.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { freePort, type PgCluster, startPgCluster } from '../apps/server/test/pg-cluster';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// BENCH_TREE=/path/to/another/checkout: measure that tree's server instead (its own
// scripts/build.mjs builds it), e.g. the commit before a change, with this tree's harness.
const TREE = process.env.BENCH_TREE ? resolve(process.env.BENCH_TREE) : ROOT;
const MAIN = join(TREE, 'apps/server/dist/main.js');

let built = false;
/**
 * The server is measured as production runs it (`npm start`): the esbuild bundle in
 * apps/server/dist, built from the working tree once per bench run, not the TypeScript through tsx
 * (whose kept function names cost every closure a property definition).
 */
function buildServer() {
  if (built) return;
  const r = spawnSync(process.execPath, [join(TREE, 'scripts/build.mjs'), 'server'], { cwd: TREE, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`server build failed: ${r.stderr || r.stdout}`);
  built = true;
}

export interface Proc {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

async function waitFor(url: string, child: ChildProcess, output: () => string) {
  for (let i = 0; i < 240; i++) {
    if (child.exitCode !== null) throw new Error(`process exited early:\n${output()}`);
    const ok = await fetch(url)
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out waiting for ${url}:\n${output()}`);
}

// Child servers die with the bench, even when it crashes half-way.
const children = new Set<ChildProcess>();
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL');
});

function spawnNode(script: string, env: Record<string, string>, nodeArgs: string[] = []) {
  const runner = script.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const child = spawn(process.execPath, [...nodeArgs, ...runner, script], {
    cwd: script === MAIN ? TREE : ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  let out = '';
  child.stdout?.on('data', (d) => {
    out += d;
  });
  child.stderr?.on('data', (d) => {
    out += d;
  });
  const stop = () =>
    new Promise<void>((r) => {
      if (child.exitCode !== null) return r();
      child.once('exit', () => r());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
    });
  return { child, output: () => out, stop };
}

/** The real server (main.ts) in its own process; embedded PGlite unless a databaseUrl is given. */
export async function startServer(opts: { databaseUrl?: string; env?: Record<string, string> } = {}): Promise<Proc> {
  buildServer();
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'adena-bench-'));
  const p = spawnNode(MAIN, {
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    DATA_DIR: dataDir,
    WEB_DIST: '/nonexistent',
    // The call limits run as in production, but 100,000 times higher, so a benchmark measures the
    // same path (decision record 0019) without being refused.
    RATE_LIMIT_SCALE: '100000',
    // DATABASE_POOL_SIZE=n in the bench's environment: the server's pool size (else its default, 8).
    ...(process.env.DATABASE_POOL_SIZE ? { DATABASE_POOL_SIZE: process.env.DATABASE_POOL_SIZE } : {}),
    ...(opts.databaseUrl ? { DATABASE_URL: opts.databaseUrl } : {}),
    ...opts.env,
    // BENCH_CPU_PROF=dir: the server writes a V8 CPU profile there when it stops.
  }, process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []);
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/api/health`, p.child, p.output);
  return {
    url,
    child: p.child,
    async stop() {
      await p.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A bare Fastify route answering a small JSON body: the ceiling for any route of ours. */
export async function startBare(): Promise<Proc> {
  const port = await freePort();
  const p = spawnNode(join(ROOT, 'bench/bare-server.ts'), { PORT: String(port) });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/bare`, p.child, p.output);
  return { url, child: p.child, stop: p.stop };
}

/** Any bench script as its own process (run with tsx, PORT set), ready when GET `readyPath` answers 2xx. */
export async function startScript(script: string, env: Record<string, string> = {}, readyPath = '/bare'): Promise<Proc> {
  const port = await freePort();
  const p = spawnNode(join(ROOT, script), { PORT: String(port), ...env });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}${readyPath}`, p.child, p.output);
  return { url, child: p.child, stop: p.stop };
}

/** The admin that ADMIN_EMAIL/ADMIN_PASSWORD create at start-up: the caller of the signed-in benchmarks (`env` of startServer). */
export const BENCH_ADMIN = { ADMIN_EMAIL: 'bench@adena.local', ADMIN_PASSWORD: 'bench-password-1' } as const;

/** The headers of a signed-in call as BENCH_ADMIN, with the bearer of a real POST /api/login. */
export async function signInAdmin(url: string): Promise<{ authorization: string }> {
  const res = await fetch(`${url}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: BENCH_ADMIN.ADMIN_EMAIL, password: BENCH_ADMIN.ADMIN_PASSWORD }),
  });
  if (!res.ok) throw new Error(`login failed: HTTP ${res.status} ${await res.text()}`);
  const { access_token } = (await res.json()) as { access_token: string };
  return { authorization: `Bearer ${access_token}` };
}

/** The first game server's id, where the caller of `headers` then has a wallet (saving a nick makes one). */
export async function walletOnFirstServer(url: string, headers: Record<string, string>): Promise<number> {
  const servers = (await (await fetch(`${url}/api/gamesservers`)).json()) as Array<{ id: number }>;
  const serverId = servers[0]?.id;
  if (serverId === undefined) throw new Error('no game server');
  const res = await fetch(`${url}/api/save_nick/`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ gamesserver_id: serverId, nick: 'BenchHero' }),
  });
  if (!res.ok) throw new Error(`save_nick failed: HTTP ${res.status} ${await res.text()}`);
  return serverId;
}

/** A throwaway PostgreSQL cluster with one fresh database for the app. */
export async function startPostgres(name = 'adena_bench'): Promise<{ cluster: PgCluster; databaseUrl: string }> {
  const cluster = await startPgCluster();
  const admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  return { cluster, databaseUrl: cluster.url.replace(/\/postgres$/, `/${name}`) };
}

export interface Figures {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** With `cpuOf`: the measured process's CPU (user + system) per answered request over the measured run, µs. */
  cpuUs?: number;
}

/** CPU ms so far (user + system, 10 ms ticks) of a process, from /proc (Linux). */
export function cpuMsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
}

export async function measure(
  url: string,
  opts: {
    connections?: number;
    duration?: number;
    headers?: Record<string, string>;
    method?: 'GET' | 'POST';
    body?: string;
    /** Headers of each connection in turn (e.g. one player's bearer per connection), over `headers`. */
    perConnection?: Array<Record<string, string>>;
    /** A process (the server's pid) whose CPU per request to report as `cpuUs`. */
    cpuOf?: number;
  } = {},
): Promise<Figures> {
  // autocannon treats a present-but-undefined option as set: pass only what is given.
  const request = {
    method: opts.method ?? 'GET',
    ...(opts.headers ? { headers: opts.headers } : {}),
    ...(opts.body !== undefined ? { body: opts.body } : {}),
  } as const;
  const each = opts.perConnection;
  const setup = () => {
    let n = 0;
    return each ? { setupClient: (client: { setHeaders(h: Record<string, string>): void }) => client.setHeaders({ ...opts.headers, ...each[n++ % each.length] }) } : {};
  };
  // A short warm-up so JIT and connection pools are ready before the measured run.
  await autocannon({ url, connections: 4, duration: 1, ...request, ...setup() });
  const cpu0 = opts.cpuOf === undefined ? 0 : cpuMsOf(opts.cpuOf);
  const r = await autocannon({ url, connections: opts.connections ?? 32, duration: opts.duration ?? 8, ...request, ...setup() });
  const figures: Figures = { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.non2xx + r.timeouts };
  if (opts.cpuOf !== undefined && r.requests.total > 0) figures.cpuUs = ((cpuMsOf(opts.cpuOf) - cpu0) * 1000) / r.requests.total;
  return figures;
}

/** The table of a run; a `cpu µs` column (the measured process's CPU per request) when any row has it. */
export function printTable(rows: Array<{ name: string } & Figures>, ceiling: Figures) {
  const cpu = rows.some((r) => r.cpuUs !== undefined);
  const cpuHead = cpu ? ` ${'cpu µs'.padStart(7)}` : '';
  console.log(`\n${'case'.padEnd(42)} ${'req/s'.padStart(9)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'errors'.padStart(7)} ${'of bare'.padStart(8)}${cpuHead}`);
  for (const r of rows) {
    const cpuCell = cpu ? ` ${(r.cpuUs === undefined ? '–' : r.cpuUs.toFixed(1)).padStart(7)}` : '';
    console.log(
      `${r.name.padEnd(42)} ${r.rps.toFixed(0).padStart(9)} ${String(r.p50).padStart(7)} ${String(r.p99).padStart(7)} ${String(r.errors).padStart(7)} ${(r.rps / ceiling.rps).toFixed(2).padStart(8)}${cpuCell}`,
    );
  }
}
