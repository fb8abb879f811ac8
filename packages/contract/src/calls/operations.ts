import { z } from 'zod';
import { defineCall } from '../primitives';

/**
 * GET /api/ready (PRODUCT.md section 9): 200 `{ status: "ready" }` while the database answers and
 * the process is not draining; 503 `{ status: "unavailable" | "draining", message }` otherwise, so
 * a balancer takes the process out of rotation.
 */
export const ready = defineCall({
  method: 'GET',
  path: '/api/ready',
  response: z.object({ status: z.literal('ready') }),
});

export const NotReadyBodySchema = z.object({
  status: z.enum(['unavailable', 'draining']),
  message: z.string(),
});
export type NotReadyBody = z.infer<typeof NotReadyBodySchema>;
