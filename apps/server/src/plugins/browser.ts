import type { FastifyReply, FastifyRequest } from 'fastify';
import { hashToken, newToken } from '../lib/tokens';

/**
 * The browser's own random key, in an HttpOnly cookie on `/api`: Discord's state is bound to it, and
 * the browsers a user signed in from are remembered by its hash (a reset from one of them is not held
 * back by a stranger's requests for the same address; README "Security"). Browsers keep a cookie at
 * most 400 days.
 */
const BROWSER_COOKIE = 'aw_browser';
const MAX_AGE_S = 400 * 86_400;
const KEY = new RegExp(`(?:^|;\\s*)${BROWSER_COOKIE}=([A-Za-z0-9_-]{20,100})(?:;|$)`);
/** A key given to a browser in this very answer (its request had none). */
const issued = new WeakMap<FastifyRequest, string>();

/** The browser's key from its cookie, or the one this answer gives it, if any. */
export function browserKeyOf(request: FastifyRequest): string | undefined {
  const cookie = request.headers.cookie;
  return (cookie ? KEY.exec(cookie)?.[1] : undefined) ?? issued.get(request);
}

/** The hash the database keeps of the browser's key. */
export function browserHashOf(request: FastifyRequest): string | null {
  const key = browserKeyOf(request);
  return key ? hashToken(key) : null;
}

/** The browser's key; a browser without one is given one with this answer. */
export function ensureBrowserKey(request: FastifyRequest, reply: FastifyReply): string {
  const known = browserKeyOf(request);
  if (known) return known;
  const key = newToken();
  issued.set(request, key);
  reply.header('set-cookie', `${BROWSER_COOKIE}=${key}; Path=/api; Max-Age=${MAX_AGE_S}; HttpOnly; SameSite=Lax${request.protocol === 'https' ? '; Secure' : ''}`);
  return key;
}
