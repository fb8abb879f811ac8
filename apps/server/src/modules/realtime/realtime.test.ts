import { OPERATORS_CHANNEL, REALTIME_REFUSALS, realtimeChannelFor, type RealtimeMessage } from '@adena/contract';
import { createConnection } from 'node:net';
import pg from 'pg';
import { io, Manager, type Socket } from 'socket.io-client';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createUser, createWallet, firstServerId, fund } from '../../../test/factories';
import { createTestApp, createTwoProcesses, DB_KINDS, listenLoopback, type TestApp, type TwoProcesses } from '../../../test/harness';
import { sessionsRepository } from '../sessions/sessions.repository';

async function tokenFor(t: TestApp, user: { auth: Record<string, string> }) {
  const res = await t.app.inject({ method: 'POST', url: '/api/ably-token', headers: user.auth, payload: {} });
  expect(res.statusCode).toBe(200);
  return res.json() as { token: string; channel: string; expires_at: string };
}

const sockets: Socket[] = [];
function connect(url: string, token?: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = io(url, { path: '/socket.io/', auth: token ? { token } : {}, reconnection: false, transports: ['websocket'] });
    sockets.push(s);
    s.once('connect', () => resolve(s));
    s.once('connect_error', (err) => reject(err));
  });
}
const subscribe = (s: Socket, channel: string) =>
  s.timeout(5000).emitWithAck('subscribe', { channel }) as Promise<{ ok?: true; error?: string }>;
const nextMessage = (s: Socket) => new Promise<RealtimeMessage>((resolve) => s.once('message', resolve));
/** The next message of this name: a decision sends `balance` and `request_status`, in either order across processes. */
const nextNamed = (s: Socket, name: string) =>
  new Promise<RealtimeMessage>((resolve) => {
    const on = (m: RealtimeMessage) => {
      if (m.name !== name) return;
      s.off('message', on);
      resolve(m);
    };
    s.on('message', on);
  });

/** A player with a nick and adena on the first server, and an operator. */
async function playerAndOperator(t: TestApp, adena = 0n) {
  const serverId = await firstServerId(t.db.kysely);
  const player = await createUser(t.db.kysely);
  const wallet = await createWallet(t.db.kysely, player.id, serverId);
  if (adena) await fund(t.db.kysely, wallet, adena);
  const operator = await createUser(t.db.kysely, { admin: true });
  return { serverId, player, operator };
}

type Who = { player: { auth: Record<string, string> }; operator: { auth: Record<string, string> }; serverId: number };

/** The player's deposit, opened (its own `balance` event, with the balance unchanged, is sent then). */
async function depositOpened(t: TestApp, who: Who, amount: number): Promise<number> {
  const dep = await t.app.inject({ method: 'POST', url: '/api/up_balance_user/', headers: who.player.auth, payload: { gamesserver_id: who.serverId, amount } });
  expect(dep.statusCode).toBe(200);
  return dep.json().success.id;
}

async function depositCompleted(t: TestApp, who: Who, id: number) {
  const done = await t.app.inject({ method: 'POST', url: `/api/admin/requests/${id}/complete`, headers: who.operator.auth, payload: {} });
  expect(done.statusCode).toBe(200);
}

afterEach(() => {
  for (const s of sockets.splice(0)) s.disconnect();
});

