import { connect, createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';

/**
 * A TCP relay to the test cluster that can go silent, as a network cut does: bytes stop in both
 * directions and no connection is closed, so neither side hears of it.
 */
export async function silentCut(target: URL) {
  let silent = false;
  const pairs = new Set<[Socket, Socket]>();
  const server = createNetServer((inbound) => {
    const outbound = connect(Number(target.port), target.hostname);
    const pair: [Socket, Socket] = [inbound, outbound];
    pairs.add(pair);
    for (const [from, to] of [pair, [outbound, inbound] as const]) {
      from.on('data', (d) => {
        if (!silent) to.write(d);
      });
      from.on('error', () => {});
      from.on('close', () => to.destroy());
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = new URL(target.href);
  url.port = String((server.address() as AddressInfo).port);
  return {
    url: url.href,
    /** From now on nothing passes, on any connection, until the returned heal() ends those open at the cut. */
    cut() {
      silent = true;
      const open = [...pairs];
      return () => {
        silent = false;
        for (const [a, b] of open) {
          a.destroy();
          b.destroy();
        }
      };
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
