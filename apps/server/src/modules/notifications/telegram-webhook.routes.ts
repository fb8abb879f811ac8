import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { constantTimeEqual } from '../../lib/tokens';
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
export const telegramWebhookRoutes =
  ({ bot, subscriptions, publicUrl }: { bot: TelegramBot; subscriptions: TelegramSubscriptions; publicUrl: string | undefined }): FastifyPluginAsyncZod =>
  async (app) => {
    const secret = bot.webhookSecret;
    if (!secret) return;
    if (bot.enabled && publicUrl) {
      // Registered at every start, so a moved PUBLIC_URL or a new token takes effect by itself.
      // Not awaited: Telegram being slow or down must not hold the start.
      app.addHook('onReady', async () => {
        const url = `${publicUrl.replace(/\/+$/, '')}${TELEGRAM_WEBHOOK_PATH}`;
        void bot.setWebhook(url).then((r) => {
          if (r.ok) app.log.info('telegram webhook registered');
          else app.log.warn({ error: r.error }, 'telegram setWebhook failed');
        });
      });
    }
    app.post(TELEGRAM_WEBHOOK_PATH, { bodyLimit: 256 * 1024 }, async (request, reply) => {
      const header = request.headers['x-telegram-bot-api-secret-token'];
      if (typeof header !== 'string' || !constantTimeEqual(header, secret)) {
        return reply.status(404).send({ message: 'Не найдено' });
      }
      const parsed = TelegramUpdateSchema.safeParse(request.body);
      const command = parsed.success ? toBotCommand(parsed.data) : null;
      if (command) await subscriptions.handleCommand(command);
      return { ok: true };
    });
  };
