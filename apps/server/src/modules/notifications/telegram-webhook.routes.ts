import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { constantTimeEqual } from '../../lib/tokens';
import { type Jobs, RetryAfter } from '../jobs/jobs.service';
import { TELEGRAM_LANE, type TelegramBot } from './telegram-bot';
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
/**
 * How long a registration is tried (the queue's backoff between Telegram's failures), then it waits for
 * the next start. Also the end of a registration no running process can make (its settings are gone).
 */
const SET_WEBHOOK_MAX_AGE_MS = 24 * 60 * 60_000;
/** The queue's bound on the tries: the age ends a registration first (another process's turns count as tries). */
const SET_WEBHOOK_ATTEMPTS = 10_000;
/**
 * A process with other settings hands the job back for 10 s × the job's tries so far, at most 5 minutes: a
 * process with the job's settings takes it meanwhile, and one that no process has any more is not claimed
 * every few seconds for a day.
 */
const NOT_MINE_RETRY_MS = 10_000;
const NOT_MINE_MAX_RETRY_MS = 5 * 60_000;

/** What a registration job is for: the webhook's URL and a fingerprint of the bot token (never the token). */
export interface SetWebhookPayload {
  url: string;
  bot: string;
}

/**
 * A fingerprint of the bot token for the jobs table: a hash of the webhook secret (itself an HMAC of the
 * token), so the row names which token a registration is for without holding the token or the secret.
 */
export const botFingerprintOf = (webhookSecret: string) => createHash('sha256').update(`adena-webhook-setup:${webhookSecret}`).digest('hex').slice(0, 32);

/**
 * The webhook is registered with Telegram at every start, so a moved PUBLIC_URL or a new token takes
 * effect by itself, as a job of the queue: Telegram slow or unreachable at that moment (a deploy of a
 * new token) is tried again with the queue's backoff, or its `retry_after`, instead of leaving
 * `/start` links unheard until the next restart. Processes starting together share one job (its key).
 * A refusal other than 429 or 5xx (a revoked token) is final and logged. The job names the URL and the
 * token (its fingerprint) it registers, and only a process with both runs it: during a deploy that
 * changes TELEGRAM_BOT_TOKEN or PUBLIC_URL, an old process that claims the new settings' job hands it
 * back (`RetryAfter`) instead of registering its own old URL or token over the new ones; a job whose
 * settings no process has any more ends with its age.
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
  const mine: SetWebhookPayload = { url, bot: botFingerprintOf(bot.webhookSecret) };
  jobs.register<Partial<SetWebhookPayload>>(SET_WEBHOOK_JOB, async (job, ctx) => {
    // A job of a version that did not name its settings: whoever started since has queued its own.
    if (job.url === undefined || job.bot === undefined) return;
    if (job.url !== mine.url || job.bot !== mine.bot) {
      throw new RetryAfter(Math.min(NOT_MINE_RETRY_MS * ctx.attempt, NOT_MINE_MAX_RETRY_MS), 'left to a process with this URL and bot token');
    }
    const r = await bot.setWebhook(url);
    if (r.ok) return void log.info('telegram webhook registered');
    if (r.transient) {
      if (r.retryAfterMs !== undefined) throw new RetryAfter(r.retryAfterMs, r.error);
      throw new Error(r.error ?? 'telegram setWebhook failed');
    }
    log.warn({ error: r.error }, 'telegram setWebhook refused');
  }, { lane: TELEGRAM_LANE });
  return {
    /** At start (app.ts, when the server listens); a database away then only costs this start's registration, logged. */
    enqueue: () =>
      jobs
        .enqueue(db, SET_WEBHOOK_JOB, mine, {
          key: `${SET_WEBHOOK_JOB}:${mine.bot}:${url}`,
          maxAttempts: SET_WEBHOOK_ATTEMPTS,
          maxAgeMs: SET_WEBHOOK_MAX_AGE_MS,
        })
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
