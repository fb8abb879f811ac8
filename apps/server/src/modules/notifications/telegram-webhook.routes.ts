import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { constantTimeEqual } from '../../lib/tokens';
import type { TelegramBot } from './telegram-bot';
import type { TelegramSubscriptions } from './telegram-subscriptions.service';
import { TelegramUpdateSchema, toBotCommand } from './telegram-update.mapper';

/**
 * The bot's webhook: the path carries a secret derived from the bot token, and Telegram's
 * secret-token header is checked too when present. A wrong secret is a plain 404. Telegram gets
 * 200 for anything it sends, or it would retry the same update forever.
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
        const url = `${publicUrl.replace(/\/+$/, '')}/api/telegram/webhook/${secret}`;
        void bot.setWebhook(url).then((r) => {
          if (r.ok) app.log.info('telegram webhook registered');
          else app.log.warn({ error: r.error }, 'telegram setWebhook failed');
        });
      });
    }
    app.post(
      '/api/telegram/webhook/:secret',
      { schema: { params: z.object({ secret: z.string().max(100) }) }, bodyLimit: 256 * 1024 },
      async (request, reply) => {
        const header = request.headers['x-telegram-bot-api-secret-token'];
        if (!constantTimeEqual(request.params.secret, secret) || (typeof header === 'string' && !constantTimeEqual(header, secret))) {
          return reply.status(404).send({ message: 'Не найдено' });
        }
        const parsed = TelegramUpdateSchema.safeParse(request.body);
        const command = parsed.success ? toBotCommand(parsed.data) : null;
        if (command) await subscriptions.handleCommand(command);
        return { ok: true };
      },
    );
  };
