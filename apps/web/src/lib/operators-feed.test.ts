// @vitest-environment happy-dom
import { EventEmitter } from 'node:events';
import { QueryClient } from '@tanstack/react-query';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderHook } from '../test/dom';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

// socket.io-client stands in as a socket whose handshake the server refused (its token expired).
class FakeSocket extends EventEmitter {
  active = false;
  connected = false;
  connects = 0;
  connect() {
    this.connects += 1;
  }
  disconnect() {}
}
const sockets: FakeSocket[] = [];
vi.mock('socket.io-client', () => ({
  io: () => {
    const s = new FakeSocket();
    sockets.push(s);
    return s;
  },
}));
vi.mock('./api-client', () => ({ request: async () => ({ token: 'rt' }) }));

const { useOperatorsFeed } = await import('./operators-feed');

describe("the operators' feed", () => {
  afterEach(() => {
    sockets.length = 0;
    vi.useRealTimers();
  });

  it('retries a refused handshake while the admin page is open, and not after it is left', async () => {
    vi.useFakeTimers();
    const handlers = { onMessage: () => {}, onResync: () => {} };
    const open = await renderHook(new QueryClient(), () => useOperatorsFeed(handlers));
    const socket = sockets[0]!;
    socket.emit('connect_error', new Error('refused'));
    await vi.advanceTimersByTimeAsync(6_000);
    expect(socket.connects).toBe(1);

    socket.emit('connect_error', new Error('refused'));
    await open.unmount();
    await vi.advanceTimersByTimeAsync(6_000);
    // A socket connected after the page is gone would stay open with nobody listening.
    expect(socket.connects).toBe(1);
  });

  type Ack = (ack: { ok?: true; error?: string }) => void;
  /** The feed mounted and its socket connected: the subscribes it sends wait in `acks` for the server's answer. */
  async function connectedFeed() {
    const seen = { live: false, resyncs: 0, messages: [] as unknown[] };
    const handlers = {
      onMessage: (m: unknown) => seen.messages.push(m),
      onResync: () => {
        seen.resyncs += 1;
      },
    };
    const open = await renderHook(new QueryClient(), () => {
      seen.live = useOperatorsFeed(handlers);
      return seen.live;
    });
    const socket = sockets[0]!;
    const acks: Ack[] = [];
    socket.on('subscribe', (_payload: unknown, ack: Ack) => acks.push(ack));
    socket.connected = true;
    socket.emit('connect');
    const { act } = await import('react');
    return { seen, socket, acks, act, unmount: open.unmount };
  }

  it('asks again after a refused subscribe (the server could not check the operator a moment), and is live once it is let in', async () => {
    // Review finding: a refused subscribe was never asked again; «связь восстанавливается» for the rest of the shift.
    vi.useFakeTimers();
    const { seen, acks, act, unmount } = await connectedFeed();
    acks.shift()!({ error: 'Сервис временно недоступен' });
    expect(seen.live).toBe(false);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(acks).toHaveLength(1);
    acks.shift()!({ error: 'Сервис временно недоступен' });
    await vi.advanceTimersByTimeAsync(9_999);
    expect(acks).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(acks).toHaveLength(1);
    await act(async () => acks.shift()!({ ok: true }));
    expect(seen.live).toBe(true);
    expect(seen.resyncs).toBe(1);
    await unmount();
  });

  it('leaves the live state when the server takes the socket off the channel (a demotion), and asks again as after a refusal', async () => {
    // Walk 14: after a demotion and a promotion back the queue said «в реальном времени» and heard nothing.
    vi.useFakeTimers();
    const { seen, socket, acks, act, unmount } = await connectedFeed();
    await act(async () => acks.shift()!({ ok: true }));
    expect(seen.live).toBe(true);

    await act(async () => void socket.emit('message', { channel: 'private:operators', name: 'operators_left', data: {} }));
    expect(seen.live).toBe(false);
    expect(seen.messages).toEqual([]);
    await vi.advanceTimersByTimeAsync(4_999);
    expect(acks).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(acks).toHaveLength(1);
    await act(async () => acks.shift()!({ ok: true }));
    expect(seen.live).toBe(true);
    expect(seen.resyncs).toBe(2);
    await unmount();
  });

  it('connects again when the server closes the socket (its process lost its LISTEN connection), which Socket.IO does not do by itself', async () => {
    const handlers = { onMessage: () => {}, onResync: () => {} };
    const open = await renderHook(new QueryClient(), () => useOperatorsFeed(handlers));
    const socket = sockets[0]!;
    socket.connected = true;
    socket.emit('connect');
    socket.connected = false;
    socket.emit('disconnect', 'io server disconnect');
    expect(socket.connects).toBe(1);
    // Any other loss is Socket.IO's own to retry.
    socket.emit('disconnect', 'transport close');
    expect(socket.connects).toBe(1);
    await open.unmount();
  });
});
