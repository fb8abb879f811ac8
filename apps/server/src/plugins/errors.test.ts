import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { registerErrorHandling } from './errors';

/** A route that fails the way the database does when a text value cannot be stored. */
async function appFailingWith(code: string) {
  const app = Fastify({ logger: false });
  registerErrorHandling(app);
  app.get('/x', async () => {
    throw Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { code });
  });
  return app;
}

describe('error answers', () => {
  it('a text PostgreSQL cannot store (NUL, a character its encoding lacks) is the caller’s 422, not a 500', async () => {
    for (const code of ['22021', '22P05']) {
      const res = await (await appFailingWith(code)).inject({ method: 'GET', url: '/x' });
      expect(res.statusCode, code).toBe(422);
      expect(res.json()).toEqual({ message: expect.any(String), errors: { _: ['Уберите невидимые и управляющие символы'] } });
    }
  });

  it('a statement cancelled by the pool\u2019s time limit, or a transaction PostgreSQL rolled back to break a deadlock, answers 503 with Retry-After (nothing moved, a retry is safe)', async () => {
    for (const code of ['57014', '40P01']) {
      const res = await (await appFailingWith(code)).inject({ method: 'GET', url: '/x' });
      expect(res.statusCode, code).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.json().message).toMatch(/[а-я]/);
    }
  });

  it('any other database failure stays a Russian 500 without details', async () => {
    const res = await (await appFailingWith('23505')).inject({ method: 'GET', url: '/x' });
    expect(res.statusCode).toBe(500);
    expect(res.body).not.toContain('UTF8');
  });
});
