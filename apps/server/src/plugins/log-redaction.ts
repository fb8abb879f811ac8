import type { FastifyRequest } from 'fastify';

/** Query parameters whose values never reach a log: codes, states, tokens, gift codes, signatures. */
const SECRET_PARAM = /code|state|token|sert|hash|secret|key|signature|init|auth|password/i;

/** A URL as the logs show it: the value of every query parameter that could carry a secret replaced. */
export function scrubUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = new URLSearchParams(url.slice(q + 1));
  const out: string[] = [];
  for (const [k, v] of params) out.push(`${encodeURIComponent(k)}=${SECRET_PARAM.test(k) ? '[redacted]' : encodeURIComponent(v)}`);
  return `${url.slice(0, q)}?${out.join('&')}`;
}

/**
 * pino's options for the server's logger (PRODUCT.md section 8: logs never hold tokens, one-time
 * codes, gift codes or webhook secrets): request URLs scrubbed, and the paths that could carry one
 * in a logged object redacted.
 */
export function loggerOptions(level: string) {
  return {
    level,
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'req.headers["x-telegram-bot-api-secret-token"]',
        'headers.authorization',
        'headers.cookie',
        'headers["x-telegram-bot-api-secret-token"]',
        '*.password',
        '*.sert',
        '*.token',
        '*.access_token',
        '*.secret_token',
        '*.init_data',
      ],
      censor: '[redacted]',
    },
    serializers: {
      req(request: FastifyRequest) {
        return { method: request.method, url: scrubUrl(request.url), host: request.host, remoteAddress: request.ip };
      },
    },
  };
}
