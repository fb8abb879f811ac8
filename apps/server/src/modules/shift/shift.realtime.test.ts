import { OPERATORS_CHANNEL, type OperatorMessage, realtimeChannelFor } from '@adena/contract';
import { io, type Socket } from 'socket.io-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createUser, createWallet, firstServerId, TEST_TOTP_SECRET } from '../../../test/factories';
import { totpCode } from '../two-factor/totp';
import { createTwoProcesses, type TestApp, type TwoProcesses } from '../../../test/harness';
import { waitFor } from '../../../test/fakes/wait-for';

type User = Awaited<ReturnType<typeof createUser>>;

const sockets: Socket[] = [];
async function socketOf(t: TestApp, url: string, user: User): Promise<Socket> {
  const res = await t.app.inject({ method: 'POST', url: '/api/ably-token', headers: user.auth, payload: {} });
  const { token } = res.json() as { token: string };
  return new Promise((resolve, reject) => {
    const s = io(url, { path: '/socket.io/', auth: { token }, reconnection: false, transports: ['websocket'] });
    sockets.push(s);
    s.once('connect', () => resolve(s));
    s.once('connect_error', reject);
  });
}
const subscribe = (s: Socket, channel: string) => s.timeout(5000).emitWithAck('subscribe', { channel }) as Promise<{ ok?: true; error?: string }>;
/**
 * The next operators' message with this name, or a failure after `ms` (a bound for a missing event,
 * not a timed assertion: "at once" is a goal, measured by the benchmarks). Awaited after the call
 * that raises it, so a failure before then is not an unhandled rejection.
 */