describe.each(DB_KINDS)('the private realtime channel on %s', (kind) => {
  let t: TestApp;
  let url: string;
  beforeAll(async () => {
    t = await createTestApp(kind);
    url = await listenLoopback(t);
  });
  afterAll(() => t.close());

  it('gives a signed-in user a short-lived token for their own channel, and nobody else one', async () => {
    const user = await createUser(t.db.kysely);
    const answer = await tokenFor(t, user);
    expect(answer.channel).toBe(`private:user.${user.id}`);
    expect(new Date(answer.expires_at).getTime() - Date.now()).toBeLessThanOrEqual(5 * 60_000);
    const anon = await t.app.inject({ method: 'POST', url: '/api/ably-token', payload: {} });
    expect(anon.statusCode).toBe(401);
    expect(anon.json().message).toMatch(/вход/);
  });

  it('refuses a malformed or stale connection in Russian: an unknown transport, an unknown session, a refused upgrade', async () => {
    const transport = await fetch(`${url}/socket.io/?EIO=4&transport=pigeon`);
    expect(transport.status).toBe(400);
    expect(await transport.json()).toEqual({ code: 0, message: REALTIME_REFUSALS[0] });
    const stale = await fetch(`${url}/socket.io/?EIO=4&transport=polling&sid=no-such-session`);
    expect(stale.status).toBe(400);
    expect(await stale.json()).toEqual({ code: 1, message: REALTIME_REFUSALS[1] });
    // A WebSocket upgrade naming a session that does not exist is answered on the raw socket.
    const { port } = new URL(url);
    const upgrade = await new Promise<string>((resolve, reject) => {
      const socket = createConnection(Number(port), '127.0.0.1', () =>
        socket.write(
          'GET /socket.io/?EIO=4&transport=websocket&sid=no-such-session HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n' +
            'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
        ),
      );
      const chunks: Buffer[] = [];
      socket.on('data', (c) => chunks.push(c));
      socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
      socket.on('error', reject);
    });
    expect(upgrade).toMatch(/^HTTP\/1\.1 400 /);
    expect(upgrade.endsWith(REALTIME_REFUSALS[1])).toBe(true);
  });

  it('lets a socket subscribe to its own channel and receive the test message', async () => {
    const user = await createUser(t.db.kysely);
    const s = await connect(url, (await tokenFor(t, user)).token);
    expect(await subscribe(s, realtimeChannelFor(user.id))).toEqual({ ok: true });
    const got = nextMessage(s);
    const res = await t.app.inject({ method: 'GET', url: '/api/testAbly', headers: user.auth });
    expect(res.json()).toEqual({ sent: true });
    expect(await got).toEqual({ channel: realtimeChannelFor(user.id), name: 'test', data: { message: expect.any(String) } });
  });

  it("refuses another user's channel and never delivers their messages", async () => {
    const alice = await createUser(t.db.kysely);
    const bob = await createUser(t.db.kysely);
    const s = await connect(url, (await tokenFor(t, bob)).token);
    expect(await subscribe(s, realtimeChannelFor(alice.id))).toEqual({ error: expect.stringMatching(/Нет доступа/) });
    expect(await subscribe(s, 'private:user.abc')).toEqual({ error: expect.any(String) });
    const received: unknown[] = [];
    s.on('message', (m) => received.push(m));
    await t.app.inject({ method: 'GET', url: '/api/testAbly', headers: alice.auth });
    await new Promise((r) => setTimeout(r, 300));
    expect(received).toEqual([]);
  });

  it("a deposit opened by the player, then completed by an operator, reaches the player's socket with the balance each time", async () => {
    const who = await playerAndOperator(t, 1_000_000n);
    const s = await connect(url, (await tokenFor(t, who.player)).token);
    expect(await subscribe(s, realtimeChannelFor(who.player.id))).toEqual({ ok: true });
    // Opened on another device: the balance is unchanged, and this device's history learns of the deposit.
    const opened = nextNamed(s, 'balance');
    const id = await depositOpened(t, who, 2_500_000);
    expect((await opened).data).toEqual({ gamesserver_id: who.serverId, balance: 1_000_000, balance_second: 0 });
    const got = nextNamed(s, 'balance');
    await depositCompleted(t, who, id);
    expect(await got).toEqual({
      channel: realtimeChannelFor(who.player.id),
      name: 'balance',
      data: { gamesserver_id: who.serverId, balance: 3_500_000, balance_second: 0 },
    });
  });

  it('sends nothing for a change that was rolled back', async () => {
    const who = await playerAndOperator(t, 1_000_000n);
    const s = await connect(url, (await tokenFor(t, who.player)).token);
    expect(await subscribe(s, realtimeChannelFor(who.player.id))).toEqual({ ok: true });
    const opened = nextNamed(s, 'balance');
    const id = await depositOpened(t, who, 1_000_000);
    await opened;
    const received: RealtimeMessage[] = [];
    s.on('message', (m: RealtimeMessage) => received.push(m));
    // The withdrawal's transaction rolls back at the balance guard (409).
    const refused = await t.app.inject({
      method: 'POST',
      url: '/api/down_balance_user/',
      headers: who.player.auth,
      payload: { gamesserver_id: who.serverId, amount: 5_000_000 },
    });
    expect(refused.statusCode).toBe(409);
    // A committed change afterwards arrives, and its two messages (the balance and the decision) are
    // the only ones on the socket: nothing of the refused withdrawal.
    const got = Promise.all([nextNamed(s, 'balance'), nextNamed(s, 'request_status')]);
    await depositCompleted(t, who, id);
    await got;
    expect(received.map((m) => m.name).sort()).toEqual(['balance', 'request_status']);
    expect(received.find((m) => m.name === 'balance')?.data).toEqual({ gamesserver_id: who.serverId, balance: 2_000_000, balance_second: 0 });
  });

  it('refuses a socket with no token, a forged token, an access token or an expired token', async () => {
    const user = await createUser(t.db.kysely);
    await expect(connect(url)).rejects.toThrow(/unauthorized/);
    await expect(connect(url, 'forged-token')).rejects.toThrow(/unauthorized/);
    // The session token is not a socket token.
    await expect(connect(url, user.token)).rejects.toThrow(/unauthorized/);
    const { token } = await tokenFor(t, user);
    await t.db.kysely.updateTable('tokens').set({ expires_at: new Date(Date.now() - 1000) }).where('kind', '=', 'realtime').where('user_id', '=', user.id).execute();
    await expect(connect(url, token)).rejects.toThrow(/unauthorized/);
  });

  it('refuses a socket token whose session reached its hard or idle end after the token was given', async () => {
    const user = await createUser(t.db.kysely);
    const session = t.db.kysely.updateTable('tokens').where('kind', '=', 'access').where('user_id', '=', user.id);
    const hard = await tokenFor(t, user);
    await session.set({ expires_at: new Date(Date.now() - 1000) }).execute();
    await expect(connect(url, hard.token)).rejects.toThrow(/unauthorized/);
    await session.set({ expires_at: null }).execute();
    const idle = await tokenFor(t, user);
    await session.set({ idle_seconds: 60, last_seen_at: new Date(Date.now() - 120_000) }).execute();
    await expect(connect(url, idle.token)).rejects.toThrow(/unauthorized/);
    // The session live again: a fresh token of it connects.
    await session.set({ idle_seconds: null }).execute();
    await expect(connect(url, (await tokenFor(t, user)).token)).resolves.toBeDefined();
  });

  it('closes a connection that keeps trying bad tokens, and refuses a huge one without hashing it', async () => {
    const m = new Manager(url, { path: '/socket.io/', transports: ['websocket'], reconnection: false });
    const closed = new Promise<void>((r) => m.once('close', () => r()));
    const s = m.socket('/', { auth: { token: 'x'.repeat(10_000) } });
    sockets.push(s);
    const failed = () => new Promise<Error>((r) => s.once('connect_error', r));
    for (let i = 0; i < 3; i++) {
      const err = failed();
      s.connect();
      expect((await err).message).toMatch(/unauthorized/);
    }
    // The third failure ends the connection itself: no fourth handshake on it.
    await closed;
  });

  it('does not start a handshake per CONNECT a client sends without waiting: a connection asks the database at most three times', async () => {
    const taken = vi.spyOn(sessionsRepository, 'takeRealtimeToken');
    const m = new Manager(url, { path: '/socket.io/', transports: ['websocket'], reconnection: false, autoConnect: false });
    const closed = new Promise<void>((r) => m.once('close', () => r()));
    await new Promise<void>((resolve, reject) => m.open((err) => (err ? reject(err) : resolve())));
    const before = taken.mock.calls.length;
    // Raw CONNECT packets of the default namespace, one after another with no wait for an answer.
    const engine = (m as unknown as { engine: { write(packet: string): void } }).engine;
    for (let i = 0; i < 300; i++) engine.write(`0${JSON.stringify({ token: `x${i}`.padEnd(64, 'y') })}`);
    await closed;
    await new Promise((r) => setTimeout(r, 300));
    expect(taken.mock.calls.length - before).toBeLessThanOrEqual(3);
    taken.mockRestore();
  });

  it('bounds the sockets one session holds on a process', async () => {
    const player = await createUser(t.db.kysely);
    for (let i = 0; i < 20; i++) await connect(url, (await tokenFor(t, player)).token);
    await expect(connect(url, (await tokenFor(t, player)).token)).rejects.toThrow(/too many connections/);
    // A tab closed frees its place.
    sockets.at(-2)!.disconnect();
    await expect.poll(async () => connect(url, (await tokenFor(t, player)).token).then(() => true, () => false)).toBe(true);
  });

  it("asks the database about the operators' channel at most a few times per socket", async () => {
    const player = await createUser(t.db.kysely);
    const s = await connect(url, (await tokenFor(t, player)).token);
    const asked = vi.spyOn(sessionsRepository, 'mayHearOperators');
    try {
      for (let i = 0; i < 20; i++) expect(await subscribe(s, OPERATORS_CHANNEL)).toEqual({ error: expect.stringMatching(/Нет доступа/) });
      expect(asked.mock.calls.length).toBe(5);
      // Its own channel still works.
      expect(await subscribe(s, realtimeChannelFor(player.id))).toEqual({ ok: true });
    } finally {
      asked.mockRestore();
    }
  });
});

