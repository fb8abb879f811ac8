import { type CallRef, errorMessage } from '@adena/contract/lite';
import type { z } from 'zod';
import { latinKeys } from './keyboard-layout';

export interface Endpoint {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  body?: z.ZodType;
  query?: z.ZodType;
  params?: z.ZodType;
  response: z.ZodType;
}

/** An error answer of the API: status plus PRODUCT.md's body (message, errors, low_cap…). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: { message: string; errors?: Record<string, string[]>; low_cap?: boolean; [k: string]: unknown },
    /** A 429's `Retry-After`, in seconds: when the same call may be made again. */
    readonly retryAfter?: number,
  ) {
    super(body.message);
  }
  get fieldErrors(): Record<string, string[]> {
    return this.body.errors ?? {};
  }
}

/**
 * Whether a failed money call may take a new Idempotency-Key: the server answered a refusal (4xx), so
 * nothing moved. After a lost answer (no connection, status 0) or a 5xx the call may have gone
 * through; the next try keeps its key and the server replays that answer instead of moving money again.
 */
export const refusedForSure = (err: unknown) => err instanceof ApiError && err.status >= 400 && err.status < 500;

const TOKEN_KEY = 'access_token';
/** Told of a change of the token: `fromAnotherTab` when another tab of the app signed in or out. */
type TokenListener = (fromAnotherTab: boolean) => void;
const tokenListeners = new Set<TokenListener>();
const tokenChanged = (fromAnotherTab: boolean) => {
  for (const l of tokenListeners) l(fromAnotherTab);
};
// The token is in localStorage, shared by every tab of the app: another tab's sign-in or sign-out changes the
// token this tab's calls carry (request reads it at call time), so this tab must follow. The event never reaches
// the tab that made the change; a null key is that tab clearing its storage.
const onStorage = (e: StorageEvent) => {
  if ((e.key === TOKEN_KEY && e.oldValue !== e.newValue) || e.key === null) tokenChanged(true);
};
export const tokenStore = {
  get: () => localStorage.getItem(TOKEN_KEY),
  set: (token: string) => {
    localStorage.setItem(TOKEN_KEY, token);
    tokenChanged(false);
  },
  clear: () => {
    localStorage.removeItem(TOKEN_KEY);
    tokenChanged(false);
  },
  /**
   * For useSyncExternalStore and the session: told when this tab signs in or out (a new session of the same user
   * too), and when another tab does.
   */
  subscribe: (listener: TokenListener) => {
    if (tokenListeners.size === 0) window.addEventListener('storage', onStorage);
    tokenListeners.add(listener);
    return () => {
      tokenListeners.delete(listener);
      if (tokenListeners.size === 0) window.removeEventListener('storage', onStorage);
    };
  },
};

/** A full call of the contract, or its zod-free reference from `@adena/contract/lite`. */
export type AnyCall = Endpoint | CallRef<Endpoint>;
// A full call also has the shape of a reference, so it is recognised first.
type Full<E extends AnyCall> = E extends Endpoint ? E : E extends CallRef<infer C> ? (C extends Endpoint ? C : never) : never;

type Input<E extends Endpoint> = (E['body'] extends z.ZodType ? { body: z.input<E['body']> } : { body?: undefined }) &
  (E['params'] extends z.ZodType ? { params: Record<string, string | number> } : { params?: undefined }) & {
    query?: Record<string, string | number | undefined>;
    /** Overrides the stored session token (e.g. the new_password_token of a reset). */
    token?: string | null;
    idempotencyKey?: string;
    /** X-Two-Factor-Code: the step-up of a withdrawal, a code reveal, pricekods, my codes, a new API key (PRODUCT.md section 7). */
    twoFactorCode?: string;
    signal?: AbortSignal;
  };

/** Whether fetch can send this header value: Latin-1 (a byte string) without NUL, CR or LF. */
function sendableHeader(value: string) {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c > 0xff || c === 0 || c === 0x0a || c === 0x0d) return false;
  }
  return true;
}

/** TWO_FACTOR_MESSAGES.code of the contract (zod-free here, the first page's module; a test keeps them equal). */
export const BAD_CODE_MESSAGE = 'Введите 6 цифр из приложения или резервный код';
const badCode = { message: BAD_CODE_MESSAGE, errors: { code: [BAD_CODE_MESSAGE] } };

/** One typed call of the contract; the answer is whatever the server sent, typed by the schema. */
export async function request<A extends AnyCall, E extends Endpoint = Full<A>>(endpoint: A, input?: Input<E>): Promise<z.output<E['response']>> {
  let path = endpoint.path;
  for (const [k, v] of Object.entries(input?.params ?? {})) path = path.replace(`:${k}`, encodeURIComponent(String(v)));
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(input?.query ?? {})) if (v !== undefined && v !== '') qs.set(k, String(v));
  const url = qs.size ? `${path}?${qs}` : path;
  const token = input?.token === undefined ? tokenStore.get() : input.token;
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (input?.idempotencyKey) headers['Idempotency-Key'] = input.idempotencyKey;
  // A recovery code typed on the Russian layout («фисву-апршо») goes as the Latin keys it was typed with.
  if (input?.twoFactorCode) headers['X-Two-Factor-Code'] = latinKeys(input.twoFactorCode);
  const hasBody = endpoint.method !== 'GET' && endpoint.method !== 'DELETE';
  if (hasBody) headers['Content-Type'] = 'application/json';
  // fetch throws before sending for a header value outside Latin-1 (what the player typed into the code field):
  // refused here as the server refuses a bad code, not as a lost connection, so no request is left in doubt.
  const unsendable = Object.keys(headers).find((name) => !sendableHeader(headers[name]!));
  if (unsendable) throw new ApiError(422, unsendable === 'X-Two-Factor-Code' ? badCode : { message: errorMessage('VALIDATION') });
  let res: Response;
  try {
    res = await fetch(url, {
      method: endpoint.method,
      headers,
      body: hasBody ? JSON.stringify(input?.body ?? {}) : undefined,
      signal: input?.signal,
    });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError(0, { message: 'Нет связи с сервером. Проверьте подключение к интернету.' });
  }
  const text = await res.text();
  let data: unknown;
  try {
    data = text ? JSON.parse(text) : undefined;
  } catch {
    data = undefined;
  }
  if (!res.ok) {
    // No JSON from us: a proxy's page for a gateway error or timeout means the service is away a moment.
    const fallback = res.status >= 502 && res.status <= 504 ? errorMessage('UNAVAILABLE') : errorMessage('INTERNAL');
    const body = (data && typeof data === 'object' && 'message' in data ? data : { message: fallback }) as ApiError['body'];
    const wait = Number(res.headers.get('Retry-After'));
    throw new ApiError(res.status, body, Number.isFinite(wait) && wait > 0 ? wait : undefined);
  }
  return data as z.output<E['response']>;
}
