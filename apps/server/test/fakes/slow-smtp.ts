import { type AddressInfo, createServer, type Socket } from 'node:net';

/**
 * An SMTP relay on loopback that answers every command (the greeting too) only after `delayMs`,
 * as a relay under load does: each wait stays under the client's idle timeout while the whole
 * send takes several times as long. It records, per connection, whether the end of DATA arrived
 * and when the client closed the connection.
 */
export async function startSlowSmtp(delayMs: number) {
  const sessions: Array<{ dataEnded: boolean; closedAt: number | null }> = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    const session = { dataEnded: false, closedAt: null as number | null };
    sessions.push(session);
    const reply = (line: string) =>
      setTimeout(() => {
        if (!socket.destroyed) socket.write(`${line}\r\n`);
      }, delayMs);
    let buffer = '';
    let inData = false;
    socket.on('error', () => {});
    socket.on('close', () => {
      session.closedAt = Date.now();
      sockets.delete(socket);
    });
    socket.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('latin1');
      for (;;) {
        if (inData) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end < 0) return;
          buffer = buffer.slice(end + 5);
          inData = false;
          session.dataEnded = true;
          reply('250 2.0.0 queued');
          continue;
        }
        const eol = buffer.indexOf('\r\n');
        if (eol < 0) return;
        const command = buffer.slice(0, eol).toUpperCase();
        buffer = buffer.slice(eol + 2);
        if (command.startsWith('EHLO') || command.startsWith('HELO')) reply('250 slow.test');
        else if (command.startsWith('DATA')) {
          inData = true;
          // The end of DATA may follow at once, in the same chunk: it is looked for from "\r\n".
          buffer = `\r\n${buffer}`;
          reply('354 go ahead');
        } else if (command.startsWith('QUIT')) {
          reply('221 bye');
          setTimeout(() => socket.end(), delayMs);
        } else reply('250 ok');
      }
    });
    reply('220 slow.test ESMTP');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    sessions,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
