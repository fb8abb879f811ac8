import {
  ackCodeIncident,
  activationCode,
  addLimitOtvetka,
  authVariantyAdenyZaKod,
  cancelCode,
  codeIncidents,
  createPricekod,
  delLimitOtvetka,
  deletePricekod,
  getErrorUserCode,
  showCode,
  telegramLink,
  updatePricekod,
  variantyAdenyZaKod,
  vip,
} from '@adena/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Deps } from '../../app';
import { idempotencyKey } from '../../lib/idempotency';
import { constantTimeEqual } from '../../lib/tokens';
import { requireUser } from '../../plugins/auth';
import { type Actor, createCodesService } from './codes.service';
import { createTelegramBot } from './telegram-bot';

const actor = async (request: FastifyRequest): Promise<Actor> => ({ user: await requireUser(request), ip: request.ip ?? null });

/** The part of Telegram's Update the webhook reads; anything else in it is ignored. */
const TelegramUpdateSchema = z
  .object({
    update_id: z.number().int(),
    message: z
      .object({
        chat: z.object({ id: z.number().int(), type: z.string() }).loose(),
        text: z.string().max(4096).optional(),
      })
      .loose()
      .optional(),
  })
  .loose();

/**
 * Gift codes, user variants, incidents, the Telegram limit and link, VIP. Thin: the contract's
 * schema, the caller, one service call. Calls that need a user check the token before the body
 * is validated, so an anonymous caller gets 401 whatever they send.
 */
export const codesRoutes =
  (deps: Deps): FastifyPluginAsyncZod =>
  async (app) => {
    const bot = createTelegramBot(deps.config);
    const service = createCodesService({ db: deps.db.kysely, realtime: deps.realtime, bot, log: app.log });
    app.addHook('onClose', async () => service.settle());
    const authFirst = { onRequest: async (request: FastifyRequest) => void (await requireUser(request)) };

    app.get(
      variantyAdenyZaKod.path,
      { schema: { params: variantyAdenyZaKod.params, response: { 200: variantyAdenyZaKod.response } } },
      (request) => service.priceData(request.params.id),
    );
    app.get(
      authVariantyAdenyZaKod.path,
      { ...authFirst, schema: { params: authVariantyAdenyZaKod.params, response: { 200: authVariantyAdenyZaKod.response } } },
      async (request) => service.authPriceData(await actor(request), request.params.id),
    );

    app.post(showCode.path, { ...authFirst, schema: { body: showCode.body, response: { 200: showCode.response } } }, async (request) =>
      service.issueCode(await actor(request), request.body, idempotencyKey(request)),
    );
    app.post(
      activationCode.path,
      { ...authFirst, schema: { body: activationCode.body, response: { 200: activationCode.response } } },
      async (request) => service.activateCode(await actor(request), request.body.sert),
    );
    app.post(
      cancelCode.path,
      { ...authFirst, schema: { params: cancelCode.params, response: { 200: cancelCode.response } } },
      async (request) => service.cancelCode(await actor(request), request.params.id),
    );

    app.post(
      createPricekod.path,
      { ...authFirst, schema: { body: createPricekod.body, response: { 200: createPricekod.response } } },
      async (request) => service.createPricekod(await actor(request), request.body, idempotencyKey(request)),
    );
    app.put(
      updatePricekod.path,
      { ...authFirst, schema: { params: updatePricekod.params, body: updatePricekod.body, response: { 200: updatePricekod.response } } },
      async (request) => service.updatePricekod(await actor(request), request.params.id, request.body, idempotencyKey(request)),
    );
    app.delete(
      deletePricekod.path,
      { ...authFirst, schema: { params: deletePricekod.params, response: { 200: deletePricekod.response } } },
      async (request) => service.deletePricekod(await actor(request), request.params.id),
    );

    app.get(codeIncidents.path, { ...authFirst, schema: { response: { 200: codeIncidents.response } } }, async (request) =>
      service.incidents(await actor(request)),
    );
    app.post(
      ackCodeIncident.path,
      { ...authFirst, schema: { params: ackCodeIncident.params, response: { 200: ackCodeIncident.response } } },
      async (request) => service.ackIncident(await actor(request), request.params.id),
    );
    app.get(getErrorUserCode.path, { ...authFirst, schema: { response: { 200: getErrorUserCode.response } } }, async (request) =>
      service.errorCodesCount(await actor(request)),
    );

    app.post(
      addLimitOtvetka.path,
      { ...authFirst, schema: { body: addLimitOtvetka.body, response: { 200: addLimitOtvetka.response } } },
      async (request) => service.setTelegramLimit(await actor(request), request.body.gamesserver_id, request.body.telegram_price),
    );
    app.post(
      delLimitOtvetka.path,
      { ...authFirst, schema: { body: delLimitOtvetka.body, response: { 200: delLimitOtvetka.response } } },
      async (request) => service.clearTelegramLimit(await actor(request), request.body.gamesserver_id),
    );
    app.get(telegramLink.path, { ...authFirst, schema: { response: { 200: telegramLink.response } } }, async (request) =>
      service.telegramLink(await actor(request)),
    );

    app.post(vip.path, { ...authFirst, schema: { body: vip.body, response: { 200: vip.response } } }, async (request) =>
      service.buyVip(await actor(request), request.body, idempotencyKey(request)),
    );

    // The bot's webhook: the path carries a secret derived from the bot token, and Telegram's
    // secret-token header is checked too when present. A wrong secret is a plain 404. Telegram
    // gets 200 for anything it sends, or it would retry the same update forever.
    const secret = bot.webhookSecret;
    const publicUrl = deps.config.PUBLIC_URL;
    if (secret && bot.enabled && publicUrl) {
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
    if (secret) {
      app.post(
        '/api/telegram/webhook/:secret',
        { schema: { params: z.object({ secret: z.string().max(100) }) }, bodyLimit: 256 * 1024 },
        async (request, reply) => {
          const header = request.headers['x-telegram-bot-api-secret-token'];
          if (!constantTimeEqual(request.params.secret, secret) || (typeof header === 'string' && !constantTimeEqual(header, secret))) {
            return reply.status(404).send({ message: 'Не найдено' });
          }
          const parsed = TelegramUpdateSchema.safeParse(request.body);
          if (parsed.success) await service.telegramUpdate(parsed.data);
          return { ok: true };
        },
      );
    }
  };
