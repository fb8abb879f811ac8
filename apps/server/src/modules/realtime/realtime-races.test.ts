import { OPERATORS_CHANNEL, type RealtimeMessage, realtimeChannelFor } from '@adena/contract';
import { io, type Socket } from 'socket.io-client';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createUser, createWallet, firstServerId } from '../../../test/factories';
import { createTestApp, createTwoProcesses, DB_KINDS, gate, type TestApp, type TwoProcesses } from '../../../test/harness';
import { hashToken, newToken } from '../../lib/tokens';
import { sessionsRepository } from '../sessions/sessions.repository';
import { waitFor } from '../../../test/fakes/wait-for';

/**
 * The windows between a socket's database check and its joining a room (plugins/realtime.ts, "What this process
 * heard while a handshake or an operators' check waited"): an end or a demotion that lands there finds the socket
 * not yet in the room. Each test holds the check after PostgreSQL answered, lands the change, and lets it go on.
 */
const sockets: Socket[] = [];
const spies: Array<{ mockRestore(): void }> = [];
/** Takes the held calls' spies away (not the console's, which the test setup watches). */
const unhold = () => {
  for (const spy of spies.splice(0)) spy.mockRestore();
};
afterEach(() => {
  unhold();
  for (const s of sockets.splice(0)) s.disconnect();
});

/** The repository call's next answer (the next one `holds`), held until `release()`; `answered` resolves once it is read. */
function holdNext<K extends 'takeRealtimeToken' | 'mayHearOperators'>(name: K, holds: (answer: unknown) => boolean = () => true) {
  const answered = gate();
  const released = gate();
  const real = sessionsRepository[name].bind(sessionsRepository) as (...args: unknown[]) => Promise<unknown>;
  let held = false;
  const spy = vi.spyOn(sessionsRepository, name);
  spies.push(spy);
  spy.mockImplementation((async (...args: unknown[]) => {
    const answer = await real(...args);
    if (held || !holds(answer)) return answer;
    held = true;
    answered.open();
    await released.opened;
    return answer;
  }) as never);
  return { answered: answered.opened, release: released.open };
}

