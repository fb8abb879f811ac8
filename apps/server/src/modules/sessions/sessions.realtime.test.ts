import { OPERATORS_CHANNEL, type RealtimeMessage } from '@adena/contract';
import { sql } from 'kysely';
import { io, type Socket } from 'socket.io-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createUser, createWallet, firstServerId, fund } from '../../../test/factories';
import { readOutbox } from '../../../test/fakes/outbox';
import { waitFor } from '../../../test/fakes/wait-for';
import { createTwoProcesses, type TestApp, type TwoProcesses } from '../../../test/harness';
import { hashPassword } from '../../lib/password';
import { hashToken, newToken } from '../../lib/tokens';
import { createSessionsService } from './sessions.service';

const KK = 1_000_000;
const urlOf = (t: TestApp) => `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** A socket as the web app opens one: a fresh token from POST /api/ably-token, connect, subscribe; it records what it gets and when it closes. */
interface Watched {
  socket: Socket;
  messages: RealtimeMessage[];
  closedAt: number | null;
}
const opened: Socket[] = [];
async function openSocket(issuer: TestApp, target: TestApp, accessToken: string): Promise<Watched> {
  const res = await issuer.app.inject({ method: 'POST', url: '/api/ably-token', headers: bearer(accessToken), payload: {} });
  expect(res.statusCode).toBe(200);
  const { token, channel } = res.json() as { token: string; channel: string };
  const socket = io(urlOf(target), { path: '/socket.io/', auth: { token }, reconnection: false, transports: ['websocket'] });
  opened.push(socket);
  const w: Watched = { socket, messages: [], closedAt: null };
  socket.on('message', (m: RealtimeMessage) => w.messages.push(m));
  socket.on('disconnect', () => {
    w.closedAt = Date.now();
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', reject);
  });
  expect(await socket.timeout(5000).emitWithAck('subscribe', { channel })).toEqual({ ok: true });
  return w;
}

/**
 * The socket got session_ended with this reason and was closed. The "within a second" is a
 * goal, not a timed assertion (a loaded CI machine may take longer); `since` stays for the message.
 */
async function expectEnded(w: Watched, reason: string, since: number) {
  await waitFor(() => (w.closedAt !== null ? true : undefined), `the socket to close after ${since}`, 10_000);
  expect(w.messages.find((m) => m.name === 'session_ended')).toEqual({
    channel: expect.any(String),
    name: 'session_ended',
    data: { reason },
  });
}

async function addSession(t: TestApp, userId: number) {
  const token = newToken();
  await t.db.kysely.insertInto('tokens').values({ user_id: userId, kind: 'access', token_hash: hashToken(token), method: 'email' }).execute();
  return token;
}

afterEach(() => {
  for (const s of opened.splice(0)) s.disconnect();
});

describe('sockets follow their session, across two app processes on one PostgreSQL', () => {
  let two: TwoProcesses;
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    two = await createTwoProcesses();
    ({ a, b } = two);
  });
  afterAll(() => two?.close());

  it('a logout on process A ends that session’s socket on process B within a second; the other session’s socket goes on', async () => {
    const user = await createUser(a.db.kysely);
    const other = await addSession(a, user.id);
    const mine = await openSocket(a, b, user.token);
    const theirs = await openSocket(a, b, other);
    expect((await a.app.inject({ method: 'GET', url: '/api/logout', headers: user.auth })).statusCode).toBe(200);
    await expectEnded(mine, 'logout', Date.now());
    // The other session's socket is open and still hears its channel.
    expect(theirs.socket.connected).toBe(true);
    await a.app.inject({ method: 'GET', url: '/api/testAbly', headers: bearer(other) });
    await waitFor(() => theirs.messages.find((m) => m.name === 'test'), 'the test message');
    expect(theirs.messages.some((m) => m.name === 'session_ended')).toBe(false);
  });

  it('a password reset on A ends every old socket on B, and a gift code issued afterwards reaches no old socket', async () => {
    const user = await createUser(a.db.kysely);
    const serverId = await firstServerId(a.db.kysely);
    await fund(a.db.kysely, await createWallet(a.db.kysely, user.id, serverId), 10n * BigInt(KK));
    const second = await addSession(a, user.id);
    const old = [await openSocket(a, b, user.token), await openSocket(b, b, second), await openSocket(a, a, second)];

    const start = await a.app.inject({ method: 'POST', url: '/api/email_reset_password_code_date', payload: { email: user.email } });
    const mail = await waitFor(() => readOutbox(a.dataDir).find((m) => m.to === user.email), 'the reset code');
    const check = await a.app.inject({
      method: 'POST',
      url: '/api/email_reset_password_code_check',
      payload: { email_reset_password_token: start.json().email_reset_password_token, code: mail.code },
    });
    const reset = await a.app.inject({
      method: 'POST',
      url: '/api/email_create_new_password',
      headers: bearer(check.json().new_password_token),
      payload: { password: 'brand new pass 1', password_confirmation: 'brand new pass 1' },
    });
    expect(reset.statusCode).toBe(200);
    const since = Date.now();
    for (const w of old) await expectEnded(w, 'password_reset', since);

    // The new session's socket hears the new code; the old ones are closed and hear nothing more.
    const fresh = await openSocket(a, b, reset.json().access_token);
    const wallet = await a.db.kysely.selectFrom('wallets').select('id').where('user_id', '=', user.id).executeTakeFirstOrThrow();
    const issued = await a.app.inject({
      method: 'POST',
      url: '/api/show_code/',
      headers: bearer(reset.json().access_token),
      payload: { gamesserver_id: serverId, nominal: KK, wallet_id: wallet.id },
    });
    expect(issued.statusCode).toBe(200);
    await waitFor(() => fresh.messages.find((m) => m.name === 'sert'), 'the new code on the new socket');
    for (const w of old) {
      expect(w.socket.connected).toBe(false);
      expect(w.messages.map((m) => m.name)).toEqual(['session_ended']);
    }
  });

  it('ending another session, a password change and an expiry each end exactly those sockets', async () => {
    const user = await createUser(a.db.kysely);
    const [s2, s3, s4] = [await addSession(a, user.id), await addSession(a, user.id), await addSession(a, user.id)];
    await a.db.kysely.updateTable('users').set({ password_hash: await hashPassword('old password 1') }).where('id', '=', user.id).execute();
    const idOf = async (token: string) =>
      (await a.db.kysely.selectFrom('tokens').select('id').where('token_hash', '=', hashToken(token)).executeTakeFirstOrThrow()).id;
    const [w1, w2, w3, w4] = [await openSocket(a, b, user.token), await openSocket(a, b, s2), await openSocket(a, b, s3), await openSocket(a, b, s4)];

    // DELETE /sessions/{s2} from s1.
    expect((await a.app.inject({ method: 'DELETE', url: `/api/sessions/${await idOf(s2)}`, headers: user.auth })).statusCode).toBe(200);
    await expectEnded(w2, 'revoked', Date.now());

    // s4 goes idle and the sweep (at a clock a day on) ends it.
    await a.db.kysely
      .updateTable('tokens')
      .set({ idle_seconds: 3600, last_seen_at: sql<Date>`now() - interval '2 hours'` })
      .where('id', '=', await idOf(s4))
      .execute();
    await createSessionsService({ db: a.db.kysely, ended: a.app.deps.realtime.endSessions }).sweepEnded();
    await expectEnded(w4, 'expired', Date.now());

    // A password change from s1 ends s3; s1's own socket stays with its session.
    const changed = await a.app.inject({
      method: 'POST',
      url: '/api/change_password',
      headers: user.auth,
      payload: { password: 'old password 1', new_password: 'new password 2', new_password_confirmation: 'new password 2' },
    });
    expect(changed.statusCode).toBe(200);
    await expectEnded(w3, 'password_changed', Date.now());
    expect(w1.socket.connected).toBe(true);
    expect(w1.messages).toEqual([]);
  });

  it('a session ended without its announcement (say, a sweep whose process died after the DELETE) still ends its socket', async () => {
    const user = await createUser(a.db.kysely);
    const other = await addSession(a, user.id);
    const mine = await openSocket(a, b, user.token);
    const theirs = await openSocket(a, b, other);
    // Straight in the database: no process announces it; PostgreSQL's own session_changed does.
    await a.db.kysely.deleteFrom('tokens').where('token_hash', '=', hashToken(user.token)).execute();
    await expectEnded(mine, 'revoked', Date.now());
    expect(theirs.socket.connected).toBe(true);
    expect(theirs.messages.some((m) => m.name === 'session_ended')).toBe(false);
  });

  it("an operator demoted without the announcement (written straight in the database) still leaves the operators' channel on B", async () => {
    const operator = await createUser(a.db.kysely, { admin: true });
    const w = await openSocket(a, b, operator.token);
    expect(await w.socket.timeout(5000).emitWithAck('subscribe', { channel: OPERATORS_CHANNEL })).toEqual({ ok: true });
    const inRoom = () => b.app.deps.realtime.io.sockets.adapter.rooms.get(OPERATORS_CHANNEL)?.has(w.socket.id!) ?? false;
    expect(inRoom()).toBe(true);
    // No process announces it (as when B's adapter was reconnecting): PostgreSQL's session_changed does.
    await a.db.kysely.updateTable('users').set({ admin: false }).where('id', '=', operator.id).execute();
    await waitFor(() => (inRoom() ? undefined : true), "the socket to leave the operators' channel");
    // Told so on the channel, so that the admin area stops showing a live queue.
    await waitFor(() => w.messages.find((m) => (m as { name: string }).name === 'operators_left'), 'operators_left');
    // The session itself goes on: the socket is open and hears its own channel.
    expect(w.socket.connected).toBe(true);
    await a.app.inject({ method: 'GET', url: '/api/testAbly', headers: operator.auth });
    await waitFor(() => w.messages.find((m) => m.name === 'test'), 'the test message');
    expect(w.messages.some((m) => m.name === 'session_ended')).toBe(false);
  });

  it('a realtime token serves one connection', async () => {
    const user = await createUser(a.db.kysely);
    const res = await a.app.inject({ method: 'POST', url: '/api/ably-token', headers: user.auth, payload: {} });
    const { token, expires_at } = res.json() as { token: string; expires_at: string };
    expect(new Date(expires_at).getTime() - Date.now()).toBeLessThanOrEqual(60_000);
    const connect = () =>
      new Promise<Socket>((resolve, reject) => {
        const s = io(urlOf(b), { path: '/socket.io/', auth: { token }, reconnection: false, transports: ['websocket'] });
        opened.push(s);
        s.once('connect', () => resolve(s));
        s.once('connect_error', reject);
      });
    await connect();
    await expect(connect()).rejects.toThrow(/unauthorized/);
  });
});
