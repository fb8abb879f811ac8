import { ablyToken, OPERATORS_CHANNEL, OPERATORS_LEFT, type OperatorMessage, type OperatorsLeftMessage } from '@adena/contract';
import { useEffect, useRef, useState } from 'react';
import { io } from 'socket.io-client';
import { request } from './api-client';

/**
 * The operators' live channel (`private:operators`, decision record 0023) for the admin area:
 * a socket of its own with a fresh token on every (re)connection. `live` is true while it is
 * subscribed; the queue and the pending count poll every 5 s while it is not, and each minute while it
 * is (an event lost while a server process's LISTEN connection reconnects is then read within a minute).
 */
export function useOperatorsFeed(handlers: { onMessage(m: OperatorMessage): void; onResync(): void }) {
  const [live, setLive] = useState(false);
  const handler = useRef(handlers);
  handler.current = handlers;
  useEffect(() => {
    const socket = io({
      path: '/socket.io/',
      auth: (cb) => {
        request(ablyToken, { body: {} }).then(
          (r) => cb({ token: r.token }),
          () => cb({}),
        );
      },
      reconnectionDelayMax: 15_000,
      timeout: 10_000,
    });
    // A refused subscribe (the server could not check the operator: its database away a moment) is asked
    // again after a while, growing to a minute: the queue polls meanwhile, and the feed comes back by itself.
    let resubscribe: ReturnType<typeof setTimeout> | undefined;
    let refusals = 0;
    const askLater = () => {
      setLive(false);
      refusals += 1;
      clearTimeout(resubscribe);
      resubscribe = setTimeout(() => socket.connected && subscribe(), Math.min(60_000, 5_000 * 2 ** (refusals - 1)));
    };
    const subscribe = () => {
      // One subscribe at a time: a reconnection's own subscribe replaces a retry still waiting.
      clearTimeout(resubscribe);
      socket.emit('subscribe', { channel: OPERATORS_CHANNEL }, (ack: { ok?: true }) => {
        // Whatever happened while the socket was away: read the queue again.
        if (ack?.ok) {
          setLive(true);
          refusals = 0;
          clearTimeout(resubscribe);
          handler.current.onResync();
          return;
        }
        askLater();
      });
    };
    socket.on('connect', subscribe);
    socket.on('message', (m: OperatorMessage | OperatorsLeftMessage) => {
      if (m?.channel !== OPERATORS_CHANNEL) return;
      // Taken off the channel (a demotion, the second factor turned off): the queue polls again, and the
      // channel is asked for again as after a refusal, so an operator given the role back is live within a minute.
      if (m.name === OPERATORS_LEFT) askLater();
      else handler.current.onMessage(m);
    });
    socket.on('disconnect', (reason) => {
      setLive(false);
      // Socket.IO reconnects by itself after any loss but the server closing the socket, which a process does
      // when its LISTEN connection comes back after an outage (plugins/realtime.ts): events were lost, so the
      // feed connects again at once and its subscribe reads the queue again.
      if (reason === 'io server disconnect') socket.connect();
    });
    // A refused handshake (token expired meanwhile) is retried by Socket.IO only after a disconnect.
    // The retry is dropped with the page: a socket connected after it would have no listeners.
    let retry: ReturnType<typeof setTimeout> | undefined;
    socket.on('connect_error', () => {
      setLive(false);
      if (!socket.active) {
        clearTimeout(retry);
        retry = setTimeout(() => socket.connect(), 5_000);
      }
    });
    return () => {
      clearTimeout(retry);
      clearTimeout(resubscribe);
      socket.removeAllListeners();
      socket.disconnect();
    };
  }, []);
  return live;
}