describe.each(DB_KINDS)('realtime checks raced by a change on %s', (kind) => {
  let t: TestApp;
  let url: string;
  beforeAll(async () => {
    t = await createTestApp(kind);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    url = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
  });
  afterAll(() => t.close());

  async function socketToken(auth: Record<string, string>) {
    const res = await t.app.inject({ method: 'POST', url: '/api/ably-token', headers: auth, payload: {} });
    expect(res.statusCode).toBe(200);
    return (res.json() as { token: string }).token;
  }
  /** Resolves with the connected socket, or with the handshake's refusal. */
  function connect(token: string) {
    const s = io(url, { path: '/socket.io/', auth: { token }, reconnection: false, transports: ['websocket'] });
    sockets.push(s);
    return new Promise<{ socket: Socket } | { refused: string }>((resolve) => {
      s.once('connect', () => resolve({ socket: s }));
      s.once('connect_error', (err) => resolve({ refused: err.message }));
    });
  }
  /** The user's connected socket and every message it gets. */
  async function connected(user: { auth: Record<string, string> }) {
    const joined = await connect(await socketToken(user.auth));
    if (!('socket' in joined)) throw new Error(`the socket was refused: ${joined.refused}`);
    const heard: RealtimeMessage[] = [];
    joined.socket.on('message', (m: RealtimeMessage) => heard.push(m));
    return { socket: joined.socket, heard };
  }
  /**
   * Resolves with the first message a player's new deposit sends `socket` (on the operators' channel), or a string
   * 10 s after the deposit was answered (a bound for what never comes, so a loaded machine cannot fail the positive case).
   */
  async function newRequestReaches(socket: Socket) {
    const got = new Promise<{ channel: string; name: string }>((resolve) => socket.on('message', (m: { channel: string; name: string }) => m.name === 'request_created' && resolve(m)));
    const player = await createUser(t.db.kysely);
    const sid = await firstServerId(t.db.kysely);
    await createWallet(t.db.kysely, player.id, sid);
    const opened = await t.app.inject({ method: 'POST', url: '/api/up_balance_user/', headers: player.auth, payload: { gamesserver_id: sid, amount: 1_000_000 } });
    expect(opened.statusCode).toBe(200);
    const late = new Promise<string>((resolve) => setTimeout(() => resolve('nothing within 10 s'), 10_000).unref());
    return Promise.race([got, late]);
  }
  /** `mayHearOperators` through `around` until unhold(); `calls` counts them. */
  function aroundOperatorsCheck(around: (real: () => Promise<boolean>, call: number) => Promise<boolean>) {
    const real = sessionsRepository.mayHearOperators.bind(sessionsRepository);
    const calls = { n: 0 };
    const spy = vi.spyOn(sessionsRepository, 'mayHearOperators');
    spies.push(spy);
    spy.mockImplementation(((...args: Parameters<typeof real>) => around(() => real(...args), ++calls.n)) as never);
    return calls;
  }
  /** The user's socket, on the operators' channel. */
  async function onOperatorsChannel(user: { auth: Record<string, string> }) {
    const c = await connected(user);
    expect(await c.socket.timeout(5000).emitWithAck('subscribe', { channel: OPERATORS_CHANNEL })).toEqual({ ok: true });
    return c;
  }
  const setAdmin = (ids: number[], admin: boolean) => t.db.kysely.updateTable('users').set({ admin }).where('id', 'in', ids).execute();
  /**
   * Every session change committed so far has reached this process's listeners: PostgreSQL's NOTIFY, which the
   * safety net's recheck follows, came before the socket joined, so only the fix can catch what follows.
   */
  const changesHeard = async () => expect(await t.db.changes('session_changed').sync()).toBe(true);

  it('a logout landing while the socket token is checked refuses that socket; the owner’s other session still connects and hears its channel', async () => {
    const owner = await createUser(t.db.kysely);
    // The session to be ended is another one of the owner's, as a thief's would be.
    const other = newToken();
    await t.db.kysely.insertInto('tokens').values({ user_id: owner.id, kind: 'access', token_hash: hashToken(other), method: 'email' }).execute();
    const stolen = { auth: { authorization: `Bearer ${other}` } };
    const token = await socketToken(stolen.auth);
    const hold = holdNext('takeRealtimeToken');
    const thief = connect(token);
    await hold.answered;
    // The session ends after its token was read as live, before the socket joined its rooms.
    const out = await t.app.inject({ method: 'GET', url: '/api/logout', headers: stolen.auth });
    expect(out.statusCode).toBe(200);
    await changesHeard();
    hold.release();
    const refused = await thief;
    expect('refused' in refused ? refused.refused : 'connected').toBe('unauthorized');

    unhold();
    const mine = await connect(await socketToken(owner.auth));
    expect('socket' in mine).toBe(true);
    const socket = (mine as { socket: Socket }).socket;
    expect(await socket.timeout(5000).emitWithAck('subscribe', { channel: realtimeChannelFor(owner.id) })).toEqual({ ok: true });
    const got = new Promise<RealtimeMessage>((resolve) => socket.once('message', resolve));
    expect((await t.app.inject({ method: 'GET', url: '/api/testAbly', headers: owner.auth })).statusCode).toBe(200);
    expect((await got).name).toBe('test');
  });

  it("an operator demoted while their operators' check is answered stays off the operators' channel", async () => {
    const boss = await createUser(t.db.kysely, { admin: true });
    const operator = await createUser(t.db.kysely, { admin: true });
    const { socket, heard } = await connected(operator);

    const hold = holdNext('mayHearOperators');
    const asked = socket.timeout(5000).emitWithAck('subscribe', { channel: OPERATORS_CHANNEL });
    await hold.answered;
    const demoted = await t.app.inject({ method: 'POST', url: `/api/admin/users/${operator.id}/admin`, headers: boss.auth, payload: { admin: false } });
    expect(demoted.statusCode).toBe(200);
    await changesHeard();
    hold.release();
    expect(await asked).toEqual({ error: 'Нет доступа к этому каналу' });

    // A player's new request reaches the operator still on the channel, not the demoted one, whose session goes on.
    unhold();
    const still = await connected(boss);
    expect(await still.socket.timeout(5000).emitWithAck('subscribe', { channel: OPERATORS_CHANNEL })).toEqual({ ok: true });
    expect(await newRequestReaches(still.socket)).toMatchObject({ channel: OPERATORS_CHANNEL, name: 'request_created' });
    expect(socket.connected).toBe(true);
    expect(heard.filter((m) => m.channel === OPERATORS_CHANNEL)).toEqual([]);
  });

  it("an operator given the role back while the re-check reads the demotion stays on the operators' channel", async () => {
    const operator = await createUser(t.db.kysely, { admin: true });
    const { socket, heard } = await onOperatorsChannel(operator);

    // A demotion whose announcement was lost (made on a process that died, say): only the re-check, after
    // PostgreSQL's NOTIFY, takes the socket off. It reads the demotion; the role comes back before it acts.
    const hold = holdNext('mayHearOperators', (may) => may === false);
    await setAdmin([operator.id], false);
    await hold.answered;
    await setAdmin([operator.id], true);
    await changesHeard();
    hold.release();

    // A player's new request still reaches the operator, who was never told to leave.
    unhold();
    expect(await newRequestReaches(socket)).toMatchObject({ channel: OPERATORS_CHANNEL, name: 'request_created' });
    expect(heard.map((m) => m.name)).not.toContain('operators_left');
  });

  it("a demotion whose announcement was lost still takes the socket off while the user's own news keeps coming", async () => {
    const operator = await createUser(t.db.kysely, { admin: true });
    const { socket, heard } = await onOperatorsChannel(operator);
    // News of the same user during every read of the re-check (a name changed, a TOTP step written…).
    const calls = aroundOperatorsCheck(async (real, n) => {
      const answer = await real();
      await t.db.kysely.updateTable('users').set({ name: `Оператор ${n}` }).where('id', '=', operator.id).execute();
      await changesHeard();
      return answer;
    });
    await setAdmin([operator.id], false);
    await waitFor(() => (heard.some((m) => (m.name as string) === 'operators_left') ? true : undefined), 'operators_left', 10_000);
    expect(calls.n).toBeGreaterThanOrEqual(5);
    unhold();
    expect(await newRequestReaches(socket)).toBe('nothing within 10 s');
  });

  it("a re-check read that fails for one demoted operator still takes the other off, and asks for the first again", async () => {
    const [first, second] = [await createUser(t.db.kysely, { admin: true }), await createUser(t.db.kysely, { admin: true })];
    const one = await onOperatorsChannel(first);
    const two = await onOperatorsChannel(second);
    const calls = aroundOperatorsCheck(async (real, n) => {
      if (n === 1) throw new Error('Connection terminated unexpectedly');
      return real();
    });
    // Both demoted at once, their announcements lost: only the re-check takes them off.
    await setAdmin([first.id, second.id], false);
    for (const c of [one, two]) await waitFor(() => (c.heard.some((m) => (m.name as string) === 'operators_left') ? true : undefined), 'operators_left', 10_000);
    expect(calls.n).toBeGreaterThanOrEqual(3);
    unhold();
    expect(await newRequestReaches(two.socket)).toBe('nothing within 10 s');
  });

  /** Every call of `name`, after its real answer, first logs out a fresh stranger's session (an end elsewhere). */
  function endStrangersDuring(name: 'takeRealtimeToken' | 'liveSessions' | 'mayHearOperators') {
    const real = sessionsRepository[name].bind(sessionsRepository) as (...args: unknown[]) => Promise<unknown>;
    const calls = { n: 0 };
    const spy = vi.spyOn(sessionsRepository, name);
    spies.push(spy);
    spy.mockImplementation((async (...args: unknown[]) => {
      const answer = await real(...args);
      calls.n++;
      const stranger = await createUser(t.db.kysely);
      expect((await t.app.inject({ method: 'GET', url: '/api/logout', headers: stranger.auth })).statusCode).toBe(200);
      return answer;
    }) as never);
    return calls;
  }

  it("others' sessions ending while a socket is checked ask nothing again: the player connects and the operator subscribes on one read", async () => {
    const player = await createUser(t.db.kysely);
    const operator = await createUser(t.db.kysely, { admin: true });
    const tokens = [await socketToken(player.auth), await socketToken(operator.auth)];
    const taken = endStrangersDuring('takeRealtimeToken');
    const again = endStrangersDuring('liveSessions');
    const checked = endStrangersDuring('mayHearOperators');
    const [mine, ops] = [await connect(tokens[0]!), await connect(tokens[1]!)];
    if (!('socket' in mine) || !('socket' in ops)) throw new Error('a socket of an untouched session was refused');
    expect(await ops.socket.timeout(5000).emitWithAck('subscribe', { channel: OPERATORS_CHANNEL })).toEqual({ ok: true });
    expect({ taken: taken.n, again: again.n, checked: checked.n }).toEqual({ taken: 2, again: 0, checked: 1 });
  });
});

