import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installRussianZodErrors } from '@adena/contract';
import type { FastifyInstance } from 'fastify';
import type { Config } from './config';
import type { Db } from './db/client';
import { registerAuth } from './plugins/auth';
import { callLimitsHook } from './plugins/call-limits';
import { securityHeadersHook } from './plugins/security';
import { registerErrorHandling } from './plugins/errors';
import { createRealtime, type Realtime } from './plugins/realtime';
import { registerWeb } from './plugins/web';
import { accountsAdminRoutes } from './modules/accounts/accounts-admin.routes';
import { createAccountsAdminService } from './modules/accounts/accounts-admin.service';
import { accountsRoutes } from './modules/accounts/accounts.routes';
import { MESSAGE_LANE, MESSAGE_WORKERS } from './modules/notifications/code-delivery';
import { sessionsRoutes } from './modules/sessions/sessions.routes';
import { createRateLimiter } from './modules/sessions/rate-limit.service';
import { createSessionsService, scheduleSessionSweep } from './modules/sessions/sessions.service';
import { createSessionCache } from './modules/sessions/session-cache';
import { passwordChangeRoutes } from './modules/accounts/password-change.routes';
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
import { createTelegramBot, TELEGRAM_LANE, TELEGRAM_WORKERS, webhookSecretOf } from './modules/notifications/telegram-bot';
import { createTelegramNotices } from './modules/notifications/telegram-notices.service';
import { telegramSubscriptionsRoutes } from './modules/notifications/telegram-subscriptions.routes';
import { createTelegramSubscriptions } from './modules/notifications/telegram-subscriptions.service';
import { isTelegramDelivery, registerTelegramWebhookSetup, telegramWebhookRoutes } from './modules/notifications/telegram-webhook.routes';
import { userVariantsRoutes } from './modules/user-variants/user-variants.routes';
import { createUserVariantsService } from './modules/user-variants/user-variants.service';
import { vipRoutes } from './modules/vip/vip.routes';
import { createVipService } from './modules/vip/vip.service';
import { createJobs, type Jobs } from './modules/jobs/jobs.service';
import { createMetrics, type Metrics } from './modules/operations/metrics.service';
import { operationsRoutes } from './modules/operations/operations.routes';
import { createReadiness, type ReadinessService } from './modules/operations/readiness.service';
import { createPurge, schedulePurge } from './modules/jobs/purge.service';
import { realtimeRoutes } from './modules/realtime/realtime.routes';
import { createRealtimeService } from './modules/realtime/realtime.service';
import { requestsAdminRoutes } from './modules/requests/requests-admin.routes';
import { requestsRoutes } from './modules/requests/requests.routes';
import { createRequestsService } from './modules/requests/requests.service';
import { shiftAdminRoutes } from './modules/shift/shift-admin.routes';
import { createShiftService } from './modules/shift/shift.service';
import { systemAdminRoutes } from './modules/system/system-admin.routes';
import { createSystemAdminService } from './modules/system/system-admin.service';
import { systemRoutes } from './modules/system/system.routes';
import { createSystemService, type SystemService } from './modules/system/system.service';
import { statementRoutes } from './modules/statement/statement.routes';
import { createStatementService, STATEMENT_FILES } from './modules/statement/statement.service';
import { walletsRoutes } from './modules/wallets/wallets.routes';
import { apiKeysRoutes } from './modules/seller/api-keys.routes';
import { createApiKeysService, DEFAULT_KEY_RATE } from './modules/seller/api-keys.service';
import { v1Routes } from './modules/seller/v1.routes';
import { registerWebhookDelivery, WEBHOOK_LANE, WEBHOOK_WORKERS } from './modules/webhooks/webhook-delivery';
import { webhooksRoutes } from './modules/webhooks/webhooks.routes';
import { createWebhooksService, WEBHOOK_TESTS } from './modules/webhooks/webhooks.service';
import { registerOpenApi } from './plugins/openapi';
import { closePromptly } from './plugins/prompt-close';
import { passkeysRoutes } from './modules/passkeys/passkeys.routes';
import { twoFactorRoutes } from './modules/two-factor/two-factor.routes';
import { createWalletsService, ensureWallet } from './modules/wallets/wallets.service';
import { composeAccounts } from './compose-accounts';
import { createHttpApp } from './http-app';

installRussianZodErrors();

export interface Deps {
  config: Config;
  db: Db;
  realtime: Realtime;
  system: SystemService;
  /** Operations (decision record 0020): main.ts drains on SIGTERM; the metrics listener's port, when on. */
  readiness: ReadinessService;
  metrics: Metrics;
  jobs: Jobs;
  metricsPort: () => number | null;
  /** After listen: the metrics listener's port once it has started, null when it could not (or METRICS_PORT is unset). */
  metricsStarted: Promise<number | null>;
}

