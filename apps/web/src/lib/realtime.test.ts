import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';

// socket.io-client stands in as a socket that connects and acknowledges the subscription at once.
const sockets: FakeSocket[] = [];
class FakeSocket extends EventEmitter {
  subscribed: unknown[] = [];
  override emit(event: string, ...args: unknown[]): boolean {
    if (event === 'subscribe') {
      this.subscribed.push(args[0]);
      (args[1] as (ack: { ok: true }) => void)({ ok: true });
      return true;
    }
    return super.emit(event, ...args);
  }
  disconnect() {}
}
vi.mock('socket.io-client', () => ({
  io: () => {
    const s = new FakeSocket();
    sockets.push(s);
    return s;
  },
}));
// The token call answers as `tokenAnswer` says: a token, or a refusal (the session ended while away).
let tokenRefused = false;
vi.mock('./api-client', () => {
  class ApiError extends Error {
    constructor(
      readonly status: number,
      message: string,
    ) {
      super(message);
    }
  }
  return {
    ApiError,
    request: async () => {
      if (tokenRefused) throw new ApiError(401, 'Войдите снова');
      return { token: 'rt' };
    },
  };
});

const { RealtimeClient } = await import('./realtime');

describe('the realtime client', () => {
  afterEach(() => {
    sockets.length = 0;
  });

  it('reads the truth again once subscribed, on the first connection as after a drop', async () => {
    const onResync = vi.fn();
    const c = new RealtimeClient(5, { onMessage: () => {}, onResync });
    c.connect();
    await vi.waitFor(() => expect(sockets).toHaveLength(1), { timeout: 10_000 });
    // The page's first reads ran before this point; an event sent meanwhile went to nobody.
    fire(sockets[0]!, 'connect');
    expect(c.state).toBe('connected');
    expect(onResync).toHaveBeenCalledTimes(1);
    fire(sockets[0]!, 'disconnect', 'transport close');
    c.retryNow();
    await vi.waitFor(() => expect(sockets).toHaveLength(2), { timeout: 10_000 });
    fire(sockets[1]!, 'connect');
    expect(onResync).toHaveBeenCalledTimes(2);
    c.close();
  });

  it('connects again by itself and reads again when the server closes the socket (its process lost its LISTEN connection, a deploy)', async () => {
    // socket.io's own client does not reconnect after «io server disconnect»; this one must, and re-read what it missed.
    const onResync = vi.fn();
    const c = new RealtimeClient(5, { onMessage: () => {}, onResync });
    c.connect();
    await vi.waitFor(() => expect(sockets).toHaveLength(1), { timeout: 10_000 });
    fire(sockets[0]!, 'connect');
    expect(onResync).toHaveBeenCalledTimes(1);
    fire(sockets[0]!, 'disconnect', 'io server disconnect');
    expect(c.state).toBe('disconnected');
    // No retryNow(): within a second, as after any drop.
    await vi.waitFor(() => expect(sockets).toHaveLength(2), { timeout: 10_000 });
    fire(sockets[1]!, 'connect');
    expect(c.state).toBe('connected');
    expect(onResync).toHaveBeenCalledTimes(2);
    c.close();
  });

  it('a session that ended while the socket was away (its token refused) asks the page to sign out, not to show a connection failure for good', async () => {
    // Review finding: the client went to «failed» and the page still looked signed in.
    const onUnauthorized = vi.fn();
    const c = new RealtimeClient(5, { onMessage: () => {}, onResync: () => {}, onUnauthorized });
    tokenRefused = true;
    try {
      c.connect();
      await vi.waitFor(() => expect(onUnauthorized).toHaveBeenCalledTimes(1), { timeout: 10_000 });
      expect(c.state).toBe('failed');
    } finally {
      tokenRefused = false;
      c.close();
    }
  });
});

function fire(s: FakeSocket, event: string, ...args: unknown[]) {
  EventEmitter.prototype.emit.call(s, event, ...args);
}
