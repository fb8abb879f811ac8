import { connect, createServer, type Socket } from 'node:net';

/**
 * A TCP relay to `target` (half-open connections allowed) that can go silent as a network cut does: from `cut()` on no byte and no
 * close passes either way, and nothing is closed (half-open allowed, so a goodbye's FIN is not answered
 * by the relay either): neither side hears of it.
 */
export async function silentRelay(target: URL) {
  let silent = false;
  const sockets = new Set<Socket>();
  const server = createServer({ allowHalfOpen: true }, (c) => {
    sockets.add(c);
    c.on('error', () => {});
    if (silent) return;
    const up = connect({ port: Number(target.port), host: target.hostname, allowHalfOpen: true });
    sockets.add(up);
    up.on('error', () => {});
    for (const [from, to] of [
      [c, up],
      [up, c],
    ] as const) {
      from.on('data', (d) => !silent && to.write(d));
      from.on('end', () => !silent && to.end());
      from.on('close', () => !silent && to.destroy());
    }
  });
  const port = await new Promise<number>((r) => server.listen(0, '127.0.0.1', () => r((server.address() as { port: number }).port)));
  const url = new URL(target.href);
  url.port = String(port);
  return {
    url: url.href,
    cut: () => {
      silent = true;
    },
    close() {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}
