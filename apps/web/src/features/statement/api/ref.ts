import type { CallRef } from '@adena/contract/lite';

/** A zod-free reference to a call of the full contract; a path that differs from the call's is a type error. */
export const ref = <Call extends { method: string; path: string }>(method: Call['method'], path: Call['path']) =>
  ({ method, path }) as CallRef<Call>;
