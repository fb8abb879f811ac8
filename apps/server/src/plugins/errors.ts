import { CONTROL_CHARS_MESSAGE, errorMessage, zodIssuesToErrors } from '@adena/contract';
import type { FastifyError, FastifyInstance } from 'fastify';
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
      if (err.options.retryAfter !== undefined) reply.header('Retry-After', String(err.options.retryAfter));
      return reply.status(err.status).send(err.toBody());
    }
    if (err.statusCode === 429) {
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

/** PostgreSQL's refusal of a text value: a NUL byte (22021) or a character the encoding lacks (22P05). */
const isUnstorableText = (err: unknown) => {
  const code = (err as { code?: unknown }).code;
  return code === '22021' || code === '22P05';
};
