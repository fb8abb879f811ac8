// Loaded into a server process with NODE_OPTIONS=--import=<this file> (bench/realtime.ts):
// stamps, in wall-clock milliseconds shared by every process on the machine, the moments a
// request's COMMIT returns, the realtime adapter's pg_notify starts and returns, and Socket.IO
// hands the packet to the local sockets (each with the event's name when it has one). GET http://127.0.0.1:$PROBE_PORT/ returns and clears
// them.
import { createServer } from 'node:http';
import { Session } from 'node:inspector';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const require = createRequire(join(process.cwd(), 'apps/server/package.json'));
const now = () => performance.timeOrigin + performance.now();
let marks = [];
// PROBE_ALL=1: every query, with the start of its text (for a breakdown of one request).
const ALL = process.env.PROBE_ALL === '1';

const pg = require('pg');
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (config, ...rest) {
  const text = typeof config === 'string' ? config : config?.text;
  const kind = text === 'commit' ? 'commit' : typeof text === 'string' && text.startsWith('SELECT pg_notify') ? 'notify' : ALL ? 'query' : null;
  if (!kind) return query.call(this, config, ...rest);
  const start = now();
  // A NOTIFY's event name (`"name":"balance"` in the adapter's JSON), so a bench can pick the one it waits for.
  const name = kind === 'notify' ? /"name":"(\w+)"/.exec(String(rest[0]?.[1] ?? ''))?.[1] : undefined;
  const done = () => marks.push({ kind, start, end: now(), ...(name ? { name } : {}), ...(ALL ? { text: String(text).slice(0, 120) } : {}) });
  // pg-pool's pool.query (the adapter's path) passes a callback; Kysely awaits the promise.
  const cb = rest.at(-1);
  if (typeof cb === 'function') {
    rest[rest.length - 1] = function (...args) {
      done();
      return cb.apply(this, args);
    };
    return query.call(this, config, ...rest);
  }
  const out = query.call(this, config, ...rest);
  out?.then?.(done, () => {});
  return out;
};

const { Adapter } = require(require.resolve('socket.io-adapter', { paths: [require.resolve('socket.io')] }));
const broadcast = Adapter.prototype.broadcast;
Adapter.prototype.broadcast = function (packet, opts) {
  const start = now();
  const r = broadcast.call(this, packet, opts);
  const name = packet?.data?.[1]?.name;
  marks.push({ kind: 'local', start, end: now(), ...(typeof name === 'string' ? { name } : {}) });
  return r;
};

// GET /prof/start, then /prof/stop: a V8 CPU profile of the process, answered as .cpuprofile JSON.
const session = new Session();
session.connect();
const inspect = (method, params = {}) => new Promise((resolve, reject) => session.post(method, params, (err, r) => (err ? reject(err) : resolve(r))));

// GET /gc: a full collection (the process runs with --expose-gc), then its memory.
createServer((req, res) => {
  res.setHeader('content-type', 'application/json');
  if (req.url === '/prof/start') {
    void inspect('Profiler.enable')
      .then(() => inspect('Profiler.setSamplingInterval', { interval: 200 }))
      .then(() => inspect('Profiler.start'))
      .then(() => res.end('{}'));
    return;
  }
  if (req.url === '/prof/stop') {
    void inspect('Profiler.stop').then((r) => res.end(JSON.stringify(r.profile)));
    return;
  }
  if (req.url === '/gc') {
    globalThis.gc?.();
    globalThis.gc?.();
    res.end(JSON.stringify(process.memoryUsage()));
    return;
  }
  res.end(JSON.stringify(marks));
  marks = [];
})
  .listen(Number(process.env.PROBE_PORT), '127.0.0.1')
  .unref();
