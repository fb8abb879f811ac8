// Constants both sides rely on; no zod here, so the web app's first page can import them cheaply.

// SPEC.md section 9 and PRODUCT.md section 5.
export const CURRENCIES = {
  1: { id: 1, name: 'аден', title: 'Адена' },
  2: { id: 2, name: 'монет эйнхасад', title: 'Монеты эйнхасад' },
} as const;
export const DEFAULT_CURRENCY = 1;
export const SNACKBAR_TIMEOUT_MS = 2000;
export const ALERT_TIMEOUT_MS = 2000;
export const ACTIVATION_ALERT_TIMEOUT_MS = 1000;
export const NO_SERVER_DIALOG_TIMEOUT_MS = 2000;
export const HISTORY_PAGE_SIZE = 10;
export const DIALOG_MAX_WIDTH = 500;
export const COPYRIGHT_START_YEAR = 2018;
export const CODE_TTL_MS = 10 * 60_000;
export const CODE_MAX_TRIES = 5;
export const RESEND_INTERVAL_MS = 60_000;

export type CurrencyId = keyof typeof CURRENCIES;

/** PRODUCT.md section 4: the private channel of one user. */
export const realtimeChannelFor = (userId: number) => `private:user.${userId}`;
/** Days the seller API (/api/v1) keeps an Idempotency-Key's answer (the web app's keys: one day). */
export const SELLER_IDEMPOTENCY_DAYS = 30;
