import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fastifyHelmet from '@fastify/helmet';
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
 * Security headers on every answer (PRODUCT.md section 8): scripts from the origin only (plus the
 * hash of index.html's inline theme script, computed at start from the built file), the page may be
 * framed only by itself and Telegram Web (the mini app), nosniff, a Referrer-Policy, HSTS when the
 * public origin is https. Styles allow inline: MUI (emotion) writes <style> elements at run time.
 */
export async function registerSecurityHeaders(app: FastifyInstance, opts: { webDist: string; publicUrl: string | undefined }) {
  const https = opts.publicUrl?.startsWith('https://') ?? false;
  await app.register(fastifyHelmet, {
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
}
