import type { FastifyRequest } from 'fastify';

/**
 * Whether a request is a call of the API (`/api/…`). The router decodes %-escapes before it matches,
 * so `/%61pi/user` is served by `/api/user` although its URL does not start with `/api/`: the matched
 * route decides then. The raw URL answers first (no allocation on the usual path); the route pattern
 * (a getter that builds an object) only for the rest.
 */
export function apiPathOf(request: FastifyRequest): string | null {
  const url = request.url;
  if (url.startsWith('/api/')) return url;
  const route = request.routeOptions.url;
  return route?.startsWith('/api/') ? route : null;
}
