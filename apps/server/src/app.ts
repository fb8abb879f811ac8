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
import { codesRoutes } from './modules/codes/codes.routes';
import { createJobs } from './modules/jobs/jobs.service';
import { createPurge, schedulePurge } from './modules/jobs/purge.service';
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

  await app.register(systemRoutes(deps));
  await app.register(authRoutes(deps));
  await app.register(walletsRoutes(deps));
  await app.register(requestsRoutes(deps));
  await app.register(codesRoutes(deps));
  await app.register(realtimeRoutes(deps));
  // Admin calls: /api/admin/*, 403 to anyone but an admin.
  await app.register(requestsAdminRoutes(deps));
  await app.register(codesAdminRoutes(deps));
  await app.register(adminRoutes(deps));

  // The job queue (decision record 0016): its worker runs while the server listens.
  const jobs = createJobs({ db: db.kysely, log: app.log });
  schedulePurge(jobs, createPurge({ db: db.kysely }));
  app.addHook('onListen', async () => jobs.start());
  app.addHook('onClose', async () => jobs.stop());

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
