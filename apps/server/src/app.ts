import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { errorMessage, installRussianZodErrors } from '@adena/contract';
import fastifyStatic from '@fastify/static';
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Config } from './config';
import type { Db } from './db/client';
import { registerAuth } from './plugins/auth';
import { registerCallLimits } from './plugins/call-limits';
import { loggerOptions } from './plugins/log-redaction';
import { registerSecurityHeaders } from './plugins/security';
import { registerErrorHandling } from './plugins/errors';
import { createRealtime, type Realtime } from './plugins/realtime';
import { accountsAdminRoutes } from './modules/accounts/accounts-admin.routes';
import { createAccountsAdminService } from './modules/accounts/accounts-admin.service';
import { accountsRoutes } from './modules/accounts/accounts.routes';
import { createAccountsService } from './modules/accounts/accounts.service';
import { createCodeFlows } from './modules/accounts/code-flows';
import { createExternalSignInService } from './modules/accounts/external-sign-in.service';
import { DEFAULT_LIMITS, scaleLimits } from './modules/accounts/limits';
import { createResetService } from './modules/accounts/reset.service';
import { createSignIn } from './modules/accounts/sign-in';
import { createSignUpService } from './modules/accounts/sign-up.service';
import { createCodeDelivery } from './modules/notifications/code-delivery';
import { createMailer } from './modules/notifications/mail';
import { createOutbox } from './modules/notifications/outbox';
import { createSmsRuGateway } from './modules/notifications/sms';
import { sessionsRoutes } from './modules/sessions/sessions.routes';
import { createRateLimiter } from './modules/sessions/rate-limit.service';
import { createSessionsService, type SessionsService } from './modules/sessions/sessions.service';
import { auditAdminRoutes } from './modules/audit/audit-admin.routes';
import { createAuditService } from './modules/audit/audit.service';
import { codesAdminRoutes } from './modules/codes/codes-admin.routes';
import { createCodesAdminService } from './modules/codes/codes-admin.service';
import { codesRoutes } from './modules/codes/codes.routes';
import { createCodesService, DEFAULT_CODES_LIMITS } from './modules/codes/codes.service';
import { incidentsAdminRoutes } from './modules/incidents/incidents-admin.routes';
import { createIncidentsAdminService } from './modules/incidents/incidents-admin.service';
import { incidentsRoutes } from './modules/incidents/incidents.routes';
import { createIncidentsService } from './modules/incidents/incidents.service';
import { ledgerAdminRoutes } from './modules/ledger/ledger-admin.routes';
import { createLedgerAdminService } from './modules/ledger/ledger-admin.service';
import { createTelegramBot } from './modules/notifications/telegram-bot';
import { createTelegramNotices } from './modules/notifications/telegram-notices.service';
import { telegramSubscriptionsRoutes } from './modules/notifications/telegram-subscriptions.routes';
import { createTelegramSubscriptions } from './modules/notifications/telegram-subscriptions.service';
import { telegramWebhookRoutes } from './modules/notifications/telegram-webhook.routes';
import { userVariantsRoutes } from './modules/user-variants/user-variants.routes';
import { createUserVariantsService } from './modules/user-variants/user-variants.service';
import { vipRoutes } from './modules/vip/vip.routes';
import { createVipService } from './modules/vip/vip.service';
import { createJobs } from './modules/jobs/jobs.service';
import { createPurge, schedulePurge } from './modules/jobs/purge.service';
import { realtimeRoutes } from './modules/realtime/realtime.routes';
import { createRealtimeService } from './modules/realtime/realtime.service';
import { requestsAdminRoutes } from './modules/requests/requests-admin.routes';
import { requestsRoutes } from './modules/requests/requests.routes';
import { createRequestsService } from './modules/requests/requests.service';
import { systemAdminRoutes } from './modules/system/system-admin.routes';
import { createSystemAdminService } from './modules/system/system-admin.service';
import { systemRoutes } from './modules/system/system.routes';
import { createSystemService, type SystemService } from './modules/system/system.service';
import { walletsRoutes } from './modules/wallets/wallets.routes';
import { createWalletsService, ensureWallet } from './modules/wallets/wallets.service';

