import type { FastifyBaseLogger, FastifyRequest } from 'fastify';

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

type Bindings = Parameters<FastifyBaseLogger['child']>[0];
type ChildLoggerOptions = Parameters<FastifyBaseLogger['child']>[1];
type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type Parent = FastifyBaseLogger & { isLevelEnabled?: (level: string) => boolean };
type Write = (...args: unknown[]) => void;

/**
 * Fastify's per-request logger (`request.log`, carrying the request id), made only when a line is
 * written at a level the logger keeps (decision record 0027, second pass): most requests write
 * none, and pino's child costs more than the rest of a small answer's hooks. A class, so that a
 * request costs one small object and no closures.
 */
class LazyChild {
  #real: FastifyBaseLogger | undefined;
  constructor(
    private readonly parent: Parent,
    private readonly bindings: Bindings,
  ) {}
  get #logger(): FastifyBaseLogger {
    this.#real ??= this.parent.child(this.bindings);
    return this.#real;
  }
  #write(level: Level, args: unknown[]) {
    if (this.parent.isLevelEnabled && !this.parent.isLevelEnabled(level)) return;
    (this.#logger[level] as Write)(...args);
  }
  get level() {
    return this.#real?.level ?? this.parent.level;
  }
  set level(value: string) {
    this.#logger.level = value;
  }
  fatal(...args: unknown[]) {
    this.#write('fatal', args);
  }
  error(...args: unknown[]) {
    this.#write('error', args);
  }
  warn(...args: unknown[]) {
    this.#write('warn', args);
  }
  info(...args: unknown[]) {
    this.#write('info', args);
  }
  debug(...args: unknown[]) {
    this.#write('debug', args);
  }
  trace(...args: unknown[]) {
    this.#write('trace', args);
  }
  silent() {}
  child(bindings: Bindings, opts?: ChildLoggerOptions) {
    return this.#logger.child(bindings, opts);
  }
}

export function lazyChildLogger(logger: FastifyBaseLogger, bindings: Bindings, opts?: ChildLoggerOptions): FastifyBaseLogger {
  if (opts && Object.keys(opts).length > 0) return logger.child(bindings, opts);
  return new LazyChild(logger, bindings) as unknown as FastifyBaseLogger;
}