describe.each(DB_KINDS)("the operators' channel once a socket's checks ran out, on %s", (kind) => {
  let t: TestApp;
  let url: string;
  let ahead = 0;
  beforeAll(async () => {
    t = await createTestApp(kind, { now: () => new Date(Date.now() + ahead) });
    url = await listenLoopback(t);
  });
  afterAll(() => t.close());

  it('a socket refused five times while its operator was out of the role gets the channel on a try a minute later', async () => {
    const operator = await createUser(t.db.kysely, { admin: true });
    const s = await connect(url, (await tokenFor(t, operator)).token);
    const asked = vi.spyOn(sessionsRepository, 'mayHearOperators');
    try {
      await t.db.kysely.updateTable('users').set({ admin: false }).where('id', '=', operator.id).execute();
      for (let i = 0; i < 6; i++) expect(await subscribe(s, OPERATORS_CHANNEL)).toEqual({ error: expect.stringMatching(/Нет доступа/) });
      await t.db.kysely.updateTable('users').set({ admin: true }).where('id', '=', operator.id).execute();
      // Out of checks: refused without asking, the role back or not.
      expect(await subscribe(s, OPERATORS_CHANNEL)).toEqual({ error: expect.stringMatching(/Нет доступа/) });
      expect(asked.mock.calls.length).toBe(5);
      ahead += 61_000;
      expect(await subscribe(s, OPERATORS_CHANNEL)).toEqual({ ok: true });
      expect(asked.mock.calls.length).toBe(6);
    } finally {
      asked.mockRestore();
    }
    // It hears the channel: a player's new request.
    const serverId = await firstServerId(t.db.kysely);
    const player = await createUser(t.db.kysely);
    await createWallet(t.db.kysely, player.id, serverId);
    const heard = nextNamed(s, 'request_created');
    const opened = await t.app.inject({ method: 'POST', url: '/api/up_balance_user/', headers: player.auth, payload: { gamesserver_id: serverId, amount: 1_000_000 } });
    expect(opened.statusCode).toBe(200);
    expect(await heard).toMatchObject({ channel: OPERATORS_CHANNEL, name: 'request_created' });
  });
});

