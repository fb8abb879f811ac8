// The Fastify instance every process serves with: request ids, the proxy setting, the query and body parsers,
// the contract's validation and serialization. The composition of services and routes is app.ts's.
import { randomUUID } from 'node:crypto';
import { parse as parseQuery } from 'node:querystring';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import type { Config } from './config';
import { lazyChildLogger, loggerOptions } from './plugins/log-redaction';
import { createSerializerCompiler } from './plugins/serializer';
import { frameworkErrorHandler, russianClientError } from './plugins/errors';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/**
 * A made request id: UUID-shaped, the first 20 hex digits random per process and the last 12 a
 * counter, so ids never repeat across processes and restarts, at a fraction of a random UUID's
 * cost per request (decision record 0027).
 */
const REQUEST_ID_PREFIX = randomUUID().slice(0, 24);
let requestCount = 0;
const nextRequestId = () => REQUEST_ID_PREFIX + (++requestCount).toString(16).padStart(12, '0');

/**
 * The query string as Node parses it, less its empty parameters: PRODUCT.md writes optional filters as
 * `?status=&gamesserver_id=&page=`, and a client sending them so means "no filter", not an empty one (it
 * answered 422 on every list).
 */
function queryWithoutEmpty(text: string) {
  const query = parseQuery(text);
  for (const key of Object.keys(query)) if (query[key] === '') delete query[key];
  return query;
}

/** TRUST_PROXY: off, a hop count (the nearest n peers are proxies), or the proxies' addresses. */
function trustProxyOption(setting: Config['TRUST_PROXY']) {
  if (typeof setting === 'number') return (_addr: string, hop: number) => hop < setting;
  return setting;
}

/** `securityHeaders`: also set on the answers Fastify writes itself for a path no route can take. */
export function createHttpApp(config: Config, securityHeaders: (request: FastifyRequest, reply: FastifyReply) => void) {
  const app = Fastify({
    logger: config.LOG_LEVEL === 'silent' ? false : loggerOptions(config.LOG_LEVEL),
    ...(config.LOG_LEVEL === 'silent' ? {} : { childLoggerFactory: lazyChildLogger }),
    trustProxy: trustProxyOption(config.TRUST_PROXY),
    bodyLimit: 64 * 1024,
    routerOptions: { querystringParser: queryWithoutEmpty },
    // On close, a request that arrives on a connection still open is served like any other and its
    // answer ends the connection (plugins/prompt-close.ts); no connection is cut with a request in it.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    // X-Request-Id: the client's or the balancer's when sane, else a new one; every log line of
    // the request carries it as reqId and the answer returns it.
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : nextRequestId();
    },
    clientErrorHandler: russianClientError,
    frameworkErrors: frameworkErrorHandler((request, reply) => {
      reply.header('x-request-id', request.id);
      securityHeaders(request, reply);
    }),
  }).withTypeProvider<ZodTypeProvider>();
  // Fastify hands a request without a body to the validator as null; the contract's optional bodies
  // (`z.object(…).optional()`) mean "may be left out", so a POST with no body at all passes as one.
  app.setValidatorCompiler<z.ZodType>((route) => {
    const validate = validatorCompiler(route);
    return route.httpPart === 'body' ? (data: unknown) => validate(data === null ? undefined : data) : validate;
  });
  app.setSerializerCompiler(createSerializerCompiler({ check: config.NODE_ENV !== 'production' }));
  // A POST with `Content-Type: application/json` and no body (a client that always sends the header) is a
  // call without a body, as without the header: Fastify's parser refused it as malformed JSON, so such a
  // client could not ask for a realtime token or end its other sessions (review 2026-11-27). Any other body
  // goes to Fastify's own parser, with its guards against prototype poisoning.
  // A body that is no UTF-8 is refused (422 «Некорректный формат запроса»), as malformed JSON is: decoded
  // leniently, its bad bytes became U+FFFD and were stored in names (fuzz review 15).
  const jsonParser = app.getDefaultJsonParser('error', 'error');
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    let text: string;
    try {
      text = utf8.decode(body as Buffer);
    } catch {
      return done(Object.assign(new Error('the body is not UTF-8'), { statusCode: 400 }), undefined);
    }
    if (text === '') return done(null, undefined);
    void jsonParser(request, text, done);
  });

  return app;
}
