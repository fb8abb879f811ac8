import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { connect } from 'node:net';
import { registerErrorHandling, russianClientError } from './errors';

/** A route that fails the way the database does when a text value cannot be stored. */
async function appFailingWith(code: string, message = 'invalid byte sequence for encoding "UTF8": 0x00') {
  const app = Fastify({ logger: false });
  registerErrorHandling(app);
  app.get('/x', async () => {
    throw Object.assign(new Error(message), { code });
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
    // A lone surrogate in a json value (an audit row's details) is the same; other 22P02s are not.
    expect((await (await appFailingWith('22P02', 'invalid input syntax for type json')).inject({ method: 'GET', url: '/x' })).statusCode).toBe(422);
    expect((await (await appFailingWith('22P02', 'invalid input syntax for type integer: "x"')).inject({ method: 'GET', url: '/x' })).statusCode).toBe(500);
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

  it('what Node refuses before there is a request (headers over 16 KB, a NUL in a header) is answered in Russian, not Fastify\u2019s English', async () => {
    const app = Fastify({ logger: false, clientErrorHandler: russianClientError });
    app.get('/x', async () => 'ok');
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as { port: number };
    const raw = (request: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => socket.end(request));
        let answer = '';
        socket.on('data', (d) => (answer += d));
        socket.on('close', () => resolve(answer));
        socket.on('error', reject);
      });
    try {
      const big = await raw(`GET /x HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer ${'x'.repeat(20_000)}\r\n\r\n`);
      expect(big).toMatch(/^HTTP\/1\.1 431 /);
      expect(big).toContain('{"message":"Слишком большой запрос"}');
      const nul = await raw('GET /x HTTP/1.1\r\nHost: a\r\nX-Bad: a\u0000b\r\n\r\n');
      expect(nul).toMatch(/^HTTP\/1\.1 400 /);
      expect(nul).toContain('{"message":"Некорректный формат запроса"}');
      expect(nul).not.toContain('Client Error');
    } finally {
      await app.close();
    }
  });
});