installRussianZodErrors();

export interface Deps {
  config: Config;
  db: Db;
  realtime: Realtime;
  system: SystemService;
}

const DEFAULT_WEB_DIST = resolve(dirname(fileURLToPath(import.meta.url)), '../../web/dist');

export async function buildApp(config: Config, db: Db): Promise<FastifyInstance> {
  const app = Fastify({
    logger: config.LOG_LEVEL === 'silent' ? false : loggerOptions(config.LOG_LEVEL),
    trustProxy: trustProxyOption(config.TRUST_PROXY),
    bodyLimit: 64 * 1024,
    // Let in-flight requests finish on close, but stop taking new keep-alive requests.
    return503OnClosing: true,
    forceCloseConnections: 'idle',
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  registerErrorHandling(app);
  // Abuse resistance (issue 15, decision record 0019): security headers on every answer, and
  // per-address and per-token call limits before any work is done.
  await registerSecurityHeaders(app, { webDist: config.WEB_DIST ?? DEFAULT_WEB_DIST, publicUrl: config.PUBLIC_URL });
  await registerCallLimits(app, db.kysely, config.RATE_LIMIT_SCALE);

  // Sessions and accounts.
  const now = () => new Date();
  const sessions = createSessionsService({ db: db.kysely, clock: now });
  registerAuth(app, sessions);
  const accountsServices = composeAccounts(app, config, db, sessions, now);

  const realtime = createRealtime(app, { pgPool: db.pgPool, sessions });
  const kysely = db.kysely;
  // System, wallets, requests, ledger views, audit, realtime tokens and the admin area's services.
  const audit = createAuditService({ db: kysely });
  const system = createSystemService({ db: kysely, kind: db.kind });
  const systemAdmin = createSystemAdminService({ db: kysely, audit, system });
  const wallets = createWalletsService({ db: kysely });
  // Codes, user variants, incidents, VIP and the Telegram bot: one bot client and one notices
  // outbox for the process; each service gets only what it uses.
  const bot = createTelegramBot(config);
  const notices = createTelegramNotices({ db: kysely, bot, log: app.log });
  app.addHook('onClose', async () => notices.settle());
  const ensureWallets = { ensure: ensureWallet };
  const subscriptions = createTelegramSubscriptions({ db: kysely, bot, log: app.log, wallets: ensureWallets });
  const incidents = createIncidentsService({ db: kysely });
  const userVariants = createUserVariantsService({ db: kysely, realtime, notices, wallets: ensureWallets });
  const codesLimits = scaleCodesLimits(config.RATE_LIMIT_SCALE);
  const codes = createCodesService({ db: kysely, realtime, notices, incidents, userVariants, wallets: ensureWallets, limits: codesLimits });
  const codesAdmin = createCodesAdminService({ db: kysely, realtime, incidents, audit });
  const vip = createVipService({ db: kysely, realtime });

  const requests = createRequestsService({ db: kysely, realtime, notices, audit });
  const ledgerAdmin = createLedgerAdminService({ db: kysely });
  const accountsAdmin = createAccountsAdminService({ db: kysely, realtime, audit, wallets, requests, ledger: ledgerAdmin, codes: codesAdmin, sessions });
  const incidentsAdmin = createIncidentsAdminService({ db: kysely, audit });
  const realtimeTokens = createRealtimeService({ sessions, realtime });

  const deps: Deps = { config, db, realtime, system };
  app.decorate('deps', deps);

  await app.register(systemRoutes({ system }));
  await app.register(accountsRoutes(accountsServices));
  await app.register(sessionsRoutes({ sessions }));
  await app.register(walletsRoutes({ wallets }));
  await app.register(requestsRoutes({ requests }));
  await app.register(codesRoutes({ codes }));
  await app.register(userVariantsRoutes({ userVariants }));
  await app.register(incidentsRoutes({ incidents }));
  await app.register(vipRoutes({ vip }));
  await app.register(telegramSubscriptionsRoutes({ subscriptions }));
  await app.register(telegramWebhookRoutes({ bot, subscriptions, publicUrl: config.PUBLIC_URL }));
  await app.register(realtimeRoutes({ realtimeTokens }));
  // Admin calls: /api/admin/*, 403 to anyone but an admin.
  await app.register(requestsAdminRoutes({ requests }));
  await app.register(codesAdminRoutes({ codesAdmin }));
  await app.register(systemAdminRoutes({ systemAdmin }));
  await app.register(accountsAdminRoutes({ accountsAdmin }));
  await app.register(incidentsAdminRoutes({ incidents, incidentsAdmin }));
  await app.register(ledgerAdminRoutes({ ledgerAdmin }));
  await app.register(auditAdminRoutes({ audit }));

  // The job queue (decision record 0016): its worker runs while the server listens.
  const jobs = createJobs({ db: db.kysely, log: app.log });
  schedulePurge(jobs, createPurge({ db: db.kysely }));
  app.addHook('onListen', async () => jobs.start());
  app.addHook('onClose', async () => jobs.stop());

  await registerWeb(app, config.WEB_DIST ?? DEFAULT_WEB_DIST);
  app.addHook('onClose', async () => realtime.close());
  return app;
}

/** The accounts module's services; one-time codes go by mail and SMS where configured, else to the outbox. */
function composeAccounts(app: FastifyInstance, config: Config, db: Db, sessions: SessionsService, now: () => Date) {
  const delivery = createCodeDelivery({
    mail: config.SMTP_URL ? createMailer({ url: config.SMTP_URL, from: config.MAIL_FROM }) : null,
    sms: config.SMS_API_URL && config.SMS_API_KEY ? createSmsRuGateway({ url: config.SMS_API_URL, apiKey: config.SMS_API_KEY, from: config.SMS_FROM }) : null,
    outbox: createOutbox(config.DATA_DIR, app.log),
    log: app.log,
  });
  // Codes already promised to players are handed over before the process exits.
  app.addHook('onClose', async () => {
    await delivery.settle();
    delivery.close();
  });
  const limits = scaleLimits(DEFAULT_LIMITS, config.RATE_LIMIT_SCALE);
  const limiter = createRateLimiter(db.kysely, now);
  const flows = createCodeFlows({ db: db.kysely, limiter, limits, now });
  const signIn = createSignIn({ sessions, now });
  return {
    accounts: createAccountsService({ db: db.kysely, limiter, limits, signIn, now }),
    signUp: createSignUpService({ db: db.kysely, flows, limiter, limits, signIn, delivery, publicUrl: config.PUBLIC_URL, now }),
    reset: createResetService({ db: db.kysely, flows, sessions, signIn, delivery }),
    externalSignIn: createExternalSignInService({ db: db.kysely, config, limiter, limits, signIn, now }),
  };
}

/** TRUST_PROXY: off, a hop count (the nearest n peers are proxies), or the proxies' addresses. */
function trustProxyOption(setting: Config['TRUST_PROXY']) {
  if (typeof setting === 'number') return (_addr: string, hop: number) => hop < setting;
  return setting;
}

const scaleCodesLimits = (scale: number) => ({
  failuresPerUser: { ...DEFAULT_CODES_LIMITS.failuresPerUser, limit: Math.max(1, Math.round(DEFAULT_CODES_LIMITS.failuresPerUser.limit * scale)) },
  failuresPerIp: { ...DEFAULT_CODES_LIMITS.failuresPerIp, limit: Math.max(1, Math.round(DEFAULT_CODES_LIMITS.failuresPerIp.limit * scale)) },
});

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