describe('two app processes on one PostgreSQL', () => {
  let two: TwoProcesses;
  let a: TestApp;
  let b: TestApp;
  let urlB: string;
  beforeAll(async () => {
    two = await createTwoProcesses();
    ({ a, b, urlB } = two);
  });
  afterAll(() => two?.close());

  it('delivers an event raised on one process to a socket held by the other', async () => {
    const user = await createUser(a.db.kysely);
    const s = await connect(urlB, (await tokenFor(a, user)).token);
    expect(await subscribe(s, realtimeChannelFor(user.id))).toEqual({ ok: true });
    const got = nextMessage(s);
    // Raised on process A, where this socket is not connected.
    await a.app.inject({ method: 'GET', url: '/api/testAbly', headers: user.auth });
    expect((await got).name).toBe('test');
  });

  it('delivers the balance of a deposit an operator completed on one process to the player on the other', async () => {
    const who = await playerAndOperator(a, 0n);
    const s = await connect(urlB, (await tokenFor(b, who.player)).token);
    expect(await subscribe(s, realtimeChannelFor(who.player.id))).toEqual({ ok: true });
    const opened = nextNamed(s, 'balance');
    const id = await depositOpened(a, who, 3_000_000);
    expect((await opened).data).toEqual({ gamesserver_id: who.serverId, balance: 0, balance_second: 0 });
    const got = nextNamed(s, 'balance');
    await depositCompleted(a, who, id);
    expect((await got).data).toEqual({ gamesserver_id: who.serverId, balance: 3_000_000, balance_second: 0 });
  });

  it('relays a batch of events larger than a NOTIFY carries (100 codes bought at once) to the other process', async () => {
    const who = await playerAndOperator(a, 1_000n * 1_000_000n);
    const s = await connect(urlB, (await tokenFor(a, who.player)).token);
    expect(await subscribe(s, realtimeChannelFor(who.player.id))).toEqual({ ok: true });
    const got: RealtimeMessage[] = [];
    s.on('message', (m: RealtimeMessage) => got.push(m));
    const bought = await a.app.inject({ method: 'POST', url: '/api/pricekods/', headers: who.player.auth, payload: { gamesserver_id: who.serverId, nominal: 1_000_000, count: 100 } });
    expect(bought.statusCode).toBe(200);
    // Over 8 000 bytes the adapter sends the batch as an attachment row and NOTIFYs its id.
    await expect.poll(() => got.filter((m) => m.name === 'sert').length, { timeout: 10_000 }).toBe(100);
    expect(got.some((m) => m.name === 'balance')).toBe(true);
  });

  it("relays a decision's balance and status to the other process in one NOTIFY, in the order they were raised", async () => {
    const who = await playerAndOperator(a, 0n);
    const channel = realtimeChannelFor(who.player.id);
    const spy = new pg.Client({ connectionString: two.db.url });
    await spy.connect();
    try {
      const payloads: string[] = [];
      let markerSeen: () => void = () => {};
      const marker = new Promise<void>((r) => {
        markerSeen = r;
      });
      spy.on('notification', (n) => {
        const payload = n.payload ?? '';
        if (!payload.includes(`"channel":"${channel}"`)) return;
        if (payload.includes('"name":"test"')) markerSeen();
        else if (!payload.includes('"balance":0,')) payloads.push(payload);
      });
      await spy.query('LISTEN "socket.io#/"');
      const s = await connect(urlB, (await tokenFor(b, who.player)).token);
      expect(await subscribe(s, channel)).toEqual({ ok: true });
      // The deposit's own `balance` event (the balance still 0) comes before the decision's and is not counted.
      const opened = nextNamed(s, 'balance');
      const id = await depositOpened(a, who, 1_000_000);
      await opened;
      const names: string[] = [];
      s.on('message', (m: RealtimeMessage) => names.push(m.name));
      const decided = Promise.all([nextNamed(s, 'balance'), nextNamed(s, 'request_status')]);
      await depositCompleted(a, who, id);
      await decided;
      expect(names).toEqual(['balance', 'request_status']);
      // The decision's NOTIFYs were delivered, so committed, before this one: PostgreSQL delivers in
      // commit order, so once the spy has the marker it has every notification of the decision.
      const test = nextNamed(s, 'test');
      await a.app.inject({ method: 'GET', url: '/api/testAbly', headers: who.player.auth });
      await Promise.all([marker, test]);
      expect(payloads).toHaveLength(1);
      expect(payloads[0]!.indexOf('"name":"balance"')).toBeLessThan(payloads[0]!.indexOf('"name":"request_status"'));
    } finally {
      await spy.end();
    }
  });
});
