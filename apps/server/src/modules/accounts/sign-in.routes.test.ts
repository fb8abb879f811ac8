import { beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD, nextIp, newEmail, newPhone, type AccountsWorld as World, useAccountsWorld } from '../../../test/accounts-app';
import { DB_KINDS } from '../../../test/harness';

describe.each(DB_KINDS)('sign-in on %s', (kind) => {
  const { world, post, registerByEmail, registerByPhone } = useAccountsWorld(kind);
  let db: World['db'];
  beforeAll(() => {
    ({ db } = world);
  });

  describe('sign-in', () => {
    it('signs in by email and by phone, each time with a new token', async () => {
      const { email, access_token: first } = await registerByEmail();
      const res = await post('/api/login', { email: email.toUpperCase(), password: PASSWORD });
      expect(res.statusCode).toBe(200);
      expect(res.json().access_token).not.toBe(first);
      expect(res.json().user.email).toBe(email);
      const { phone } = await registerByPhone();
      const byPhone = await post('/api/phone_login', { phone, password: PASSWORD });
      expect(byPhone.statusCode).toBe(200);
      expect(byPhone.json().user.phone).toBe(phone);
    });

    it('a wrong password and an unknown login answer alike', async () => {
      const { email } = await registerByEmail();
      const wrong = await post('/api/login', { email, password: 'wrong password' });
      const unknown = await post('/api/login', { email: newEmail(), password: 'wrong password' });
      expect(wrong.statusCode).toBe(401);
      expect(unknown.statusCode).toBe(401);
      expect(wrong.json()).toEqual(unknown.json());
      expect(wrong.json()).toEqual({ message: 'Неверный логин или пароль' });
      const phoneUnknown = await post('/api/phone_login', { phone: newPhone(), password: 'x' });
      expect(phoneUnknown.json()).toEqual(wrong.json());
    });

    it('ten failed sign-ins lock the account for a while, from any address, even with the right password', async () => {
      const { email } = await registerByEmail();
      for (let i = 0; i < 10; i++) expect((await post('/api/login', { email, password: `wrong ${i}` })).statusCode).toBe(401);
      const locked = await post('/api/login', { email, password: PASSWORD });
      expect(locked.statusCode).toBe(429);
      expect(locked.json().message).toBe('Слишком много попыток. Попробуйте позже');
      const retryAfter = Number(locked.headers['retry-after']);
      expect(retryAfter).toBeGreaterThan(14 * 60);
      expect(retryAfter).toBeLessThanOrEqual(15 * 60);
      // An unknown login is limited the same way, so the lock reveals nothing either.
      const ghost = newEmail();
      for (let i = 0; i < 10; i++) await post('/api/login', { email: ghost, password: 'x' });
      expect((await post('/api/login', { email: ghost, password: 'x' })).statusCode).toBe(429);
      // When the window has passed, the right password works again.
      await db.kysely.updateTable('rate_limits').set({ window_start: new Date(Date.now() - 16 * 60_000) }).where('key', '=', `login:acct:email:${email}`).execute();
      expect((await post('/api/login', { email, password: PASSWORD })).statusCode).toBe(200);
    });

    it('a burst of parallel wrong passwords gets no more than ten tries', async () => {
      const { email } = await registerByEmail();
      const answers = await Promise.all(Array.from({ length: 16 }, (_, i) => post('/api/login', { email, password: `burst ${i}` })));
      const statuses = answers.map((r) => r.statusCode);
      expect(statuses.filter((s) => s === 401).length).toBe(10);
      expect(statuses.filter((s) => s === 429).length).toBe(6);
    });

    it('one address cannot try passwords endlessly across accounts', async () => {
      const ip = nextIp();
      const statuses = [];
      for (let i = 0; i < 51; i++) statuses.push((await post('/api/login', { email: newEmail(), password: 'x' }, { ip })).statusCode);
      expect(statuses.slice(0, 50).every((s) => s === 401)).toBe(true);
      expect(statuses[50]).toBe(429);
    });

    it('a blocked player is refused sign-in with 403 and the Russian message', async () => {
      const { email, user } = await registerByEmail();
      await db.kysely.updateTable('users').set({ blocked_at: new Date() }).where('id', '=', user.id).execute();
      const res = await post('/api/login', { email, password: PASSWORD });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ message: 'Ваш аккаунт заблокирован. Обратитесь в поддержку' });
      // A wrong password still gets the plain 401: the block is shown only to the owner.
      expect((await post('/api/login', { email, password: 'wrong password' })).statusCode).toBe(401);
    });
  });
});
