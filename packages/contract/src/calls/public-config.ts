import { z } from 'zod';
import { defineCall } from '../primitives';

/**
 * What the web app shows of the service's own settings (BRAND_NAME, SUPPORT_EMAIL,
 * SUPPORT_TELEGRAM): the contacts page and the brand. Public: nothing in it is secret.
 */
export const publicConfig = defineCall({
  method: 'GET',
  path: '/api/public_config',
  response: z.object({
    brand_name: z.string(),
    /** null when the operator has not set one. */
    support_email: z.string().nullable(),
    /** A Telegram username without the @, or null. */
    support_telegram: z.string().nullable(),
  }),
});
export type PublicConfig = z.infer<typeof publicConfig.response>;
