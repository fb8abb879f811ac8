import { createHmac } from 'node:crypto';
import type { Config } from '../../config';

export interface SendResult {
  ok: boolean;
  error?: string;
  /** Telegram's 429 names when to try again (`parameters.retry_after`, seconds), here in ms. */
  retryAfterMs?: number;
  /** A failure worth retrying: the network, a timeout, Telegram's 5xx or 429. A 4xx is final. */
  transient?: boolean;
  /**
   * The chat will never hear from the bot again: a 403 (the user blocked the bot, the account is
   * deleted, the bot was removed from the chat) or a 400 `chat not found`.
   */
  chatGone?: boolean;
}

export interface TelegramBot {
  /** False when TELEGRAM_BOT_TOKEN or TELEGRAM_BOT_USERNAME is missing: nothing is sent, links are null. */
  enabled: boolean;
  /** The deep link that starts the bot with a one-time token. */
  linkUrl(token: string): string | null;
  /** The last path segment of the webhook; derived from the token so it needs no setting of its own. */
  webhookSecret: string | null;
  /** PUBLIC_URL without its trailing slash, for links in the bot's replies; null when unset. */
  siteUrl: string | null;
  sendMessage(chatId: bigint, text: string): Promise<SendResult>;
  /** Tells Telegram where to deliver the bot's updates (the /start deep link arrives there). */
  setWebhook(url: string): Promise<SendResult>;
}

const SEND_TIMEOUT_MS = 5000;

/**
 * The job queue's lane of every call to Telegram (players' notices, operators' alerts, the webhook registration):
 * workers of its own, so Telegram unreachable without a word (each try waiting SEND_TIMEOUT_MS) through hours of
 * retries holds only them, not the default lane's purge, sweeps and the operators' alert scan.
 */
export const TELEGRAM_LANE = 'telegram';
export const TELEGRAM_WORKERS = 1;

export type TelegramBotConfig = Pick<Config, 'TELEGRAM_BOT_TOKEN' | 'TELEGRAM_BOT_USERNAME' | 'TELEGRAM_API_URL'> & Partial<Pick<Config, 'PUBLIC_URL'>>;

/**
 * The Bot API over plain fetch against TELEGRAM_API_URL (a local fake in tests). app.ts makes the
 * one client of the process and hands it to whoever sends.
 */
export function createTelegramBot(config: TelegramBotConfig): TelegramBot {
  const token = config.TELEGRAM_BOT_TOKEN;
  const username = config.TELEGRAM_BOT_USERNAME;
  const enabled = Boolean(token && username);
  const base = config.TELEGRAM_API_URL.replace(/\/+$/, '');
  return {
    enabled,
    webhookSecret: token ? webhookSecretOf(token) : null,
    siteUrl: config.PUBLIC_URL ? config.PUBLIC_URL.replace(/\/+$/, '') : null,
    linkUrl: (t) => (enabled ? `https://t.me/${username}?start=${t}` : null),
    // chat ids fit in 52 bits (Telegram's own promise), so a JSON number carries them exactly.
    sendMessage: (chatId, text) => call('sendMessage', { chat_id: Number(chatId), text }),
    setWebhook: (url) =>
      call('setWebhook', { url, secret_token: token ? webhookSecretOf(token) : undefined, allowed_updates: ['message'], drop_pending_updates: false }),
  };

  async function call(method: string, payload: object): Promise<SendResult> {
    if (!token) return { ok: false, error: 'bot is not configured' };
    try {
      const res = await fetch(`${base}/bot${token}/${method}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(payload),
        signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
      });
      const body = (await res.json().catch(() => null)) as { ok?: boolean; description?: string; parameters?: { retry_after?: unknown } } | null;
      if (res.ok && body?.ok) return { ok: true };
      const error = `${res.status} ${body?.description ?? ''}`.trim().slice(0, 500);
      const retryAfter = body?.parameters?.retry_after;
      if (res.status === 429) {
        const seconds = typeof retryAfter === 'number' && retryAfter >= 0 ? Math.min(retryAfter, 3600) : 1;
        return { ok: false, error, retryAfterMs: seconds * 1000, transient: true };
      }
      const chatGone = res.status === 403 || (res.status === 400 && /chat not found/i.test(body?.description ?? ''));
      return { ok: false, error, transient: res.status >= 500, ...(chatGone ? { chatGone } : {}) };
    } catch (err) {
      return { ok: false, error: (err as Error).message.slice(0, 500), transient: true };
    }
  }
}

/** HMAC of a fixed label under the bot token: unguessable without the token, stable across restarts. */
export const webhookSecretOf = (botToken: string) => createHmac('sha256', botToken).update('adena-webhook').digest('hex').slice(0, 40);
