import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { constantTimeEqual } from '../../lib/tokens';
import { type Jobs, RetryAfter } from '../jobs/jobs.service';
import type { TelegramBot } from './telegram-bot';
import type { TelegramSubscriptions } from './telegram-subscriptions.service';
import { TelegramUpdateSchema, toBotCommand } from './telegram-update.mapper';

/** The webhook's path: it carries no secret, so no access log or proxy log holds one. */
export const TELEGRAM_WEBHOOK_PATH = '/api/telegram/webhook';

/**
 * The bot's webhook: Telegram sends the secret (derived from the bot token, given to setWebhook as
 * `secret_token`) in X-Telegram-Bot-Api-Secret-Token, and a call without it or with another is a
 * plain 404. Telegram gets 200 for anything else it sends, or it would retry the same update forever.
 */
export const SET_WEBHOOK_JOB = 'telegram.set-webhook';
/** Tries of the registration (the queue's backoff between them), then it waits for the next start. */
const SET_WEBHOOK_ATTEMPTS = 30;

/**
 * The webhook is registered with Telegram at every start, so a moved PUBLIC_URL or a new token takes
 * effect by itself, as a job of the queue: Telegram slow or unreachable at that moment (a deploy of a
 * new token) is tried again with the queue's backoff, or its `retry_after`, instead of leaving
 * `/start` links unheard until the next restart. Processes starting together share one job (its key).
 * A refusal other than 429 or 5xx (a revoked token) is final and logged.
 */
export function registerTelegramWebhookSetup({
  bot,
  jobs,
  db,
  publicUrl,
  log,
}: {
  bot: TelegramBot;
  jobs: Pick<Jobs, 'register' | 'enqueue'>;
  db: Parameters<Jobs['enqueue']>[0];
  publicUrl: string | undefined;
  log: { info(msg: string): void; warn(obj: unknown, msg?: string): void };
}) {
  if (!bot.enabled || !bot.webhookSecret || !publicUrl) return { enqueue: async () => {} };
  const url = `${publicUrl.replace(/\/+$/, '')}${TELEGRAM_WEBHOOK_PATH}`;
  jobs.register(SET_WEBHOOK_JOB, async () => {
    const r = await bot.setWebhook(url);
    if (r.ok) return void log.info('telegram webhook registered');
    if (r.transient) {
      if (r.retryAfterMs !== undefined) throw new RetryAfter(r.retryAfterMs, r.error);
      throw new Error(r.error ?? 'telegram setWebhook failed');
    }
    log.warn({ error: r.error }, 'telegram setWebhook refused');
  });
  return {
    /** At start (app.ts, when the server listens); a database away then only costs this start's registration, logged. */
    enqueue: () =>
      jobs
        .enqueue(db, SET_WEBHOOK_JOB, {}, { key: `${SET_WEBHOOK_JOB}:${url}`, maxAttempts: SET_WEBHOOK_ATTEMPTS })
        .then(() => undefined)
        .catch((err: unknown) => log.warn({ err: (err as Error).message }, 'telegram setWebhook not queued')),
  };
}

/** Whether a request is Telegram delivering an update: the webhook's path with its secret header. */
export function isTelegramDelivery(request: FastifyRequest, secret: string | null): boolean {
  if (secret === null || request.url !== TELEGRAM_WEBHOOK_PATH) return false;
  const header = request.headers['x-telegram-bot-api-secret-token'];
  return typeof header === 'string' && constantTimeEqual(header, secret);
}

export const telegramWebhookRoutes =
  ({ bot, subscriptions }: { bot: TelegramBot; subscriptions: TelegramSubscriptions }): FastifyPluginAsyncZod =>
  async (app) => {
    const secret = bot.webhookSecret;
    if (!secret) return;
    app.post(
      TELEGRAM_WEBHOOK_PATH,
      {
        bodyLimit: 256 * 1024,
        // Before the body is read: a caller without the secret learns nothing of the endpoint (a broken or
        // oversized body would otherwise answer 422 or 413 instead of 404).
        onRequest: async (request, reply) => {
          if (!isTelegramDelivery(request, secret)) return reply.status(404).send({ message: 'Не найдено' });
        },
      },
      async (request) => {
        const parsed = TelegramUpdateSchema.safeParse(request.body);
        const command = parsed.success ? toBotCommand(parsed.data) : null;
        if (command) await subscriptions.handleCommand(command);
        return { ok: true };
      },
    );
  };
