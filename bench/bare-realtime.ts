// The realtime ceiling for bench/realtime.ts: Fastify + Socket.IO on one port, nothing else. A
// socket's auth token is its user id; it may subscribe to that user's channel. POST /emit
// {userId} sends the same `balance` message the app sends. With ADAPTER=pg and DATABASE_URL it
// installs the same PostgreSQL adapter as the app (its own pool), to isolate that adapter's cost.
import { realtimeChannelFor } from '@adena/contract';
import { createAdapter } from '@socket.io/postgres-adapter';
import Fastify from 'fastify';
import pg from 'pg';
import { Server } from 'socket.io';

const app = Fastify({ logger: false });
const io = new Server(app.server, { path: '/socket.io/', serveClient: false, cors: { origin: false } });
const pool = process.env.ADAPTER === 'pg' ? new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 20 }) : undefined;
if (pool) io.adapter(createAdapter(pool));

io.use((socket, next) => {
  socket.data.userId = Number((socket.handshake.auth as { token?: string }).token);
  next();
});
io.on('connection', (socket) => {
  socket.on('subscribe', (body: { channel?: string }, ack?: (a: unknown) => void) => {
    if (body?.channel !== realtimeChannelFor(socket.data.userId)) return ack?.({ error: 'forbidden' });
    void socket.join(body.channel);
    ack?.({ ok: true });
  });
});

app.get('/bare', async () => ({ ok: true }));
app.post<{ Body: { userId: number } }>('/emit', async (req) => {
  const channel = realtimeChannelFor(req.body.userId);
  io.to(channel).emit('message', { channel, name: 'balance', data: { gamesserver_id: 1, balance: 1_000_000, balance_second: 0 } });
  return { ok: true };
});

await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.on('SIGTERM', () => {
  void io.close();
  void app.close().then(async () => {
    await pool?.end();
    process.exit(0);
  });
});
