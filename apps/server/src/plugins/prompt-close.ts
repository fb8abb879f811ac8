import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/**
 * Closing without waiting on connections that never carried a request. Node's `server.close()`
 * closes idle keep-alive connections and waits for the rest; a connection that was opened but has
 * not sent a byte yet is not counted as idle (its header timer runs from the connect), and browsers
 * open such connections ahead of need: one of them kept a deploy's close waiting for minutes
 * (main.ts then gives up and exits 1). So, once closing begins:
 * - a connection that has read nothing is closed at once (a browser sends its request on a new
 *   connection, which the balancer gives another process);
 * - one with a request in flight or arriving is served, and its answer says `Connection: close`, so
 *   Node ends it after sending it whole;
 * - idle keep-alive connections Node closes itself; Socket.IO's upgraded ones the engine closes.
 * Only connections are tracked, not requests: nothing is added to a request's own path.
 */
export function closePromptly(app: FastifyInstance): void {
  const open = new Set<Socket>();
  let closing = false;

  app.server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });

  app.addHook('preClose', async () => {
    closing = true;
    for (const socket of open) if (socket.bytesRead === 0) socket.destroy();
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('Connection', 'close');
    done(null, payload);
  });
}
