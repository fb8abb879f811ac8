import type { CallRef } from '@adena/contract/lite';

/**
 * A zod-free reference to a call of the full contract (method and path, typed by the call through
 * `import type`), so the codes screens and the realtime provider need not load zod to make a
 * request. A path that differs from the call's is a type error.
 */
export const ref = <Call extends { method: string; path: string }>(method: Call['method'], path: Call['path']) =>
  ({ method, path }) as CallRef<Call>;
