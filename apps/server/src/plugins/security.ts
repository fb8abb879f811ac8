import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import helmet from 'helmet';
import { apiPathOf } from './api-path';

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
 * The security headers of every answer, computed once at start (decision record 0027) by helmet
 * itself with the options of decision record 0019: @fastify/helmet ran helmet's middleware, which
 * rebuilt the policy string, on every request. Scripts from the origin only (plus the hash of
 * index.html's inline theme script), the page may be framed only by itself and Telegram Web (the
 * mini app; no X-Frame-Options, frame-ancestors decides), nosniff, a Referrer-Policy, HSTS when the
 * public origin is https. Styles allow inline: MUI (emotion) writes <style> elements at run time.
 */
export function securityHeaders(opts: { webDist: string; publicUrl: string | undefined }): Array<[string, string]> {
  const https = opts.publicUrl?.startsWith('https://') ?? false;
  const middleware = helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'", ...inlineScriptHashes(opts.webDist)],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:', 'blob:'],
        fontSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        workerSrc: ["'self'"],
        manifestSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'self'", 'https://web.telegram.org'],
        ...(https ? { upgradeInsecureRequests: [] } : {}),
      },
    },
    // The mini app runs inside Telegram Web's iframe: frame-ancestors decides, not X-Frame-Options.
    frameguard: false,
    // Telegram's sign-in page is left through a redirect; its popup would need the opener.
    crossOriginOpenerPolicy: { policy: 'same-origin-allow-popups' },
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
    strictTransportSecurity: https ? { maxAge: 180 * 24 * 60 * 60, includeSubDomains: false } : false,
  });
  // helmet is connect-style: it sets headers on a response and calls next. None of its values
  // depends on the request with these options (no nonces), so one run gives every answer's headers.
  const headers: Array<[string, string]> = [];
  const response = {
    setHeader: (name: string, value: string) => void headers.push([name.toLowerCase(), String(value)]),
    removeHeader: () => undefined,
  };
  let done = false;
  middleware({} as IncomingMessage, response as unknown as ServerResponse, (err?: unknown) => {
    if (err) throw err;
    done = true;
  });
  if (!done) throw new Error('helmet did not finish synchronously');
  return headers;
}

/**
 * Headers a JSON answer of /api goes without (decision record 0027): those only a document (a page
 * in a browsing context) obeys, and the resource policies that guard what a browser loads
 * cross-origin with its cookies: /api authenticates by a bearer header that such a load never
 * carries, so its answers to one are what anyone may read. Each header costs the server and every
 * client work on every call.
 */
const PAGE_ONLY = new Set([
  'cross-origin-opener-policy',
  'origin-agent-cluster',
  'x-dns-prefetch-control',
  'x-download-options',
  'x-xss-protection',
  'cross-origin-resource-policy',
  'x-permitted-cross-domain-policies',
]);

/**
 * The policy of an answer that is data, not a page: it may load nothing and run nothing (stricter than
 * scripts from the origin only), and be framed only where the page may (PRODUCT.md section 8).
 */
export const DATA_CSP = "default-src 'none';frame-ancestors 'self' https://web.telegram.org";

/** /api answers are data, except the API's own documentation pages (Swagger UI runs scripts). */
const isData = (request: FastifyRequest) => {
  const path = apiPathOf(request);
  return path !== null && !path.startsWith('/api/docs');
};

/**
 * Security headers on every answer (PRODUCT.md section 8), 404s and refusals included: a CSP,
 * nosniff, the Referrer-Policy and HSTS go with every answer; pages get the page's CSP and the
 * page-only headers, data answers the short data CSP. Returns what the app's one onRequest hook
 * calls (decision record 0027: one hook, not one per concern).
 */
export function securityHeadersHook(opts: { webDist: string; publicUrl: string | undefined }) {
  const headers = securityHeaders(opts);
  // Data answers are not stored by any cache (a route may set its own): API keys, webhook secrets, gift codes and
  // balances go in them, and a shared or browser cache would keep them past the session.
  const dataHeaders = headers
    .filter(([name]) => !PAGE_ONLY.has(name))
    .map(([name, value]): [string, string] => (name === 'content-security-policy' ? [name, DATA_CSP] : [name, value]))
    .concat([['cache-control', 'no-store']]);
  return (request: FastifyRequest, reply: FastifyReply) => {
    for (const [name, value] of isData(request) ? dataHeaders : headers) reply.header(name, value);
  };
}
