import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { lazyChildLogger, loggerOptions } from './log-redaction';

/** An app whose log lines are collected, with the per-request logger the server uses. */
async function appWithLog(level: string) {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      done();
    },
  });
  const app = Fastify({ logger: { ...loggerOptions(level), stream }, childLoggerFactory: lazyChildLogger });
  app.get('/quiet', async (request) => {
    request.log.info('kept back');
    return { ok: true };
  });
  app.get('/loud', async (request) => {
    request.log.warn({ detail: 1 }, 'written');
    request.log.child({ part: 'nested' }).error('nested line');
    return { ok: true };
  });
  return { app, lines };
}

describe('the per-request logger', () => {
  it('writes a request’s lines with its request id, and nothing below the level', async () => {
    const { app, lines } = await appWithLog('warn');
    const quiet = await app.inject({ url: '/quiet' });
    await app.inject({ url: '/loud' });
    expect(lines.map((l) => l.msg)).toEqual(['written', 'nested line']);
    expect(lines[0]).toMatchObject({ reqId: expect.stringMatching(/^req-/), detail: 1, level: 40 });
    expect(lines[1]).toMatchObject({ reqId: lines[0]?.reqId, part: 'nested', level: 50 });
    expect(quiet.statusCode).toBe(200);
    await app.close();
  });

  it('at info, writes Fastify’s request lines with the id of each request', async () => {
    const { app, lines } = await appWithLog('info');
    await app.inject({ url: '/quiet' });
    expect(lines.map((l) => l.msg)).toEqual(['incoming request', 'kept back', 'request completed']);
    expect(new Set(lines.map((l) => l.reqId))).toEqual(new Set([expect.stringMatching(/^req-/)]));
    await app.close();
  });
});
