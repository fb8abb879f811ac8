// Shared pieces of bench/realtime.ts: users and their sessions straight into the database, 5,000
// sockets connected in batches, and the sequential "trigger → balance event" measurement with the
// marks of bench/probe.mjs (COMMIT and pg_notify on the process that handles the call, Socket.IO's
// local broadcast on the process that holds the socket).
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { realtimeChannelFor } from '@adena/contract';
import type pg from 'pg';
import { io, type Socket } from 'socket.io-client';
import { hashToken, newToken } from '../apps/server/src/lib/tokens';
import { freePort } from '../apps/server/test/pg-cluster';
import { ROOT } from './lib';

export const wall = () => performance.timeOrigin + performance.now();
export const pct = (xs: number[], p: number) => {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Mark {
  kind: 'commit' | 'notify' | 'local';
  start: number;
  end: number;
  name?: string;
}
export interface User {
  id: number;
  access: string;
  sessionId: number;
  socket: string;
}
export interface Memory {
  process: string;
  rssKiB: number;
  heapKiB: number;
}
export interface Result {
  name: string;
  memory: Memory[];
  callToEvent: number[];
  response: number[];
  commitToEvent: number[];
  commitToNotify: number[];
  notify: number[];
  notifyToBroadcast: number[];
  localToEvent: number[];
}

// PROFILE=1: a CPU profile of every probed process over the measured samples, saved under /tmp and
// summarised (self time by function, and by package) beside the figures.
const PROFILE = process.env.PROFILE === '1';
interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples: number[];
  timeDeltas: number[];
}
function report(title: string, profile: CpuProfile) {
  const file = join(tmpdir(), `realtime-${title.replace(/[^\w]+/g, '-')}.cpuprofile`);
  writeFileSync(file, JSON.stringify(profile));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  const byPackage = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const frame = byId.get(id)!.callFrame;
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    const where = frame.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/(apps|packages)\//, '$1/');
    const key = `${frame.functionName || '(anonymous)'} ${where}:${frame.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + ms);
    const pkg = frame.url === '' ? frame.functionName : (/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(frame.url)?.[1] ?? (frame.url.startsWith('node:') ? 'node' : 'app'));
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + ms);
  });
  const top = (m: Map<string, number>, n: number) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, v]) => `  ${v.toFixed(0).padStart(6)} ms  ${k}`)
      .join('\n');
  console.log(`\nCPU profile of ${title} (${file}): self time by package\n${top(byPackage, 10)}\nby function\n${top(self, 15)}`);
}

/** A process to be probed (bench/probe.mjs loaded through NODE_OPTIONS on its port). */
export interface Probed {
  label: string;
  port: number;
}
export const probeEnv = async () => {
  const port = await freePort();
  return { port, env: { PROBE_PORT: String(port), NODE_OPTIONS: `--expose-gc --import=${join(ROOT, 'bench/probe.mjs')}` } };
};
const probe = async <T>(port: number, path = '/') => (await (await fetch(`http://127.0.0.1:${port}${path}`)).json()) as T;

/**
 * Users with a wallet (with a nick) on the first server and an access token each, and an operator:
 * straight into the database, as the bench measures delivery, not sign-up.
 */
export async function seed(db: pg.Client, count: number) {
  const serverId = (await db.query('SELECT id FROM gamesservers ORDER BY sort_order LIMIT 1')).rows[0].id as number;
  const adminToken = newToken();
  // An operator has TOTP on before admin calls answer (decision record 0024): any secret will do here.
  const admin = (await db.query(`INSERT INTO users (email, name, admin, totp_secret) VALUES ('op@bench', 'op', true, 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP') RETURNING id`))
    .rows[0].id as number;
  await db.query(`INSERT INTO tokens (user_id, kind, token_hash) VALUES ($1, 'access', $2)`, [admin, hashToken(adminToken)]);
  const users: User[] = Array.from({ length: count }, () => ({ id: 0, access: newToken(), sessionId: 0, socket: '' }));
  for (let i = 0; i < users.length; i += 500) {
    const batch = users.slice(i, i + 500);
    const ids = (
      await db.query(`INSERT INTO users (email, name) SELECT 'u' || g || '-' || $1 || '@bench', 'u' FROM generate_series(1, $2) g ORDER BY g RETURNING id`, [
        i,
        batch.length,
      ])
    ).rows as { id: number }[];
    batch.forEach((u, j) => {
      u.id = ids[j]!.id;
    });
    const sessions = (
      await db.query(`INSERT INTO tokens (user_id, kind, token_hash) SELECT unnest($1::int[]), 'access', unnest($2::text[]) RETURNING id, user_id`, [
        batch.map((u) => u.id),
        batch.map((u) => hashToken(u.access)),
      ])
    ).rows as { id: number; user_id: number }[];
    const byUser = new Map(sessions.map((s) => [s.user_id, s.id]));
    for (const u of batch) u.sessionId = byUser.get(u.id)!;
    await db.query(`INSERT INTO wallets (user_id, gamesserver_id, nick) SELECT unnest($1::int[]), $2, 'Hero'`, [batch.map((u) => u.id), serverId]);
  }
  return { users, adminToken, serverId };
}

/** A fresh one-connection socket token for every user's session (a handshake uses its token up). */
export async function issueSocketTokens(db: pg.Client, users: User[]) {
  for (const u of users) u.socket = newToken();
  for (let i = 0; i < users.length; i += 1000) {
    const batch = users.slice(i, i + 1000);
    await db.query(
      `INSERT INTO tokens (user_id, kind, token_hash, expires_at, session_id)
       SELECT unnest($1::int[]), 'realtime', unnest($2::text[]), now() + interval '1 hour', unnest($3::int[])`,
      [batch.map((u) => u.id), batch.map((u) => hashToken(u.socket)), batch.map((u) => u.sessionId)],
    );
  }
}

/** Connects one socket per user (250 handshakes at a time), each subscribed to its own channel. */
async function connectAll(url: string, users: User[], tokenOf: (u: User) => string) {
  const sockets = new Map<number, Socket>();
  for (let i = 0; i < users.length; i += 250) {
    await Promise.all(
      users.slice(i, i + 250).map(
        (u) =>
          new Promise<void>((resolve, reject) => {
            const s = io(url, { path: '/socket.io/', auth: { token: tokenOf(u) }, transports: ['websocket'], reconnection: false });
            s.once('connect', () => {
              s.emit('subscribe', { channel: realtimeChannelFor(u.id) }, (a: { ok?: boolean }) => (a?.ok ? resolve() : reject(new Error(JSON.stringify(a)))));
            });
            s.once('connect_error', reject);
            sockets.set(u.id, s);
          }),
      ),
    );
  }
  return sockets;
}

const nextBalance = (socket: Socket) =>
  new Promise<number>((resolve) => {
    const on = (m: { name: string }) => {
      if (m.name !== 'balance') return;
      socket.off('message', on);
      resolve(wall());
    };
    socket.on('message', on);
  });

/**
 * Holds every user's socket on `socketsUrl` (the process `receiver` probes), then SAMPLES times:
 * `prepare` (not timed), clean probes, `trigger` timed to its response and to the balance event,
 * and the probes' marks: COMMIT and pg_notify from `caller` (the process the call goes to), the
 * local broadcast from `receiver`. Memory per socket is measured on every probed process.
 */
export async function measure(opts: {
  name: string;
  socketsUrl: string;
  caller: Probed;
  receiver: Probed;
  users: User[];
  samples: number;
  warmup?: number;
  tokenOf: (u: User) => string;
  trigger: (u: User) => Promise<() => Promise<Response>>;
}): Promise<Result> {
  const { name, users, caller, receiver } = opts;
  const probed = caller.port === receiver.port ? [caller] : [caller, receiver];
  const before = await Promise.all(probed.map((p) => probe<NodeJS.MemoryUsage>(p.port, '/gc')));
  const sockets = await connectAll(opts.socketsUrl, users, opts.tokenOf);
  await sleep(2000);
  const after = await Promise.all(probed.map((p) => probe<NodeJS.MemoryUsage>(p.port, '/gc')));
  const r: Result = {
    name,
    memory: probed.map((p, i) => ({
      process: p.label,
      rssKiB: (after[i]!.rss - before[i]!.rss) / sockets.size / 1024,
      heapKiB: (after[i]!.heapUsed + after[i]!.external - before[i]!.heapUsed - before[i]!.external) / sockets.size / 1024,
    })),
    callToEvent: [],
    response: [],
    commitToEvent: [],
    commitToNotify: [],
    notify: [],
    notifyToBroadcast: [],
    localToEvent: [],
  };
  const warmup = opts.warmup ?? 50;
  for (let i = 0; i < warmup + opts.samples; i++) {
    if (PROFILE && i === warmup) await Promise.all(probed.map((p) => probe(p.port, '/prof/start')));
    const u = users[(i * 7919) % users.length]!;
    const call = await opts.trigger(u);
    await Promise.all(probed.map((p) => probe(p.port))); // clears the marks of the preparation
    const got = nextBalance(sockets.get(u.id)!);
    const t0 = wall();
    const res = await call();
    const tRes = wall();
    if (!res.ok) throw new Error(`${name}: HTTP ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
    const tEv = await got;
    const [callerMarks, receiverMarks] = await Promise.all([probe<Mark[]>(caller.port), probed.length > 1 ? probe<Mark[]>(receiver.port) : Promise.resolve(null)]);
    const marksOfReceiver = receiverMarks ?? callerMarks;
    if (i < warmup) continue;
    r.callToEvent.push(tEv - t0);
    r.response.push(tRes - t0);
    // The balance's broadcast to the socket's process, its NOTIFY (when relayed), and the last COMMIT before that.
    const local = marksOfReceiver.filter((m) => m.kind === 'local' && (m.name === undefined || m.name === 'balance') && m.start <= tEv).at(-1);
    const notify = callerMarks.filter((m) => m.kind === 'notify' && m.name === 'balance' && (!local || m.start <= local.start)).at(-1);
    const before = notify?.start ?? local?.start;
    const commit = callerMarks.filter((m) => m.kind === 'commit' && (before === undefined || m.end <= before + 0.01)).at(-1);
    if (commit) r.commitToEvent.push(tEv - commit.end);
    if (commit && notify) r.commitToNotify.push(notify.start - commit.end);
    if (notify) r.notify.push(notify.end - notify.start);
    if (notify && local && probed.length > 1) r.notifyToBroadcast.push(local.start - notify.end);
    if (local) r.localToEvent.push(tEv - local.start);
  }
  if (PROFILE) for (const p of probed) report(`${name} — ${p.label}`, await probe<CpuProfile>(p.port, '/prof/stop'));
  for (const s of sockets.values()) s.disconnect();
  await sleep(1000);
  return r;
}

const f = (xs: number[]) => (xs.length ? `${pct(xs, 50).toFixed(1)} / ${pct(xs, 99).toFixed(1)}` : '–');

/** The table of one scenario, and whether the app (its first row) met the goal. */
export function printResults(title: string, results: Result[], goalMs: number) {
  console.log(`\n${title}; ms as p50 / p99 (goal: the app's p99 call → event < ${goalMs} ms)`);
  console.log(
    '| server | call → event | call → response | COMMIT → event | COMMIT → pg_notify | pg_notify | NOTIFY → broadcast | broadcast → event | KiB/socket RSS | KiB/socket heap |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    const mem = (k: 'rssKiB' | 'heapKiB') => r.memory.map((m) => `${m[k].toFixed(1)}${r.memory.length > 1 ? ` (${m.process})` : ''}`).join(', ');
    console.log(
      `| ${r.name} | ${f(r.callToEvent)} | ${f(r.response)} | ${f(r.commitToEvent)} | ${f(r.commitToNotify)} | ${f(r.notify)} | ${f(r.notifyToBroadcast)} | ${f(r.localToEvent)} | ${mem('rssKiB')} | ${mem('heapKiB')} |`,
    );
  }
  const app = results[0]!;
  const p99 = pct(app.callToEvent, 99);
  console.log(`${app.name}: p99 call → event ${p99.toFixed(1)} ms: ${p99 < goalMs ? 'goal met' : 'goal NOT met'}; max ${Math.max(...app.callToEvent).toFixed(1)} ms`);
}
