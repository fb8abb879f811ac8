// npm run bench: GET /api/gamesservers on embedded PGlite and on PostgreSQL, beside a bare
// Fastify route measured in the same run. Prints req/s, latency and the ratio to the ceiling.
// Goal (issue 2): at least 0.6 of the bare route.
import { type Figures, measure, printTable, startBare, startPostgres, startServer } from './lib';

const rows: Array<{ name: string } & Figures> = [];

const bare = await startBare();
const ceiling = await measure(`${bare.url}/bare`);
await bare.stop();
rows.push({ name: 'bare Fastify route (ceiling)', ...ceiling });

const embedded = await startServer();
rows.push({ name: 'GET /api/gamesservers on PGlite', ...(await measure(`${embedded.url}/api/gamesservers`)) });
await embedded.stop();

const { cluster, databaseUrl } = await startPostgres();
try {
  const server = await startServer({ databaseUrl });
  rows.push({ name: 'GET /api/gamesservers on PostgreSQL', ...(await measure(`${server.url}/api/gamesservers`)) });
  await server.stop();
} finally {
  cluster.stop();
}

printTable(rows, ceiling);
