import { sql } from 'kysely';
import { describe, expect, it, vi } from 'vitest';
import { PASSWORD, useAccountsWorld } from '../../../test/accounts-app';
import { DB_KINDS, gate, holdLocks, lockWaits } from '../../../test/harness';
import type { SessionEndReason } from '@adena/contract';
import { createSessionsService } from './sessions.service';

/** While `until` is set, each deletion of a caller's other sessions waits for it there (counted in `arrived`). */
const deletePause = vi.hoisted(() => ({ arrived: 0, until: null as Promise<void> | null }));
vi.mock('./sessions.repository', async (importOriginal) => {
  const real = await importOriginal<typeof import('./sessions.repository')>();
  const repo = real.sessionsRepository;
  return {
    ...real,
    sessionsRepository: {
      ...repo,
      async deleteOtherSessions(...args: Parameters<typeof repo.deleteOtherSessions>) {
        if (deletePause.until) {
          deletePause.arrived += 1;
          await deletePause.until;
        }
        return repo.deleteOtherSessions(...args);
      },
    },
  };
});

const UA_ANDROID = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36';
const UA_IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

describe.each(DB_KINDS)('sessions on %s', (kind) => {
  const { world, post, get, me, registerByEmail } = useAccountsWorld(kind);

  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, token?: string, payload?: object, headers: Record<string, string> = {}) =>
    world.t.app.inject({
      method,
      url,
      ...(payload ? { payload } : {}),
      remoteAddress: '203.0.113.7',
      headers: { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) },
    });
  const login = async (email: string, password = PASSWORD, ua = UA_IPHONE) => {
    const res = await world.t.app.inject({ method: 'POST', url: '/api/login', payload: { email, password }, remoteAddress: '198.51.100.9', headers: { 'user-agent': ua } });
    expect(res.statusCode).toBe(200);
    return res.json().access_token as string;
  };
  const sessionIdOf = async (token: string) => {
    const list = (await call('GET', '/api/sessions', token)).json() as { id: number; current: boolean }[];
    return list.find((s) => s.current)!.id;
  };
  /** Lets the database believe a session was last seen, and started, this many hours earlier. */
  const ageSession = (id: number, hours: number, columns: ('last_seen_at' | 'expires_at')[]) =>
    world.db.kysely
      .updateTable('tokens')
      .set(Object.fromEntries(columns.map((c) => [c, sql<Date>`${sql.ref(c)} - make_interval(hours => ${hours})`])))
      .where('id', '=', id)
      .execute();

  describe('sessions', () => {
    it('GET /user needs a live token', async () => {
      expect((await get('/api/user')).statusCode).toBe(401);
      const res = await get('/api/user', { token: 'made-up' });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ message: 'Необходимо выполнить вход' });
    });

    it('logout ends that token only', async () => {
      const { email, access_token: a } = await registerByEmail();
      const b = (await post('/api/login', { email, password: PASSWORD })).json().access_token;
      const out = await get('/api/logout', { token: a });
      expect(out.statusCode).toBe(200);
      expect(out.json()).toEqual({ logout: true });
      expect((await me(a)).statusCode).toBe(401);
      expect((await me(b)).statusCode).toBe(200);
      expect((await get('/api/logout', { token: a })).statusCode).toBe(401);
      expect((await get('/api/logout')).statusCode).toBe(401);
    });
  });

  describe('the session list', () => {
    it('lists only the caller’s own sessions, with how, where from and on what each signed in', async () => {
      const { email, access_token: signup } = await registerByEmail();
      const phone = await login(email, PASSWORD, UA_ANDROID);
      const stranger = await registerByEmail();
      const res = await call('GET', '/api/sessions', phone);
      expect(res.statusCode).toBe(200);
      const list = res.json() as { id: number; current: boolean; method: string; ip: string; user_agent: string | null; created_at: string; last_seen_at: string }[];
      expect(list).toHaveLength(2);
      const current = list.find((s) => s.current)!;
      expect(current).toMatchObject({ method: 'email', ip: '198.51.100.9', user_agent: UA_ANDROID });
      expect(Number.isNaN(Date.parse(current.last_seen_at))).toBe(false);
      expect(list.filter((s) => !s.current)).toHaveLength(1);
      // The stranger's session is not among them, and the stranger sees only theirs.
      const theirs = (await call('GET', '/api/sessions', stranger.access_token)).json() as { id: number }[];
      expect(theirs).toHaveLength(1);
      expect(list.map((s) => s.id)).not.toContain(theirs[0]!.id);
      expect((await me(signup)).statusCode).toBe(200);
      expect((await call('GET', '/api/sessions')).statusCode).toBe(401);
    });

    it('ends one chosen session; another user’s session id answers 404 and that session goes on', async () => {
      const { email, access_token: first } = await registerByEmail();
      const second = await login(email);
      const victim = await registerByEmail();
      const victimSession = await sessionIdOf(victim.access_token);

      const foreign = await call('DELETE', `/api/sessions/${victimSession}`, first);
      expect(foreign.statusCode).toBe(404);
      expect(foreign.json().message).toBe('Сеанс не найден');
      expect((await me(victim.access_token)).statusCode).toBe(200);

      const secondId = await sessionIdOf(second);
      const res = await call('DELETE', `/api/sessions/${secondId}`, first);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ success: secondId });
      expect((await me(second)).statusCode).toBe(401);
      expect((await me(first)).statusCode).toBe(200);
      expect((await call('DELETE', `/api/sessions/${secondId}`, first)).statusCode).toBe(404);

      expect((await call('DELETE', '/api/sessions/abc', first)).statusCode).toBe(422);
      expect((await call('DELETE', `/api/sessions/${victimSession}`)).statusCode).toBe(401);
      expect((await me(victim.access_token)).statusCode).toBe(200);

      // A session already past its idle end, not yet swept, is ended too: 404, as the list no longer shows it.
      const third = await login(email);
      const thirdId = await sessionIdOf(third);
      await world.db.kysely.updateTable('tokens').set({ last_seen_at: new Date(Date.now() - 25 * 3600_000) }).where('id', '=', thirdId).execute();
      expect((await me(third)).statusCode).toBe(401);
      expect((await call('DELETE', `/api/sessions/${thirdId}`, first)).statusCode).toBe(404);
    });

    it('ends every other session of the caller, and nobody else’s', async () => {
      const { email, access_token: keep } = await registerByEmail();
      const others = [await login(email), await login(email), await login(email)];
      const bystander = await registerByEmail();
      const res = await call('POST', '/api/sessions/end_others', keep, {});
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ ended: 3 });
      for (const t of others) expect((await me(t)).statusCode).toBe(401);
      expect((await me(keep)).statusCode).toBe(200);
      expect((await me(bystander.access_token)).statusCode).toBe(200);
      expect((await call('POST', '/api/sessions/end_others', keep, {})).json()).toEqual({ ended: 0 });
      // The body is optional: a POST with none at all (curl -X POST, another program) is the same call.
      const bare = await call('POST', '/api/sessions/end_others', keep);
      expect([bare.statusCode, bare.json()]).toEqual([200, { ended: 0 }]);
      expect((await call('POST', '/api/sessions/end_others', undefined, {})).statusCode).toBe(401);
    });

    // PGlite runs one transaction at a time: the two calls cannot overlap there.
    it.skipIf(kind === 'pglite')('two sessions ending each other at once take turns: the first ends the other, which then ends nothing (401)', async () => {
      const { email, access_token: owner } = await registerByEmail();
      const thief = await login(email);
      // Each call is held just before it deletes; both would get there unless they take turns.
      const release = gate();
      deletePause.arrived = 0;
      deletePause.until = release.opened;
      const calls = [call('POST', '/api/sessions/end_others', owner, {}), call('POST', '/api/sessions/end_others', thief, {})];
      await expect.poll(() => deletePause.arrived).toBe(1);
      // The second one is on its way: at the pause too, or waiting for the first one's lock.
      for (const until = Date.now() + 3_000; deletePause.arrived < 2 && (await lockWaits(world.db.kysely, '%users%')) === 0 && Date.now() < until; ) {
        await new Promise((r) => setTimeout(r, 20));
      }
      deletePause.until = null;
      release.open();
      const codes = (await Promise.all(calls)).map((r) => r.statusCode).sort();
      expect(codes).toEqual([200, 401]);
      // Exactly one of the two sessions is left, the one that asked first.
      expect([(await me(owner)).statusCode, (await me(thief)).statusCode].sort()).toEqual([200, 401]);
    });
  });

  describe('a token of a session that ends meanwhile', () => {
    // Review finding: a logout in another tab between the caller's check and the insert broke the
    // tokens' foreign key, and POST /api/ably-token (every socket reconnect) answered 500.
    it.runIf(kind === 'postgres').each([
      ['POST /api/ably-token', '/api/ably-token'],
      ['POST /api/statement/download_token', '/api/statement/download_token'],
    ])('%s while a logout of that session commits answers 401, and writes no token', async (_name, url) => {
      const { access_token } = await registerByEmail();
      const id = await sessionIdOf(access_token);
      const before = await world.db.kysely.selectFrom('tokens').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      // The logout has deleted the session and not yet committed when the call writes its token.
      const logout = await holdLocks(world.db.kysely, (trx) => trx.deleteFrom('tokens').where('id', '=', id).execute());
      const answer = call('POST', url, access_token, {});
      await vi.waitFor(async () => expect(await lockWaits(world.db.kysely, '%insert into%tokens%')).toBe(1), { timeout: 10_000, interval: 20 });
      await logout.release();
      const res = await answer;
      expect(res.statusCode).toBe(401);
      expect(res.json().message).toBe('Необходимо выполнить вход');
      const after = await world.db.kysely.selectFrom('tokens').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      expect(Number(after.n)).toBe(Number(before.n) - 1);
      expect((await me(access_token)).statusCode).toBe(401);
    });
  });

  describe('a socket token asked for while the session ends, with an expired socket token of it left', () => {
    // Stress round 5: the socket-token call deleted the user's expired socket tokens, then locked the session row to
    // insert; a logout (or a block, a reset) deletes the session row, then its socket tokens. A deadlock, a 503 to one.
    it.runIf(kind === 'postgres')('a logout and the socket token take turns: 200 to the logout, 401 to the socket token, no deadlock', async () => {
      const { access_token } = await registerByEmail();
      const id = await sessionIdOf(access_token);
      const user = await world.db.kysely.selectFrom('tokens').select('user_id').where('id', '=', id).executeTakeFirstOrThrow();
      await world.db.kysely
        .insertInto('tokens')
        .values({ user_id: user.user_id, kind: 'realtime', token_hash: `expired-${id}`, expires_at: new Date(Date.now() - 60_000), session_id: id })
        .execute();
      const deadlocks = async () =>
        Number((await sql<{ n: string }>`SELECT deadlocks::text AS n FROM pg_stat_database WHERE datname = current_database()`.execute(world.db.kysely)).rows[0]!.n);
      const before = await deadlocks();
      const held = await holdLocks(world.db.kysely, (trx) => trx.selectFrom('tokens').select('id').where('id', '=', id).forUpdate().execute());
      const logout = call('GET', '/api/logout', access_token);
      await vi.waitFor(async () => expect(await lockWaits(world.db.kysely, '%delete from%tokens%')).toBe(1), { timeout: 10_000, interval: 20 });
      const socket = call('POST', '/api/ably-token', access_token, {});
      await vi.waitFor(async () => expect(await lockWaits(world.db.kysely)).toBe(2), { timeout: 10_000, interval: 20 });
      await held.release();
      expect({ logout: (await logout).statusCode, socket: (await socket).statusCode }).toEqual({ logout: 200, socket: 401 });
      expect(await deadlocks()).toBe(before);
    });
  });

  describe('change of password', () => {
    const change = (token: string | undefined, body: object) => call('POST', '/api/change_password', token, body);

    it('checks the current password, ends every other session, and keeps this one under a new token', async () => {
      const { email, access_token: here } = await registerByEmail();
      const elsewhere = await login(email);
      const hereId = await sessionIdOf(here);

      const wrong = await change(here, { password: 'not the password', new_password: 'new secret 42', new_password_confirmation: 'new secret 42' });
      expect(wrong.statusCode).toBe(422);
      expect(wrong.json().errors.password).toEqual(['Неверный текущий пароль']);
      const mismatch = await change(here, { password: PASSWORD, new_password: 'new secret 42', new_password_confirmation: 'new secret 43' });
      expect(mismatch.statusCode).toBe(422);
      expect(mismatch.json().errors.new_password_confirmation).toEqual(['Пароли не совпадают']);
      expect((await change(here, { password: PASSWORD, new_password: 'short', new_password_confirmation: 'short' })).json().errors.new_password).toBeDefined();
      const common = await change(here, { password: PASSWORD, new_password: 'password123', new_password_confirmation: 'password123' });
      expect(common.statusCode).toBe(422);
      expect(common.json().errors.new_password).toHaveLength(1);
      expect((await me(elsewhere)).statusCode).toBe(200);

      const res = await change(here, { password: PASSWORD, new_password: 'new secret 42', new_password_confirmation: 'new secret 42' });
      expect(res.statusCode).toBe(200);
      const { access_token, user } = res.json() as { access_token: string; user: { email: string } };
      expect(user.email).toBe(email);
      expect((await me(access_token)).statusCode).toBe(200);
      expect(await sessionIdOf(access_token)).toBe(hereId);
      expect((await me(here)).statusCode).toBe(401);
      expect((await me(elsewhere)).statusCode).toBe(401);
      expect((await post('/api/login', { email, password: PASSWORD })).statusCode).toBe(401);
      expect((await post('/api/login', { email, password: 'new secret 42' })).statusCode).toBe(200);
    });

    it('refuses an anonymous caller, and a thief guessing the current password is stopped after 5 tries', async () => {
      expect((await change(undefined, { password: 'x' })).statusCode).toBe(401);
      const { email, access_token } = await registerByEmail();
      const body = (password: string) => ({ password, new_password: 'thief owns it 1', new_password_confirmation: 'thief owns it 1' });
      for (let i = 0; i < 5; i++) expect((await change(access_token, body(`guess ${i}`))).statusCode).toBe(422);
      const stopped = await change(access_token, body(PASSWORD));
      expect(stopped.statusCode).toBe(429);
      expect(stopped.headers['retry-after']).toBeDefined();
      // The owner's password still works.
      expect((await post('/api/login', { email, password: PASSWORD })).statusCode).toBe(200);
    });
  });

  describe('lifetime', () => {
    it('ends a session unused for SESSION_IDLE_HOURS, and one SESSION_MAX_DAYS old however used', async () => {
      const { email, access_token: idle } = await registerByEmail();
      const busy = await login(email);
      const idleId = await sessionIdOf(idle);
      const busyId = await sessionIdOf(busy);
      await ageSession(idleId, 23, ['last_seen_at']);
      expect((await me(idle)).statusCode).toBe(200);
      await ageSession(idleId, 2, ['last_seen_at']);
      // The request above marked it seen: 23 h ago became now, so 2 h more is not idle.
      expect((await me(idle)).statusCode).toBe(200);
      await ageSession(idleId, 25, ['last_seen_at']);
      expect((await me(idle)).statusCode).toBe(401);

      // Hard end: 30 days after sign-in (expires_at), however recently used.
      await ageSession(busyId, 30 * 24 - 1, ['expires_at']);
      expect((await me(busy)).statusCode).toBe(200);
      await ageSession(busyId, 2, ['expires_at']);
      expect((await me(busy)).statusCode).toBe(401);
      // A money call checks the same rule inside its statement.
      const down = await call('POST', '/api/down_balance_user/', busy, { gamesserver_id: 1, amount: 1_000_000 });
      expect(down.statusCode).toBe(401);
    });

    it('marks a session seen at most once a minute', async () => {
      const { access_token } = await registerByEmail();
      const id = await sessionIdOf(access_token);
      const seen = async () => (await world.db.kysely.selectFrom('tokens').select('last_seen_at').where('id', '=', id).executeTakeFirstOrThrow()).last_seen_at.getTime();
      await ageSession(id, 1, ['last_seen_at']);
      const before = await seen();
      await me(access_token);
      const touched = await seen();
      expect(touched).toBeGreaterThan(before + 59 * 60_000);
      for (let i = 0; i < 3; i++) await me(access_token);
      expect(await seen()).toBe(touched);
    });

    it('the sweep ends sessions past their end at its clock and says so', async () => {
      const { email, access_token: a } = await registerByEmail();
      const b = await login(email);
      const aId = await sessionIdOf(a);
      const bId = await sessionIdOf(b);
      await ageSession(aId, 1, ['last_seen_at']);
      const ended: [number[], SessionEndReason][] = [];
      let at = new Date();
      const sessions = createSessionsService({ db: world.db.kysely, dbNow: () => at, ended: (ids, reason) => ended.push([ids, reason]) });
      await sessions.sweepEnded();
      expect(ended.flat(2)).not.toContain(aId);
      // 23.5 hours on: a (seen an hour earlier) is past 24 h idle, b is not.
      at = new Date(Date.now() + 23.5 * 60 * 60_000);
      await sessions.sweepEnded();
      const endedIds = ended.flatMap(([ids]) => ids);
      expect(endedIds).toContain(aId);
      expect(endedIds).not.toContain(bId);
      expect(ended.every(([, reason]) => reason === 'expired')).toBe(true);
      expect((await me(a)).statusCode).toBe(401);
      expect((await me(b)).statusCode).toBe(200);
    });

    it("the sweep judges a session's end by the database's clock: a process whose clock runs ahead ends none early", async () => {
      // Review finding: the sweep compared with its process's clock while requests use the database's.
      const { access_token } = await registerByEmail();
      const id = await sessionIdOf(access_token);
      // 3 minutes of idle time left by the database's clock.
      await world.db.kysely
        .updateTable('tokens')
        .set({ last_seen_at: sql<Date>`now() - interval '23 hours 57 minutes'` })
        .where('id', '=', id)
        .execute();
      const ended: number[] = [];
      const ahead = () => new Date(Date.now() + 5 * 60_000);
      await createSessionsService({ db: world.db.kysely, clock: ahead, ended: (ids) => ended.push(...ids) }).sweepEnded();
      expect(ended).not.toContain(id);
      expect((await me(access_token)).statusCode).toBe(200);
    });
  });
});
