import { errorMessage } from '@adena/contract';

export const ERROR_STATUS = {
  VALIDATION: 422,
  UNAUTHENTICATED: 401,
  INVALID_CREDENTIALS: 401,
  FORBIDDEN: 403,
  USER_BLOCKED: 403,
  NOT_FOUND: 404,
  INSUFFICIENT_BALANCE: 409,
  CODE_NOT_ACTIVE: 409,
  REQUEST_NOT_PENDING: 409,
  CONFLICT: 409,
  LIMIT_EXCEEDED: 422,
  TOO_MANY_ATTEMPTS: 429,
  INTERNAL: 500,
} as const;

export type AppErrorCode = keyof typeof ERROR_STATUS;

export interface AppErrorOptions {
  /** Russian text for the user; the catalogue's text for the code when omitted. */
  message?: string;
  /** Per-field Russian messages, as in a 422 body. */
  errors?: Record<string, string[]>;
  /** Extra fields of the answer body (e.g. low_cap, status). */
  body?: Record<string, unknown>;
  /** Seconds, for 429. */
  retryAfter?: number;
  /** For the log only; never sent. */
  details?: unknown;
}

export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: AppErrorCode,
    readonly options: AppErrorOptions = {},
  ) {
    super(options.message ?? errorMessage(code));
    this.status = ERROR_STATUS[code];
  }

  /**
   * `errors` is in every 409 too (PRODUCT.md section 3: "409 with message, errors"), empty when the
   * conflict names no field: a client reading `errors` finds an object, never nothing.
   */
  toBody(): Record<string, unknown> {
    const errors = this.options.errors ?? (this.status === 409 ? {} : undefined);
    return {
      message: this.message,
      ...(errors ? { errors } : {}),
      ...this.options.body,
    };
  }
}

/** A 422 naming one field. */
export const fieldError = (field: string, message: string) =>
  new AppError('VALIDATION', { errors: { [field]: [message] } });
