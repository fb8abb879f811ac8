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

    it('the owner signs in after 50 wrong passwords from another address', async () => {
      const { email } = await registerByEmail();
      const attacker = nextIp();
      const statuses: number[] = [];
      for (let i = 0; i < 50; i++) {
        const res = await post('/api/login', { email, password: `wrong ${i}` }, { ip: attacker });
        statuses.push(res.statusCode);
        if (res.statusCode === 429) {
          // The message names the wait that Retry-After gives in seconds.
          const wait = Number(res.headers['retry-after']);
          expect(wait).toBeGreaterThanOrEqual(1);
          expect(wait).toBeLessThanOrEqual(60);
          expect(res.json().message).toBe(`Слишком много попыток. Попробуйте через ${wait === 60 ? '1 мин' : `${wait} с`}`);
        }
      }
      // The stranger got 5 tries at full speed and then had to wait between tries …
      expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
      expect(statuses.filter((s) => s === 401).length).toBeLessThan(10);
      // … and the owner, from their own address, is not locked out.
      const owner = await post('/api/login', { email, password: PASSWORD }, { ip: nextIp() });
      expect(owner.statusCode).toBe(200);
      expect(owner.json().user.email).toBe(email);
    });

    it('a stranger hammering one account from a shared address does not slow down another player behind it', async () => {
      const { email } = await registerByEmail();
      const other = await registerByEmail();
      const shared = nextIp();
      for (let i = 0; i < 60; i++) await post('/api/login', { email, password: `wrong ${i}` }, { ip: shared });
      // Only the tries the account's own throttle let through counted against the address (5 here, all at once).
      const signedIn = await post('/api/login', { email: other.email, password: PASSWORD }, { ip: shared });
      expect(signedIn.statusCode).toBe(200);
    });

    it('wrong passwords from one address are slowed down, never locked: the right one works once the short wait is over', async () => {
      const { email } = await registerByEmail();
      const ip = nextIp();
      for (let i = 0; i < 5; i++) expect((await post('/api/login', { email, password: `wrong ${i}` }, { ip })).statusCode).toBe(401);
      // As if the last try were this moment (its password check alone may take a loaded machine most of the second).
      const pair = `login:acct-ip:email:${email}:%`;
      await db.kysely.updateTable('rate_limits').set({ window_start: new Date() }).where('key', 'like', pair).execute();
      const waiting = await post('/api/login', { email, password: PASSWORD }, { ip });
      expect(waiting.statusCode).toBe(429);
      expect(Number(waiting.headers['retry-after'])).toBe(1);
      // The wait has passed (the last try a few seconds ago): the right password signs in.
      await db.kysely
        .updateTable('rate_limits')
        .set({ window_start: new Date(Date.now() - 5_000) })
        .where('key', 'like', pair)
        .execute();
      expect((await post('/api/login', { email, password: PASSWORD }, { ip })).statusCode).toBe(200);
    });

    it('a burst of parallel wrong passwords from one address gets no more than five tries at the password', async () => {
      const { email } = await registerByEmail();
      const ip = nextIp();
      const answers = await Promise.all(Array.from({ length: 16 }, (_, i) => post('/api/login', { email, password: `burst ${i}` }, { ip })));
      const statuses = answers.map((r) => r.statusCode);
      expect(statuses.every((s) => s === 401 || s === 429)).toBe(true);
      expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(5);
      // The owner elsewhere is untouched.
      expect((await post('/api/login', { email, password: PASSWORD })).statusCode).toBe(200);
    });

    it('one address cannot try passwords at full speed across accounts', async () => {
      const ip = nextIp();
      const statuses = [];
      for (let i = 0; i < 30; i++) statuses.push((await post('/api/login', { email: newEmail(), password: 'x' }, { ip })).statusCode);
      // As if the 30th try were this moment: the 31st comes within the first wait, however slow the machine.
      await db.kysely.updateTable('rate_limits').set({ window_start: new Date() }).where('key', '=', `login:ip:${ip}`).execute();
      statuses.push((await post('/api/login', { email: newEmail(), password: 'x' }, { ip })).statusCode);
      expect(statuses.slice(0, 30).every((s) => s === 401)).toBe(true);
      expect(statuses[30]).toBe(429);
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
