// node --import tsx bench/withdrawal-sql.ts [calls]: where PostgreSQL spends one withdrawal's
// statement (decision record 0027). A throwaway cluster, 1 000 funded wallets; after a warm-up,
// auto_explain (ANALYZE, nested statements, sent to this client as NOTICEs) over CALLS calls of the
// app's statement, summed per nested statement: the statement text, calls and total ms, largest
// first. Timing under EXPLAIN ANALYZE inflates every figure alike; read the shares, not the ms.
import pg from 'pg';
import { cpuMsOf, startPostgres } from './lib';
import { replayDatabase } from './replay-db';

const CALLS = Number(process.argv[2] ?? 200);
const WALLETS = 1000;
const { cluster, databaseUrl } = await startPostgres('adena_bench_sql');
try {
  const { serverId, lo, hi } = await replayDatabase(databaseUrl, WALLETS);

  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  // TRY='sql': run before measuring (e.g. disable a trigger or drop an index) to see what a part costs.
  if (process.env.TRY) await c.query(process.env.TRY);
  const statement = `SELECT r.*, false AS replayed FROM request_open(withdrawer_id($1, false), $2, 'output', 1::smallint, 1000000::bigint) r WHERE bearer_still_live($1, r.user_id)`;
  // Named, so prepared once, as the server's pool names every parameterised statement (db/client.ts).
  const call = () => c.query({ name: 'withdrawal', text: statement, values: [`replay-${lo + Math.floor(Math.random() * (hi - lo + 1))}`, serverId] });
  for (let i = 0; i < 2000; i++) await call();
  // The backend's own CPU (utime + stime from /proc, 10 ms ticks) over PLAIN calls: what the
  // statement costs PostgreSQL, whatever else loads the machine.
  const backend = (await c.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
  const cpuMs = () => cpuMsOf(backend);
  const PLAIN = Number(process.env.PLAIN ?? 5000);
  const c0 = cpuMs();
  const t0 = performance.now();
  for (let i = 0; i < PLAIN; i++) await call();
  const wall = (performance.now() - t0) / PLAIN;
  console.log(`plain: PostgreSQL CPU ${((cpuMs() - c0) / PLAIN).toFixed(3)} ms a call (${PLAIN} calls, one client); wall ${wall.toFixed(3)} ms with the round trip`);

  const byText = new Map<string, { n: number; ms: number }>();
  let shown = '';
  c.on('notice', (msg) => {
    const m = /duration: ([\d.]+) ms\s+plan:\nQuery Text: ([\s\S]*?)\n(?=\S)/.exec(msg.message ?? '');
    if (!m) return;
    const text = m[2]!.replace(/\s+/g, ' ').trim().slice(0, 140);
    // SHOW=text: print the last plan of the nested statement that starts with it.
    if (process.env.SHOW && text.startsWith(process.env.SHOW)) shown = msg.message ?? '';
    const e = byText.get(text) ?? { n: 0, ms: 0 };
    e.n++;
    e.ms += Number(m[1]);
    byText.set(text, e);
  });
  await c.query(`LOAD 'auto_explain'`);
  await c.query(`SET auto_explain.log_min_duration = 0; SET auto_explain.log_analyze = on; SET auto_explain.log_nested_statements = on;
    SET auto_explain.log_level = notice; SET auto_explain.log_timing = on; SET auto_explain.log_triggers = on`);
  for (let i = 0; i < CALLS; i++) await call();
  await c.end();
  if (shown) console.log(shown);
  const total = byText.get([...byText.keys()].find((t) => t.startsWith('SELECT *, false AS replayed'))!)?.ms ?? 1;
  if (CALLS > 0) console.log(`per nested statement over ${CALLS} calls (share of the outer statement's time; nested ones overlap their callers):`);
  for (const [text, e] of [...byText].sort((a, b) => b[1].ms - a[1].ms)) {
    console.log(`${((100 * e.ms) / total).toFixed(1).padStart(6)}%  ${(e.ms / CALLS).toFixed(3)} ms/call  ×${(e.n / CALLS).toFixed(1)}  ${text}`);
  }
} finally {
  cluster.stop();
}
