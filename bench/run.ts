// npm run bench: GET /api/gamesservers on embedded PGlite and on PostgreSQL, beside a bare
// Fastify route measured in the same run. Prints req/s, latency, the ratio to the ceiling and each
// process's CPU per request (bench/cpu.ts says why that is the figure to compare trees by).
// Goal (issue 2): at least 0.6 of the bare route.
import { type Figures, measure, printTable, startBare, startPostgres, startServer } from './lib';

const rows: Array<{ name: string } & Figures> = [];

const bare = await startBare();
const ceiling = await measure(`${bare.url}/bare`, { cpuOf: bare.child.pid });
await bare.stop();
rows.push({ name: 'bare Fastify route (ceiling)', ...ceiling });

const embedded = await startServer();
rows.push({ name: 'GET /api/gamesservers on PGlite', ...(await measure(`${embedded.url}/api/gamesservers`, { cpuOf: embedded.child.pid })) });
await embedded.stop();

const { cluster, databaseUrl } = await startPostgres();
try {
  const server = await startServer({ databaseUrl });
  rows.push({ name: 'GET /api/gamesservers on PostgreSQL', ...(await measure(`${server.url}/api/gamesservers`, { cpuOf: server.child.pid })) });
  await server.stop();
} finally {
  cluster.stop();
}

printTable(rows, ceiling);
