import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';

/** SHA-256 sources of the inline scripts of the built index.html (the theme script), for the CSP. */
export function inlineScriptHashes(webDist: string): string[] {
  const file = join(webDist, 'index.html');
  if (!existsSync(file)) return [];
  const html = readFileSync(file, 'utf8');
  const hashes: string[] = [];
  for (const m of html.matchAll(/<script(\s[^>]*)?>([\s\S]*?)<\/script>/gi)) {
    if (/\ssrc=/i.test(m[1] ?? '')) continue;
    hashes.push(`'sha256-${createHash('sha256').update(m[2] ?? '').digest('base64')}'`);
  }
  return hashes;
}

/**
 * The security headers of every answer, computed once at start (decision record 0027): the same
 * names and values @fastify/helmet wrote with the options of decision record 0019, which rebuilt
 * the policy on every request. Scripts from the origin only (plus the hash of index.html's inline
 * theme script), the page may be framed only by itself and Telegram Web (the mini app; no
 * X-Frame-Options, frame-ancestors decides), nosniff, a Referrer-Policy, HSTS when the public
 * origin is https. Styles allow inline: MUI (emotion) writes <style> elements at run time.
 */
export function securityHeaders(opts: { webDist: string; publicUrl: string | undefined }): Array<[string, string]> {
  const https = opts.publicUrl?.startsWith('https://') ?? false;
  const csp: Array<[string, string[]]> = [
    ['default-src', ["'self'"]],
    ['script-src', ["'self'", ...inlineScriptHashes(opts.webDist)]],
    ['style-src', ["'self'", "'unsafe-inline'"]],
    ['img-src', ["'self'", 'data:', 'blob:']],
    ['font-src', ["'self'", 'data:']],
    ['connect-src', ["'self'"]],
    ['worker-src', ["'self'"]],
    ['manifest-src', ["'self'"]],
    ['object-src', ["'none'"]],
    ['base-uri', ["'self'"]],
    ['form-action', ["'self'"]],
    ['frame-ancestors', ["'self'", 'https://web.telegram.org']],
    ...(https ? [['upgrade-insecure-requests', []] as [string, string[]]] : []),
  ];
  const headers: Array<[string, string]> = [
    ['content-security-policy', csp.map(([name, values]) => [name, ...values].join(' ')).join(';')],
    // Telegram's sign-in page is left through a redirect; its popup would need the opener.
    ['cross-origin-opener-policy', 'same-origin-allow-popups'],
    ['cross-origin-resource-policy', 'same-origin'],
    ['origin-agent-cluster', '?1'],
    ['referrer-policy', 'strict-origin-when-cross-origin'],
    ...(https ? [['strict-transport-security', `max-age=${180 * 24 * 60 * 60}`] as [string, string]] : []),
    ['x-content-type-options', 'nosniff'],
    ['x-dns-prefetch-control', 'off'],
    ['x-download-options', 'noopen'],
    ['x-permitted-cross-domain-policies', 'none'],
    ['x-xss-protection', '0'],
  ];
  return headers;
}

/** Security headers on every answer (PRODUCT.md section 8), 404s and refusals included. */
export function registerSecurityHeaders(app: FastifyInstance, opts: { webDist: string; publicUrl: string | undefined }) {
  const headers = securityHeaders(opts);
  app.addHook('onRequest', (_request, reply, done) => {
    for (const [name, value] of headers) reply.header(name, value);
    done();
  });
}
