import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/**
 * Closing without waiting on connections that carry no request. Node's `server.close()` waits for
 * every open connection, and it does not count one that was opened but has not sent a request yet
 * as idle; browsers open such connections ahead of need, and one of them kept a deploy's close
 * waiting for minutes (main.ts then gives up and exits 1). So, once closing begins:
 * - a connection with no request in flight and none arriving is closed at once (a browser sends
 *   its next request on a new connection, which the balancer gives another process);
 * - an answer to a request in flight says `Connection: close`, and Node ends the connection after
 *   sending it whole;
 * - Socket.IO's upgraded connections are left to the engine, which closes them itself.
 */
export function closePromptly(app: FastifyInstance): void {
  /** Per open connection: requests in flight, and how many bytes it had read when the last one ended. */
  const open = new Map<Socket, { requests: number; readWhenIdle: number }>();
  let closing = false;

  app.server.on('connection', (socket: Socket) => {
    open.set(socket, { requests: 0, readWhenIdle: 0 });
    socket.once('close', () => open.delete(socket));
  });
  app.server.on('upgrade', (request: { socket: Socket }) => open.delete(request.socket));
  app.server.on('request', (request: { socket: Socket }, response: { once(event: 'close', listener: () => void): void }) => {
    const state = open.get(request.socket);
    if (!state) return;
    state.requests++;
    response.once('close', () => {
      state.requests--;
      state.readWhenIdle = request.socket.bytesRead;
    });
  });

  app.addHook('preClose', async () => {
    closing = true;
    // Silent since its last answer (or since it opened): no request is on its way either.
    for (const [socket, state] of open) if (state.requests === 0 && socket.bytesRead === state.readWhenIdle) socket.destroy();
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('Connection', 'close');
    done(null, payload);
  });
}
