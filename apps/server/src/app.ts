import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { errorMessage, installRussianZodErrors } from '@adena/contract';
import fastifyRateLimit from '@fastify/rate-limit';
import fastifyStatic from '@fastify/static';
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Config } from './config';
import type { Db } from './db/client';
import { registerAuth } from './plugins/auth';
import { registerErrorHandling } from './plugins/errors';
import { createRealtime, type Realtime } from './plugins/realtime';
import { adminRoutes } from './modules/admin/admin.routes';
import { authRoutes } from './modules/auth/auth.routes';
import { codesAdminRoutes } from './modules/codes/codes-admin.routes';
import { createCodesAdminService } from './modules/codes/codes-admin.service';
import { codesRoutes } from './modules/codes/codes.routes';
import { createCodesService } from './modules/codes/codes.service';
import { incidentsAdminRoutes } from './modules/incidents/incidents-admin.routes';
import { incidentsRoutes } from './modules/incidents/incidents.routes';
import { createIncidentsService } from './modules/incidents/incidents.service';
import { createTelegramBot } from './modules/notifications/telegram-bot';
import { createTelegramNotices } from './modules/notifications/telegram-notices.service';
import { telegramSubscriptionsRoutes } from './modules/notifications/telegram-subscriptions.routes';
import { createTelegramSubscriptions } from './modules/notifications/telegram-subscriptions.service';
import { telegramWebhookRoutes } from './modules/notifications/telegram-webhook.routes';
import { userVariantsRoutes } from './modules/user-variants/user-variants.routes';
import { createUserVariantsService } from './modules/user-variants/user-variants.service';
import { vipRoutes } from './modules/vip/vip.routes';
import { createVipService } from './modules/vip/vip.service';
import { ensureWallet } from './modules/wallets/wallets.repository';
import { realtimeRoutes } from './modules/realtime/realtime.routes';
import { requestsAdminRoutes } from './modules/requests/requests-admin.routes';
import { requestsRoutes } from './modules/requests/requests.routes';
import { createServerList, type ServerList } from './modules/system/server-list';
import { systemRoutes } from './modules/system/system.routes';
import { walletsRoutes } from './modules/wallets/wallets.routes';

installRussianZodErrors();

export interface Deps {
  config: Config;
  db: Db;
  realtime: Realtime;
  serverList: ServerList;
}

const DEFAULT_WEB_DIST = resolve(dirname(fileURLToPath(import.meta.url)), '../../web/dist');

export async function buildApp(config: Config, db: Db): Promise<FastifyInstance> {
  const app = Fastify({
    logger: config.LOG_LEVEL === 'silent' ? false : { level: config.LOG_LEVEL },
    trustProxy: config.TRUST_PROXY,
    bodyLimit: 64 * 1024,
    // Let in-flight requests finish on close, but stop taking new keep-alive requests.
    return503OnClosing: true,
    forceCloseConnections: 'idle',
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  registerErrorHandling(app);
  registerAuth(app, db.kysely);
  await app.register(fastifyRateLimit, { global: false });

  const realtime = createRealtime(app, config, db);
  const deps: Deps = { config, db, realtime, serverList: createServerList(db.kysely) };
  app.decorate('deps', deps);

  // Codes, user variants, incidents, VIP and the Telegram bot: one bot client and one notices
  // outbox for the process; each service gets only what it uses.
  const bot = createTelegramBot(config);
  const notices = createTelegramNotices({ db: db.kysely, bot, log: app.log });
  app.addHook('onClose', async () => notices.settle());
  const ensureWallets = { ensure: ensureWallet };
  const subscriptions = createTelegramSubscriptions({ db: db.kysely, bot, log: app.log, wallets: ensureWallets });
  const incidents = createIncidentsService({ db: db.kysely });
  const userVariants = createUserVariantsService({ db: db.kysely, realtime, notices, wallets: ensureWallets });
  const codes = createCodesService({ db: db.kysely, realtime, notices, incidents, userVariants, wallets: ensureWallets });
  const codesAdmin = createCodesAdminService({ db: db.kysely, realtime, incidents });
  const vip = createVipService({ db: db.kysely, realtime });

  await app.register(systemRoutes(deps));
  await app.register(authRoutes(deps));
  await app.register(walletsRoutes(deps));
  await app.register(requestsRoutes(deps));
  await app.register(codesRoutes({ codes }));
  await app.register(userVariantsRoutes({ userVariants }));
  await app.register(incidentsRoutes({ incidents }));
  await app.register(vipRoutes({ vip }));
  await app.register(telegramSubscriptionsRoutes({ subscriptions }));
  await app.register(telegramWebhookRoutes({ bot, subscriptions, publicUrl: config.PUBLIC_URL }));
  await app.register(realtimeRoutes(deps));
  // Admin calls: /api/admin/*, 403 to anyone but an admin.
  await app.register(requestsAdminRoutes(deps));
  await app.register(codesAdminRoutes({ codesAdmin }));
  await app.register(incidentsAdminRoutes({ incidents }));
  await app.register(adminRoutes(deps));

  await registerWeb(app, config.WEB_DIST ?? DEFAULT_WEB_DIST);
  app.addHook('onClose', async () => realtime.close());
  return app;
}

declare module 'fastify' {
  interface FastifyInstance {
    deps: Deps;
  }
}

/** The built web app on the same origin; unknown non-API paths get index.html (client routing). */
async function registerWeb(app: FastifyInstance, root: string) {
  const hasWeb = existsSync(join(root, 'index.html'));
  if (hasWeb) {
    await app.register(fastifyStatic, {
      root,
      wildcard: false,
      index: ['index.html'],
      // The build writes .br and .gz beside each asset (apps/web/vite.config.ts).
      preCompressed: true,
      setHeaders(res, path) {
        // The service worker and the page must revalidate; hashed assets may be cached for good.
        if (path.includes(`${join(root, 'assets')}`)) res.header('Cache-Control', 'public, max-age=31536000, immutable');
        else res.header('Cache-Control', 'no-cache');
      },
    });
  }
  app.setNotFoundHandler((request, reply) => {
    const isPage = request.method === 'GET' && !request.url.startsWith('/api/') && !request.url.startsWith('/socket.io/');
    if (hasWeb && isPage) {
      return reply.header('Cache-Control', 'no-cache').type('text/html').sendFile('index.html');
    }
    return reply.status(404).send({ message: errorMessage('NOT_FOUND') });
  });
}
