// The ceiling: a bare Fastify route on this machine, no database, no plugins.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/bare', async () => [{ id: 1, name: 'Scryde x50' }]);
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
