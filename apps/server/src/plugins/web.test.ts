import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../test/factories';
import { createTestApp, type TestApp } from '../../test/harness';
import { BUILT_BRAND } from '../config';

/** A build's page and manifest as vite writes them, with the built name, and the page's stale precompressed twin. */
function fakeBuild() {
  const web = mkdtempSync(join(tmpdir(), 'adena-web-'));
  mkdirSync(join(web, 'assets'));
  const page = `<!doctype html><html><head><title>${BUILT_BRAND}</title><meta property="og:site_name" content="${BUILT_BRAND}" /></head><body><div class="boot-bar">${BUILT_BRAND}</div></body></html>`;
  writeFileSync(join(web, 'index.html'), page);
  writeFileSync(join(web, 'index.html.gz'), Buffer.from('not the page'));
  writeFileSync(join(web, 'manifest.webmanifest'), JSON.stringify({ name: BUILT_BRAND, short_name: 'Адена', start_url: '/', icons: [{ src: '/icon-192.png' }] }));
  writeFileSync(join(web, 'assets', 'app-1234.js'), 'console.log(1)');
  return web;
}

const body = (res: { rawPayload: Buffer; headers: Record<string, unknown> }) => {
  const enc = res.headers['content-encoding'];
  return (enc === 'br' ? brotliDecompressSync(res.rawPayload) : enc === 'gzip' ? gunzipSync(res.rawPayload) : res.rawPayload).toString('utf8');
};

// Quotes and angle brackets to escape, and `$$` and `$&`, which a string replacement would read as patterns.
const BRAND = 'L2 "Банк" <Север> $$ $&';

describe('BRAND_NAME in what the server serves', () => {
  let web: string;
  let t: TestApp;
  let plain: TestApp;
  beforeAll(async () => {
    web = fakeBuild();
    t = await createTestApp('pglite', { env: { WEB_DIST: web, BRAND_NAME: BRAND } });
    plain = await createTestApp('pglite', { env: { WEB_DIST: web } });
  });
  afterAll(async () => {
    await t?.close();
    await plain?.close();
    rmSync(web, { recursive: true, force: true });
  });

  it('names the service in the page’s first paint and link previews, on every client route and in any encoding', async () => {
    const escaped = 'L2 &#34;Банк&#34; &#60;Север&#62; $$ $&#38;';
    for (const url of ['/', '/index.html', '/history', '/admin/requests?status=pending']) {
      for (const encoding of ['br', 'gzip, deflate', '']) {
        const res = await t.app.inject({ method: 'GET', url, headers: encoding ? { 'accept-encoding': encoding } : {} });
        expect(res.statusCode, url).toBe(200);
        expect(res.headers['content-type']).toMatch(/^text\/html/);
        expect(res.headers['cache-control']).toBe('no-cache');
        const html = body(res);
        expect(html, `${url} ${encoding}`).toContain(`<title>${escaped}</title>`);
        expect(html).toContain(`<meta property="og:site_name" content="${escaped}" />`);
        expect(html).toContain(`<div class="boot-bar">${escaped}</div>`);
        expect(html).not.toContain(BUILT_BRAND);
      }
    }
    // Assets are served from the build as before; a missing one is still a 404, never the page.
    expect((await t.app.inject({ method: 'GET', url: '/assets/app-1234.js' })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/assets/app-old.js' })).statusCode).toBe(404);
  });

  it('names an installed app after it, keeping the rest of the manifest', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/manifest.webmanifest', headers: { 'accept-encoding': 'br' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/manifest\+json/);
    expect(JSON.parse(body(res))).toEqual({ name: BRAND, short_name: BRAND, start_url: '/', icons: [{ src: '/icon-192.png' }] });
  });

  it('is the issuer an authenticator app shows and the name a passkey manager shows', async () => {
    const u = await createUser(t.db.kysely);
    const setup = await t.app.inject({ method: 'POST', url: '/api/2fa/setup', headers: u.auth, payload: {} });
    expect(setup.statusCode).toBe(200);
    expect(new URL(setup.json().otpauth_url).searchParams.get('issuer')).toBe(BRAND);
    const options = await t.app.inject({ method: 'POST', url: '/api/passkeys/register/options', headers: u.auth, payload: {} });
    expect(options.statusCode).toBe(200);
    expect(options.json().rp.name).toBe(BRAND);
  });

  it('leaves the built files as they are without it: the page from disk, its precompressed twin included', async () => {
    const page = await plain.app.inject({ method: 'GET', url: '/', headers: { 'accept-encoding': 'identity' } });
    expect(page.body).toContain(`<title>${BUILT_BRAND}</title>`);
    const twin = await plain.app.inject({ method: 'GET', url: '/', headers: { 'accept-encoding': 'gzip' } });
    expect(twin.rawPayload.toString()).toBe('not the page');
    expect(JSON.parse((await plain.app.inject({ method: 'GET', url: '/manifest.webmanifest' })).body).name).toBe(BUILT_BRAND);
    const u = await createUser(plain.db.kysely);
    const setup = await plain.app.inject({ method: 'POST', url: '/api/2fa/setup', headers: u.auth, payload: {} });
    expect(new URL(setup.json().otpauth_url).searchParams.get('issuer')).toBe(BUILT_BRAND);
  });
});
