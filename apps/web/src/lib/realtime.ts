import { type RealtimeMessage, realtimeChannelFor, routes } from '@adena/contract/lite';
import { io, type Socket } from 'socket.io-client';
import { ApiError, request } from './api-client';

/** SPEC.md's connection states, with the meaning Ably's client gives them. */
export type ConnectionState = 'initialized' | 'connecting' | 'connected' | 'disconnected' | 'suspended' | 'closing' | 'closed' | 'failed';

export interface RealtimeTimers {
  /** Retry period while disconnected (Ably: 15 s). */
  disconnectedRetryMs: number;
  /** Without a connection this long, the state becomes suspended (Ably: 2 min). */
  suspendAfterMs: number;
  /** Retry period while suspended (Ably: 30 s). */
  suspendedRetryMs: number;
}

export const ABLY_TIMERS: RealtimeTimers = { disconnectedRetryMs: 15_000, suspendAfterMs: 120_000, suspendedRetryMs: 30_000 };

const TRANSPORT_FAILURES_BEFORE_POLLING = 2;
const jitter = (ms: number) => Math.round(ms * (0.8 + Math.random() * 0.2));

/**
 * The private channel of one user over Socket.IO. Socket.IO's own reconnection is off: this
 * class runs Ably's state machine instead, fetching a fresh token for every attempt.
 */
export class RealtimeClient {
  state: ConnectionState = 'initialized';
  errorReason: string | null = null;
  #socket: Socket | null = null;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #lastConnectedAt = Date.now();
  /** WebSocket attempts in a row that failed at the transport (not at the token or the handshake's auth). */
  #transportFailures = 0;
  readonly #stateListeners = new Set<(s: ConnectionState) => void>();

  constructor(
    readonly userId: number,
    readonly handlers: {
      onMessage(msg: RealtimeMessage): void;
      onResync(): void;
      /** The session ended while the socket was away (its token refused): the page signs out as the user read does. */
      onUnauthorized?(): void;
    },
    readonly timers: RealtimeTimers = ABLY_TIMERS,
  ) {}

  onState(cb: (s: ConnectionState) => void) {
    this.#stateListeners.add(cb);
    return () => this.#stateListeners.delete(cb);
  }

  #set(state: ConnectionState, reason: string | null = null) {
    this.state = state;
    this.errorReason = reason;
    for (const cb of this.#stateListeners) cb(state);
  }

  connect() {
    if (this.state === 'closed' || this.state === 'closing' || this.state === 'failed') return;
    this.#clearTimer();
    this.#set('connecting');
    void this.#attempt();
  }

  /** A retry now (the browser came back online, or the page became visible). */
  retryNow() {
    if (this.state === 'disconnected' || this.state === 'suspended') this.connect();
  }

  close() {
    this.#clearTimer();
    if (this.state === 'closed') return;
    this.#set('closing');
    this.#socket?.removeAllListeners();
    this.#socket?.disconnect();
    this.#socket = null;
    this.#set('closed');
  }

  async #attempt() {
    let token: string;
    try {
      token = (await request(routes.ablyToken, { body: {} })).token;
    } catch (err) {
      // Not signed in any more: retrying cannot help.
      if (err instanceof ApiError && (err.status === 401 || err.status === 403)) {
        this.#fail(err.message);
        this.handlers.onUnauthorized?.();
        return;
      }
      return this.#lost();
    }
    if (this.state !== 'connecting') return;
    this.#socket?.removeAllListeners();
    this.#socket?.disconnect();
    // WebSocket only: one connection that any round-robin balancer keeps on one process. Socket.IO's
    // default starts with HTTP long-polling, whose requests a balancer without sticky sessions
    // spreads over processes that do not know the session. Polling is tried only after WebSocket
    // failed twice in a row at the transport (a proxy that refuses upgrades); it needs sticky
    // sessions (README, deployment).
    const transports = this.#transportFailures >= TRANSPORT_FAILURES_BEFORE_POLLING ? ['polling'] : ['websocket'];
    const socket = io({ path: '/socket.io/', auth: { token }, reconnection: false, timeout: 10_000, transports });
    this.#socket = socket;
    socket.on('connect', () => {
      socket.emit('subscribe', { channel: realtimeChannelFor(this.userId) }, (ack: { ok?: true; error?: string }) => {
        if (!ack?.ok) return this.#fail(ack?.error ?? 'Канал недоступен');
        if (transports[0] === 'websocket') this.#transportFailures = 0;
        this.#lastConnectedAt = Date.now();
        this.#set('connected');
        // Events are heard from this acknowledgement on. Anything sent before it is lost: while we
        // were away, and on the first connection too, since the page's first reads ran before it (a
        // deposit completed in between would stay unseen). Read the truth again.
        this.handlers.onResync();
      });
    });
    socket.on('message', (msg: RealtimeMessage) => this.handlers.onMessage(msg));
    socket.on('connect_error', (err: Error & { type?: string }) => {
      if (transports[0] === 'websocket' && err.type === 'TransportError') this.#transportFailures += 1;
      else if (transports[0] === 'polling') this.#transportFailures = 0; // WebSocket again next time
      this.#lost();
    });
    socket.on('disconnect', (reason) => {
      if (reason === 'io client disconnect') return;
      if (this.state === 'connected') this.#lastConnectedAt = Date.now();
      this.#lost();
    });
  }

  #lost() {
    if (this.state === 'closed' || this.state === 'closing' || this.state === 'failed') return;
    // Like Ably: a connection that just dropped is retried at once, later ones on the timer.
    const justDropped = this.state === 'connected';
    this.#socket?.removeAllListeners();
    this.#socket?.disconnect();
    this.#socket = null;
    const away = Date.now() - this.#lastConnectedAt;
    const suspended = away >= this.timers.suspendAfterMs;
    this.#set(suspended ? 'suspended' : 'disconnected');
    this.#clearTimer();
    const delay = justDropped ? Math.random() * 1000 : jitter(suspended ? this.timers.suspendedRetryMs : this.timers.disconnectedRetryMs);
    this.#timer = setTimeout(() => this.connect(), delay);
  }

  #fail(reason: string) {
    this.#clearTimer();
    this.#socket?.removeAllListeners();
    this.#socket?.disconnect();
    this.#socket = null;
    this.#set('failed', reason);
  }

  #clearTimer() {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }
}
