import type { RealtimeMessage } from '@adena/contract';
import { io, type Socket } from 'socket.io-client';

/**
 * A socket as the web app opens one: connected with a realtime token (`POST /api/ably-token`'s answer)
 * and subscribed to its channel; `messages` holds what it hears from the moment it connects.
 */
export async function subscribedSocket(url: string, realtime: { token: string; channel: string }): Promise<{ socket: Socket; messages: RealtimeMessage[] }> {
  const socket = io(url, { path: '/socket.io/', auth: { token: realtime.token }, reconnection: false, transports: ['websocket'] });
  const messages: RealtimeMessage[] = [];
  socket.on('message', (m: RealtimeMessage) => messages.push(m));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', reject);
  });
  const ack = (await socket.timeout(5000).emitWithAck('subscribe', { channel: realtime.channel })) as { ok?: boolean };
  if (ack?.ok !== true) {
    socket.disconnect();
    throw new Error(`subscribe refused: ${JSON.stringify(ack)}`);
  }
  return { socket, messages };
}
