import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../test/factories';
import { createTestApp, createTestDb, DB_KINDS, type TestApp, type TestDb } from '../../test/harness';
import { scrubUrl } from './log-redaction';
import { inlineScriptHashes } from './security';

const callKeys = async (db: TestDb) =>
  (await db.kysely.selectFrom('rate_limits').select('key').where('key', 'like', 'call:ip:%').execute()).map((r) => r.key);

describe.each(DB_KINDS)('security headers, client addresses and call limits on %s', (kind) => {
  let db: TestDb;
  let a: TestApp;
  let b: TestApp;
  let web: string;
  beforeAll(async () => {
    db = await createTestDb(kind);
    web = mkdtempSync(join(tmpdir(), 'adena-web-'));
    mkdirSync(join(web, 'assets'));
    writeFileSync(join(web, 'index.html'), '<!doctype html><html><head><script>var t=1;</script><script type="module" src="/assets/a.js"></script></head><body></body></html>');
    // Two processes on one database, 1% of the normal limits: 6 calls a minute per address, 3 per token.
    const env = { RATE_LIMIT_SCALE: '0.01', TRUST_PROXY: '127.0.0.1,10.9.0.0/16', PUBLIC_URL: 'https://wallet.example', WEB_DIST: web };
    a = await createTestApp(kind, { db, env });
    b = await createTestApp(kind, { db, env, seed: false });
  });
  afterAll(async () => {
    await b.close();
    await a.close();
    await db.close();
  });

  it('every answer carries the CSP, nosniff, a Referrer-Policy and HSTS, and may be framed by Telegram Web', async () => {
    for (const url of ['/', '/api/gamesservers', '/%61pi/gamesservers', '/api/user', '/no/such/page', '/api/no/such/call', '/api/docs']) {
      const res = await a.app.inject({ method: 'GET', url, remoteAddress: '192.0.2.10' });
      const csp = String(res.headers['content-security-policy']);
      const data = /^\/(api|%61pi)\//.test(url) && url !== '/api/docs';
      // Pages: scripts from the origin and the inline theme script's hash; data answers load and run nothing.
      expect(csp).toContain(data ? "default-src 'none'" : "script-src 'self' 'sha256-");
      if (!data) expect(res.headers['cross-origin-opener-policy']).toBe('same-origin-allow-popups');
      expect(csp).toContain("frame-ancestors 'self' https://web.telegram.org");
      expect(csp).not.toContain('unsafe-eval');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['referrer-policy']).toBe('strict-origin-when-cross-origin');
      expect(String(res.headers['strict-transport-security'])).toMatch(/^max-age=\d+/);
      expect(res.headers['x-frame-options']).toBeUndefined();
      // Data answers (keys, secrets, codes, balances) are never stored by a cache.
      if (data) expect(res.headers['cache-control']).toBe('no-store');
    }
    // The hash is the inline theme script's own.
    expect(inlineScriptHashes(web)).toEqual([`'sha256-${createHash('sha256').update('var t=1;').digest('base64')}'`]);
  });

  it('a spoofed X-Forwarded-For from an untrusted peer changes nothing; a trusted proxy is believed', async () => {
    await a.app.inject({ method: 'GET', url: '/api/gamesservers', remoteAddress: '203.0.113.7', headers: { 'x-forwarded-for': '198.51.100.99' } });
    await a.app.inject({ method: 'GET', url: '/api/gamesservers', remoteAddress: '10.9.1.1', headers: { 'x-forwarded-for': '198.51.100.42' } });
    const keys = await callKeys(db);
    expect(keys).toContain('call:ip:203.0.113.7');
    expect(keys).not.toContain('call:ip:198.51.100.99');
    expect(keys).toContain('call:ip:198.51.100.42');
    expect(keys).not.toContain('call:ip:10.9.1.1');
  });

  it('the per-address limit holds across two processes: Russian 429 with Retry-After', async () => {
    const ip = '192.0.2.77';
    for (let i = 0; i < 6; i++) expect((await a.app.inject({ method: 'GET', url: '/api/gamesservers', remoteAddress: ip })).statusCode).toBe(200);
    const refused = await b.app.inject({ method: 'GET', url: '/api/gamesservers', remoteAddress: ip });
    expect(refused.statusCode).toBe(429);
    expect(refused.json().message).toMatch(/^Слишком много запросов. Повторите через (\d+ с|1 мин)$/);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    // The same call with an escaped path (the router decodes it) is counted too.
    const ip2 = '192.0.2.79';
    for (let i = 0; i < 6; i++) expect((await a.app.inject({ method: 'GET', url: i % 2 ? '/%61pi/gamesservers' : '/api/gamesservers', remoteAddress: ip2 })).statusCode).toBe(200);
    expect((await b.app.inject({ method: 'GET', url: '/%61pi/gamesservers', remoteAddress: ip2 })).statusCode).toBe(429);
    // Another address is not affected.
    expect((await b.app.inject({ method: 'GET', url: '/api/gamesservers', remoteAddress: '192.0.2.78' })).statusCode).toBe(200);
  });

  it('the per-token limit holds whatever address the calls come from', async () => {
    const u = await createUser(db.kysely);
    for (let i = 0; i < 3; i++) {
      const res = await (i % 2 ? b : a).app.inject({ method: 'GET', url: '/api/user', headers: u.auth, remoteAddress: `192.0.2.${100 + i}` });
      expect(res.statusCode).toBe(200);
    }
    const refused = await a.app.inject({ method: 'GET', url: '/api/user', headers: u.auth, remoteAddress: '192.0.2.120' });
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBeDefined();
  });
});

describe('TRUST_PROXY as a hop count', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp('pglite', { env: { TRUST_PROXY: '1' } });
  });
  afterAll(async () => t.close());

  it('takes the address the one proxy saw, not what the client wrote before it', async () => {
    await t.app.inject({ method: 'GET', url: '/api/gamesservers', remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': '6.6.6.6, 198.51.100.5' } });
    const keys = await callKeys(t.db);
    expect(keys).toContain('call:ip:198.51.100.5');
    expect(keys).not.toContain('call:ip:6.6.6.6');
  });
});

describe('log scrubbing', () => {
  it("replaces secrets in a URL's query, keeps the rest", () => {
    expect(scrubUrl('/auth/discord/callback?code=abc&state=def&page=2')).toBe('/auth/discord/callback?code=[redacted]&state=[redacted]&page=2');
    expect(scrubUrl('/api/x')).toBe('/api/x');
  });
});