const DEFAULT_WEB_DIST = resolve(dirname(fileURLToPath(import.meta.url)), '../../web/dist');

// Long: the composition root (decision record 0015): each service is built once, in the order they need
// each other, and handed to its routes; it reads top to bottom and decides nothing itself.
export async function buildApp(config: Config, db: Db, opts: { now?: () => Date } = {}): Promise<FastifyInstance> {
  const securityHeaders = securityHeadersHook({ webDist: config.WEB_DIST ?? DEFAULT_WEB_DIST, publicUrl: config.PUBLIC_URL });
  const app = createHttpApp(config, securityHeaders);
  registerErrorHandling(app);
  // One onRequest hook for every request (decision record 0027: each hook costs every call): the
  // request id and the security headers on every answer, then the per-address and per-token call
  // limits before any work is done (abuse resistance, decision record 0019). Telegram's deliveries to
  // the bot's webhook carry its secret and come from a few addresses shared by every chat: not counted.
  const webhookSecret = config.TELEGRAM_BOT_TOKEN ? webhookSecretOf(config.TELEGRAM_BOT_TOKEN) : null;
  const callLimits = callLimitsHook(app, db.kysely, config.RATE_LIMIT_SCALE, {
    unlimited: (request) => isTelegramDelivery(request, webhookSecret),
  });
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    securityHeaders(request, reply);
    callLimits.call(app, request, reply, done);
  });

  // Sessions and accounts.
  const now = opts.now ?? (() => new Date());
  // Ended sessions' sockets are told through the realtime plugin, which is built below (it needs
  // sessions for its handshake); nothing ends a session before the app is ready.
  let endSockets: Realtime['endSessions'] | undefined;
  // Callers in memory, dropped on the database's session_changed notifications (decision record 0026).
  const sessionCache = createSessionCache();
  const stopFollowing = sessionCache.follow(db.changes('session_changed'));
  app.addHook('onClose', async () => stopFollowing());
  const sessions = createSessionsService({
    cache: sessionCache,
    db: db.kysely,
    clock: now,
    dbNow: opts.now,
    idleHours: config.SESSION_IDLE_HOURS,
    maxDays: config.SESSION_MAX_DAYS,
    ended: (ids, reason) => endSockets?.(ids, reason),
  });
  registerAuth(app, sessions, {
    adminRequiresTwoFactor: config.ADMIN_REQUIRE_2FA,
    // Bound late: the two-factor module is composed with the accounts below.
    proveAdminSession: (caller, header) => accountsServices.twoFactor.proveAdminSession(caller, header),
  });
  // The job queue (decision record 0016) is built first: mail and SMS codes, Telegram notices and
  // sellers' webhooks (decision record 0022) are sent through it. Seller API keys are built before
  // the accounts too: a password reset revokes them.
  // Lanes: sign-in codes, sellers' webhooks and Telegram each have workers of their own (decision record 0016).
  const jobs = createJobs({ db: db.kysely, log: app.log, dbNow: opts.now, lanes: { [MESSAGE_LANE]: MESSAGE_WORKERS, [WEBHOOK_LANE]: WEBHOOK_WORKERS, [TELEGRAM_LANE]: TELEGRAM_WORKERS } });
  const apiKeys = createApiKeysService({
    db: db.kysely,
    rate: { limit: Math.max(1, Math.round(DEFAULT_KEY_RATE.limit * config.RATE_LIMIT_SCALE)), windowMs: DEFAULT_KEY_RATE.windowMs },
  });
  // An operator who turns their own TOTP off leaves the operators' channel at once, as a demoted one does (with
  // ADMIN_REQUIRE_2FA; the channel's own re-check would take two seconds): bound once realtime exists.
  let leaveOperators: Realtime['leaveOperators'] | undefined;
  const totpTurnedOff = (userId: number) => {
    if (config.ADMIN_REQUIRE_2FA) leaveOperators?.(userId);
  };
  const accountsServices = composeAccounts(app, config, db, sessions, now, { jobs, apiKeys, totpTurnedOff });

  const realtime = createRealtime(app, { pgPool: db.pgPool, sessions, changes: db.changes('session_changed'), clock: now });
  endSockets = realtime.endSessions;
  leaveOperators = realtime.leaveOperators;
  const kysely = db.kysely;
  // System, wallets, requests, ledger views, audit, realtime tokens and the admin area's services.
  const audit = createAuditService({ db: kysely });
  const system = createSystemService({ db: kysely, kind: db.kind });
  const systemAdmin = createSystemAdminService({ db: kysely, audit, system });
  const wallets = createWalletsService({ db: kysely, feed: db.changes('session_changed') });
  // Codes, user variants, incidents, VIP and the Telegram bot: one bot client and one notices
  // outbox for the process; each service gets only what it uses.
  const bot = createTelegramBot(config);
  const notices = createTelegramNotices({ db: kysely, bot, jobs, log: app.log });
  notices.register();
  app.addHook('onClose', async () => notices.settle());
  const ensureWallets = { ensure: ensureWallet };
  const subscriptions = createTelegramSubscriptions({ db: kysely, bot, log: app.log, wallets: ensureWallets, chatNotices: notices.chatNotices });
  const incidents = createIncidentsService({ db: kysely });
  const webhooks = createWebhooksService({
    db: kysely,
    jobs,
    allowPrivate: config.WEBHOOK_ALLOW_PRIVATE,
    limiter: createRateLimiter(kysely, now),
    testsPerWindow: Math.max(1, Math.round(WEBHOOK_TESTS.limit * config.RATE_LIMIT_SCALE)),
  });
  registerWebhookDelivery(jobs, {
    db: kysely,
    retryBaseMs: config.WEBHOOK_RETRY_BASE_MS,
    allowPrivate: config.WEBHOOK_ALLOW_PRIVATE,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
  });
  await registerOpenApi(app);
  const userVariants = createUserVariantsService({ db: kysely, realtime, notices, wallets: ensureWallets });
  const codesLimits = scaleCodesLimits(config.RATE_LIMIT_SCALE);
  const codes = createCodesService({ db: kysely, realtime, notices, incidents, userVariants, wallets: ensureWallets, webhooks, limits: codesLimits, feed: db.changes('price_data_changed') });
  const codesAdmin = createCodesAdminService({ db: kysely, realtime, incidents, audit, webhooks });
  const vip = createVipService({ db: kysely, realtime });

  // The operators' shift (decision record 0023): claims, the operators' feed, Telegram alerts
  // through the queue, the shift report.
  const shift = createShiftService({
    db: kysely,
    realtime,
    audit,
    jobs,
    bot,
    now,
    claimTimeoutMin: config.CLAIM_TIMEOUT_MIN,
    alertAfterMin: config.OPERATOR_ALERT_MIN,
    log: app.log,
    chatGone: notices.chatGone,
    adminRequiresTwoFactor: config.ADMIN_REQUIRE_2FA,
  });
  shift.registerJobs();
  const requests = createRequestsService({ db: kysely, realtime, notices, audit, shift, webhooks, claimTimeoutMin: config.CLAIM_TIMEOUT_MIN, now });
  const ledgerAdmin = createLedgerAdminService({ db: kysely });
  const accountsAdmin = createAccountsAdminService({
    db: kysely,
    realtime,
    audit,
    wallets,
    requests,
    ledger: ledgerAdmin,
    codes: codesAdmin,
    sessions,
    // Support's TOTP rescue, and a block of a stolen account, also revoke what a thief may have left behind.
    twoFactor: accountsServices.twoFactor,
    revokeLeftovers: accountsServices.revokeLeftovers,
    shift,
  });
  const incidentsAdmin = createIncidentsAdminService({ db: kysely, audit });
  const realtimeTokens = createRealtimeService({ sessions, realtime });
  const statement = createStatementService({
    db: kysely,
    sessions,
    limiter: createRateLimiter(kysely, now),
    filesPerWindow: Math.max(1, Math.round(STATEMENT_FILES.limit * config.RATE_LIMIT_SCALE)),
  });

  // Operations: readiness (/api/ready, draining), metrics on METRICS_PORT (decision record 0020).
  const readiness = createReadiness({ db: kysely, pgPool: db.pgPool });
  const metrics = createMetrics({ db: kysely, poolStats: db.poolStats, openSockets: () => realtime.io.engine.clientsCount, log: app.log });
  let metricsPort: number | null = null;
  let markMetrics!: (port: number | null) => void;
  // Fastify runs onListen hooks after listen() has answered, and only logs their errors.
  const metricsStarted = new Promise<number | null>((r) => {
    markMetrics = r;
  });
  // Synchronous hooks on every request (decision record 0027): an async one costs a promise each.
  app.addHook('onResponse', (request, reply, done) => {
    metrics.observe(request.routeOptions.url ?? 'unmatched', request.method, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  if (config.METRICS_PORT !== undefined) {
    const port = config.METRICS_PORT;
    app.addHook('onListen', async () => {
      try {
        metricsPort = await metrics.listen(port, config.HOST);
      } finally {
        markMetrics(metricsPort);
      }
    });
    app.addHook('onClose', async () => metrics.close());
  } else markMetrics(null);
  closePromptly(app);
  await app.register(operationsRoutes({ readiness }));

  const deps: Deps = { config, db, realtime, system, readiness, metrics, jobs, metricsPort: () => metricsPort, metricsStarted };
  app.decorate('deps', deps);

  await app.register(
    systemRoutes({
      system,
      site: { brand_name: config.BRAND_NAME, support_email: config.SUPPORT_EMAIL ?? null, support_telegram: config.SUPPORT_TELEGRAM ?? null },
    }),
  );
  await app.register(accountsRoutes(accountsServices));
  await app.register(sessionsRoutes({ sessions }));
  await app.register(passwordChangeRoutes({ passwordChange: accountsServices.passwordChange }));
  await app.register(walletsRoutes({ wallets, twoFactor: accountsServices.twoFactor }));
  await app.register(requestsRoutes({ requests, twoFactor: accountsServices.twoFactor }));
  await app.register(codesRoutes({ codes, twoFactor: accountsServices.twoFactor }));
  await app.register(userVariantsRoutes({ userVariants, twoFactor: accountsServices.twoFactor }));
  await app.register(incidentsRoutes({ incidents }));
  await app.register(vipRoutes({ vip }));
  await app.register(telegramSubscriptionsRoutes({ subscriptions, twoFactor: accountsServices.twoFactor }));
  await app.register(telegramWebhookRoutes({ bot, subscriptions }));
  const webhookSetup = registerTelegramWebhookSetup({ bot, jobs, db: kysely, publicUrl: config.PUBLIC_URL, log: app.log });
  // Not with JOBS=off: a server on a restored copy would register its own URL as the bot's webhook.
  if (config.JOBS === 'on') app.addHook('onReady', async () => void (await webhookSetup.enqueue()));
  await app.register(realtimeRoutes({ realtimeTokens }));
  // The seller API (PRODUCT.md section 10): keys and webhook from the profile, /api/v1 with a key.
  await app.register(apiKeysRoutes({ apiKeys, twoFactor: accountsServices.twoFactor }));
  await app.register(v1Routes({ apiKeys, codes, wallets }));
  await app.register(webhooksRoutes({ webhooks, twoFactor: accountsServices.twoFactor }));
  await app.register(statementRoutes({ statement }));
  // Second factors (PRODUCT.md section 7).
  await app.register(twoFactorRoutes({ twoFactor: accountsServices.twoFactor }));
  await app.register(passkeysRoutes({ passkeys: accountsServices.passkeys, twoFactor: accountsServices.twoFactor, publicUrl: config.PUBLIC_URL }));
  // Admin calls: /api/admin/*, 403 to anyone but an admin.
  await app.register(requestsAdminRoutes({ requests }));
  await app.register(shiftAdminRoutes({ shift }));
  await app.register(codesAdminRoutes({ codesAdmin }));
  await app.register(systemAdminRoutes({ systemAdmin }));
  await app.register(accountsAdminRoutes({ accountsAdmin, twoFactor: accountsServices.twoFactor }));
  await app.register(incidentsAdminRoutes({ incidents, incidentsAdmin }));
  await app.register(ledgerAdminRoutes({ ledgerAdmin }));
  await app.register(auditAdminRoutes({ audit }));

  // The job queue's worker runs while the server listens. JOBS=off (a restore drill's server on a copy of
  // production's database) starts none and schedules nothing: the copy's queued webhooks (their URLs and
  // secrets are in it), Telegram notices and mail and SMS codes stay where they are, unsent; jobs that
  // calls enqueue meanwhile wait in the copy.
  schedulePurge(jobs, createPurge({ db: db.kysely }));
  scheduleSessionSweep(jobs, sessions);
  if (config.JOBS === 'on') app.addHook('onListen', async () => jobs.start());
  else app.addHook('onListen', async () => void app.log.warn('JOBS=off: this process runs no job (webhooks, Telegram, mail and SMS are not sent)'));
  // Stopping starts when closing starts, not after the last request is served (onClose): a slow request would
  // keep the workers claiming new jobs until main.ts's exit deadline, which then cuts them off without handing
  // back. stop() stops claiming at once; its wait for the jobs in hand (up to 5 s) is awaited in onClose, so it
  // does not hold up the listener's close and the other preClose hooks.
  let jobsStopped: Promise<void> | null = null;
  app.addHook('preClose', async () => {
    jobsStopped = jobs.stop();
  });
  app.addHook('onClose', async () => jobsStopped ?? jobs.stop());

  await registerWeb(app, config.WEB_DIST ?? DEFAULT_WEB_DIST, config.BRAND_NAME);
  // Before the server stops accepting: open sockets would keep its close waiting (they reconnect
  // to another process through the balancer).
  app.addHook('preClose', async () => {
    realtime.io.engine.close();
  });
  app.addHook('onClose', async () => realtime.close());
  return app;
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
