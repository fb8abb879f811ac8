import { CONTROL_CHARS_MESSAGE, errorMessage, zodIssuesToErrors } from '@adena/contract';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { isDatabaseUnavailable } from '../db/unavailable';
import { AppError } from '../lib/app-error';

/**
 * One place turns every failure into PRODUCT.md's bodies: schema failures into 422 with
 * Russian `errors` per field, AppErrors into their status, and anything else into a generic
 * Russian 500 that is logged with the request id and never shows a stack.
 */
export function registerErrorHandling(app: FastifyInstance) {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (hasZodFastifySchemaValidationErrors(err)) {
      const issues = err.validation.map((v) => ({
        path: [...(v.instancePath ? v.instancePath.split('/').filter(Boolean) : [])],
        message: v.message ?? errorMessage('VALIDATION'),
      }));
      return reply.status(422).send({ message: errorMessage('VALIDATION'), errors: zodIssuesToErrors(issues) });
    }
    if (err instanceof AppError) {
      if (err.status >= 500) request.log.error({ err, details: err.options.details }, 'app error');
      // Every 429 says when to try again (PRODUCT.md section 3), 1 s when its thrower names no wait.
      const retryAfter = err.options.retryAfter ?? (err.status === 429 ? 1 : undefined);
      if (retryAfter !== undefined) reply.header('Retry-After', String(retryAfter));
      return reply.status(err.status).send(err.toBody());
    }
    if (err.statusCode === 429) {
      if (!reply.hasHeader('Retry-After')) reply.header('Retry-After', '1');
      return reply.status(429).send({ message: errorMessage('TOO_MANY_ATTEMPTS') });
    }
    if (isResponseSerializationError(err)) {
      request.log.error({ err }, 'response does not match the contract');
      return reply.status(500).send({ message: errorMessage('INTERNAL') });
    }
    if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
      // Fastify's own client errors: malformed JSON, wrong content type, body too large.
      const status = err.statusCode === 400 ? 422 : err.statusCode;
      return reply.status(status).send({
        message: errorMessage('VALIDATION'),
        errors: { _: [status === 413 ? 'Слишком большой запрос' : 'Некорректный формат запроса'] },
      });
    }
    if (isDatabaseUnavailable(err)) {
      // The database is restarting or unreachable: the process stays up and the client retries
      // (PRODUCT.md section 9; money calls carry an Idempotency-Key, so nothing moves twice).
      // A statement cancelled at the pool's time limit (57014) is a runaway query, not an outage:
      // logged as an error with its route so that it is found, answered the same way.
      if (err.code === '57014') request.log.error({ err: err.message, code: err.code, route: request.routeOptions.url }, 'statement over the time limit');
      else request.log.warn({ err: err.message, code: err.code }, 'database unavailable');
      return reply.status(503).header('Retry-After', '5').send({ message: errorMessage('UNAVAILABLE') });
    }
    if (isUnstorableText(err)) {
      // A NUL or a character PostgreSQL cannot store in text that slipped past a field's schema:
      // the caller's input, not our failure.
      return reply.status(422).send({ message: errorMessage('VALIDATION'), errors: { _: [CONTROL_CHARS_MESSAGE] } });
    }
    request.log.error({ err }, 'unexpected error');
    return reply.status(500).send({ message: errorMessage('INTERNAL') });
  });
}

/**
 * Fastify's `frameworkErrors`: a path that is no valid URL component (`/api/x/%zz`) or a path
 * parameter over the router's length limit names no resource, so it is the contract's 404 in
 * Russian (not Fastify's English 400/414 echoing the path). These answers skip the onRequest hook,
 * so `headers` (the request id and the security headers) are set here.
 */
export function frameworkErrorHandler(headers: (request: FastifyRequest, reply: FastifyReply) => void) {
  return (_err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    headers(request, reply);
    void reply.status(404).send({ message: errorMessage('NOT_FOUND') });
  };
}

/**
 * PostgreSQL's refusal of a text value: a NUL byte (22021), a character the encoding lacks (22P05), or
 * a lone surrogate in a json value (22P02 "invalid input syntax for type json", e.g. an audit row).
 */
const isUnstorableText = (err: unknown) => {
  const { code, message } = err as { code?: unknown; message?: unknown };
  return code === '22021' || code === '22P05' || (code === '22P02' && typeof message === 'string' && message.includes('type json'));
};

/**
 * Fastify's `clientErrorHandler`, for what Node's parser refuses before there is a request (a header
 * over 16 KB, a NUL in a header, a bad Content-Length): Fastify's answer with a Russian body. No request
 * id or hook runs here; the connection is closed, as Node does.
 */
export function russianClientError(err: NodeJS.ErrnoException, socket: Duplex) {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message] =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'Запрос не пришёл целиком вовремя']
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Слишком большой запрос']
        : [400, 'Некорректный формат запроса'];
  const body = JSON.stringify({ message });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}
