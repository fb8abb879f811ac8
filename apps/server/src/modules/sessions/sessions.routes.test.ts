import { describe, expect, it } from 'vitest';
import { PASSWORD, useAccountsWorld } from '../../../test/accounts-app';
import { DB_KINDS } from '../../../test/harness';

describe.each(DB_KINDS)('sessions on %s', (kind) => {
  const { post, get, me, registerByEmail } = useAccountsWorld(kind);

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
});