describe('a logout on one process while the socket token is checked on another', () => {
  let two: TwoProcesses;
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    two = await createTwoProcesses();
    ({ a, b } = two);
  });
  afterAll(() => two?.close());

  it("refuses the socket on B once A's announcement and PostgreSQL's session_changed both arrived before the join", async () => {
    const user = await createUser(a.db.kysely);
    const res = await a.app.inject({ method: 'POST', url: '/api/ably-token', headers: user.auth, payload: {} });
    expect(res.statusCode).toBe(200);
    const { token } = res.json() as { token: string };
    const hold = holdNext('takeRealtimeToken');
    const s = io(two.urlB, { path: '/socket.io/', auth: { token }, reconnection: false, transports: ['websocket'] });
    sockets.push(s);
    const outcome = new Promise<string>((resolve) => {
      s.once('connect', () => resolve('connected'));
      s.once('connect_error', (err) => resolve(err.message));
    });
    await hold.answered;
    // B hears A's end (Socket.IO's serverSideEmit through PostgreSQL) and the session's NOTIFY, both before the join.
    const announced = new Promise<void>((resolve) => b.app.deps.realtime.io.once('adena:end-sockets', () => resolve()));
    expect((await a.app.inject({ method: 'GET', url: '/api/logout', headers: user.auth })).statusCode).toBe(200);
    await announced;
    expect(await b.db.changes('session_changed').sync()).toBe(true);
    hold.release();
    expect(await outcome).toBe('unauthorized');
  });
});