const next = (s: Socket, name: string, ms = 10_000) => {
  const p = new Promise<OperatorMessage>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${name} within ${ms} ms`)), ms);
    const on = (m: OperatorMessage) => {
      if (m.channel !== OPERATORS_CHANNEL || m.name !== name) return;
      clearTimeout(timer);
      s.off('message', on);
      resolve(m);
    };
    s.on('message', on);
  });
  p.catch(() => {});
  return p;
};

afterEach(() => {
  for (const s of sockets.splice(0)) s.disconnect();
});

describe("the operators' channel across two app processes on one PostgreSQL", () => {
  let two: TwoProcesses;
  let a: TestApp;
  let b: TestApp;
  let urlA: string;
  let urlB: string;
  beforeAll(async () => {
    two = await createTwoProcesses();
    ({ a, b, urlA, urlB } = two);
  });
  afterAll(() => two?.close());

  it("an operator's socket on B hears of a deposit made on A, then of its claim and decision", async () => {
    const operator = await createUser(a.db.kysely, { admin: true, name: 'Вера' });
    const player = await createUser(a.db.kysely);
    const serverId = await firstServerId(a.db.kysely);
    await createWallet(a.db.kysely, player.id, serverId);
    const s = await socketOf(b, urlB, operator);
    expect(await subscribe(s, OPERATORS_CHANNEL)).toEqual({ ok: true });

    const created = next(s, 'request_created');
    const dep = await a.app.inject({ method: 'POST', url: '/api/up_balance_user/', headers: player.auth, payload: { gamesserver_id: serverId, amount: 3_000_000 } });
    expect(dep.statusCode).toBe(200);
    const id = dep.json().success.id;
    expect((await created).data).toEqual({
      id,
      type: 'input',
      status: 'pending',
      gamesserver_id: serverId,
      currency_type: 1,
      amount: 3_000_000,
      vip: false,
      claimed_by: null,
    });

    const claimed = next(s, 'request_claimed');
    expect((await a.app.inject({ method: 'POST', url: `/api/admin/requests/${id}/claim`, headers: operator.auth, payload: {} })).statusCode).toBe(200);
    expect((await claimed).data).toMatchObject({ id, claimed_by: { id: operator.id, name: 'Вера' } });

    const released = next(s, 'request_released');
    expect((await a.app.inject({ method: 'POST', url: `/api/admin/requests/${id}/release`, headers: operator.auth, payload: {} })).statusCode).toBe(200);
    expect((await released).data).toMatchObject({ id, claimed_by: null });

    const decided = next(s, 'request_decided');
    expect((await a.app.inject({ method: 'POST', url: `/api/admin/requests/${id}/complete`, headers: operator.auth, payload: {} })).statusCode).toBe(200);
    expect((await decided).data).toMatchObject({ id, status: 'completed' });
  });

  it("refuses the operators' channel to a player, who then hears nothing of other players' requests", async () => {
    const player = await createUser(a.db.kysely);
    const other = await createUser(a.db.kysely);
    const serverId = await firstServerId(a.db.kysely);
    await createWallet(a.db.kysely, other.id, serverId);
    const s = await socketOf(a, urlA, player);
    expect(await subscribe(s, OPERATORS_CHANNEL)).toEqual({ error: 'Нет доступа к этому каналу' });
    const heard: unknown[] = [];
    s.on('message', (m) => heard.push(m));
    // An operator's socket on the same process does hear the same deposit, so the event was sent.
    const operator = await createUser(a.db.kysely, { admin: true });
    const op = await socketOf(a, urlA, operator);
    expect(await subscribe(op, OPERATORS_CHANNEL)).toEqual({ ok: true });
    const created = next(op, 'request_created');
    await a.app.inject({ method: 'POST', url: '/api/up_balance_user/', headers: other.auth, payload: { gamesserver_id: serverId, amount: 1_000_000 } });
    await created;
    // A message of the player's own, sent after: one socket's messages arrive in order, so anything sent to the
    // player with the deposit would have come before it.
    expect(await subscribe(s, realtimeChannelFor(player.id))).toEqual({ ok: true });
    const own = new Promise((resolve) => s.on('message', (m: { name: string }) => m.name === 'test' && resolve(m)));
    expect((await a.app.inject({ method: 'GET', url: '/api/testAbly', headers: player.auth })).statusCode).toBe(200);
    await own;
    expect(heard).toEqual([expect.objectContaining({ name: 'test' })]);
  });

  it("a demoted operator's socket on B leaves the operators' channel at once and hears nothing more; a control operator does", async () => {
    const boss = await createUser(a.db.kysely, { admin: true, name: 'Старший' });
    const demoted = await createUser(a.db.kysely, { admin: true, name: 'Бывший' });
    const control = await createUser(a.db.kysely, { admin: true, name: 'Контроль' });
    const player = await createUser(a.db.kysely);
    const serverId = await firstServerId(a.db.kysely);
    await createWallet(a.db.kysely, player.id, serverId);
    const s = await socketOf(b, urlB, demoted);
    const c = await socketOf(b, urlB, control);
    expect(await subscribe(s, OPERATORS_CHANNEL)).toEqual({ ok: true });
    expect(await subscribe(c, OPERATORS_CHANNEL)).toEqual({ ok: true });

    const told = next(s, 'operators_left');
    const res = await a.app.inject({ method: 'POST', url: `/api/admin/users/${demoted.id}/admin`, headers: boss.auth, payload: { admin: false } });
    expect(res.statusCode).toBe(200);
    // The demotion was made on A; B takes the socket off the channel (polled, no fixed wait) and tells it so.
    const roomOnB = () => b.app.deps.realtime.io.sockets.adapter.rooms.get(OPERATORS_CHANNEL);
    await waitFor(() => (roomOnB()?.has(s.id!) ? undefined : true), 'the demoted socket to leave the channel on B');
    expect(await told).toEqual({ channel: OPERATORS_CHANNEL, name: 'operators_left', data: {} });

    const heard: unknown[] = [];
    s.on('message', (m) => heard.push(m));
    const created = next(c, 'request_created', 5000);
    await a.app.inject({ method: 'POST', url: '/api/up_balance_user/', headers: player.auth, payload: { gamesserver_id: serverId, amount: 1_000_000 } });
    await created;
    expect(heard).toEqual([]);
    // Nor can the socket (its handshake made as an admin) subscribe again.
    expect(await subscribe(s, OPERATORS_CHANNEL)).toEqual({ error: 'Нет доступа к этому каналу' });
  });

  it("an operator who turns their own TOTP off leaves the operators' channel as the call returns, on its process, and then on the other", async () => {
    const op = await createUser(a.db.kysely, { admin: true, name: 'Без кода' });
    const here = await socketOf(a, urlA, op);
    const there = await socketOf(b, urlB, op);
    expect(await subscribe(here, OPERATORS_CHANNEL)).toEqual({ ok: true });
    expect(await subscribe(there, OPERATORS_CHANNEL)).toEqual({ ok: true });
    const told = [next(here, 'operators_left'), next(there, 'operators_left')];
    const res = await a.app.inject({ method: 'POST', url: '/api/2fa/disable', headers: op.auth, payload: { code: totpCode(TEST_TOTP_SECRET, new Date()) } });
    expect(res.statusCode).toBe(200);
    // Not two seconds later, when the channel's own re-check would have come.
    expect(a.app.deps.realtime.io.sockets.adapter.rooms.get(OPERATORS_CHANNEL)?.has(here.id!) ?? false).toBe(false);
    const roomOnB = () => b.app.deps.realtime.io.sockets.adapter.rooms.get(OPERATORS_CHANNEL);
    await waitFor(() => (roomOnB()?.has(there.id!) ? undefined : true), 'the socket to leave the channel on B');
    expect((await Promise.all(told)).map((m) => m.name)).toEqual(['operators_left', 'operators_left']);
    expect(await subscribe(here, OPERATORS_CHANNEL)).toEqual({ error: 'Нет доступа к этому каналу' });
  });

  it('refuses the channel to an admin without TOTP (ADMIN_REQUIRE_2FA) and to one demoted after the handshake', async () => {
    const noTotp = await createUser(a.db.kysely, { admin: true, totp: false });
    const s1 = await socketOf(a, urlA, noTotp);
    expect(await subscribe(s1, OPERATORS_CHANNEL)).toEqual({ error: 'Нет доступа к этому каналу' });
    const later = await createUser(a.db.kysely, { admin: true });
    const s2 = await socketOf(b, urlB, later);
    await a.db.kysely.updateTable('users').set({ admin: false }).where('id', '=', later.id).execute();
    expect(await subscribe(s2, OPERATORS_CHANNEL)).toEqual({ error: 'Нет доступа к этому каналу' });
  });
});
