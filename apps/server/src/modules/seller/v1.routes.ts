import { v1Balance, v1CancelCode, v1GetCode, v1IssueCodes, v1ListCodes } from '@adena/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AppError } from '../../lib/app-error';
import { idempotencyKey } from '../../lib/idempotency';
import { bearerOf } from '../../lib/tokens';
import { clientOf } from '../../plugins/auth';
import type { CodesService } from '../codes/codes.service';
import type { WalletsService } from '../wallets/wallets.service';
import type { ApiKeysService, KeyCaller } from './api-keys.service';

declare module 'fastify' {
  interface FastifyRequest {
    keyCaller?: KeyCaller;
  }
}

export interface V1Deps {
  apiKeys: ApiKeysService;
  codes: Pick<CodesService, 'issueBatch' | 'listOwn' | 'getOwn' | 'cancelOwn'>;
  wallets: Pick<WalletsService, 'balanceOn'>;
}

/**
 * The seller API under /api/v1: an API key only (an access token is refused), checked before the
 * body; each call counted against the key's rate and written to the key's call log with its
 * answer's status. The codes are the app's codes, issued and cancelled by the codes module.
 */
export const v1Routes =
  ({ apiKeys, codes, wallets }: V1Deps): FastifyPluginAsyncZod =>
  async (app) => {
    /** Each key call is written once: with its answer's status, or 499 when the client hung up before it. */
    const logged = new WeakSet<FastifyRequest>();
    const logCall = async (request: FastifyRequest, statusCode: number) => {
      const c = request.keyCaller;
      if (!c || logged.has(request)) return;
      logged.add(request);
      const path = request.routeOptions.url ?? request.url.split('?')[0]!;
      await apiKeys
        .logCall({ keyId: c.apiKeyId, userId: c.user.id, method: request.method, path, statusCode, ip: c.ip })
        .catch((err: unknown) => request.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'api key call log not written'));
    };
    app.addHook('onRequest', async (request, reply) => {
      request.keyCaller = await apiKeys.callerOfKey(bearerOf(request.headers.authorization), clientOf(request));
      await apiKeys.checkRate(request.keyCaller);
      // A client that hangs up (an integrator's timeout) gets no answer and Fastify no onResponse, but
      // the call may still issue or cancel codes: it is logged at once, so support sees which key made it.
      reply.raw.once('close', () => {
        if (!reply.raw.writableFinished) void logCall(request, 499);
      });
    });
    app.addHook('onResponse', async (request, reply) => logCall(request, reply.statusCode));
    const caller = (r: FastifyRequest) => r.keyCaller!;

    app.get(v1Balance.path, { schema: { querystring: v1Balance.query, response: { 200: v1Balance.response } } }, async (r) =>
      wallets.balanceOn(caller(r), r.query.gamesserver_id),
    );
    app.post(v1IssueCodes.path, { schema: { body: v1IssueCodes.body, response: { 200: v1IssueCodes.response } } }, async (r) => {
      const idem = idempotencyKey(r);
      if (!idem) throw new AppError('VALIDATION', { errors: { 'Idempotency-Key': ['Укажите заголовок Idempotency-Key: с ним повтор запроса не выпустит коды дважды'] } });
      const b = r.body;
      return codes.issueBatch(caller(r), { gameServerId: b.gamesserver_id, nominal: b.nominal, count: b.count, externalId: b.external_id }, idem);
    });
    app.get(v1ListCodes.path, { schema: { querystring: v1ListCodes.query, response: { 200: v1ListCodes.response } } }, async (r) =>
      codes.listOwn(caller(r), { status: r.query.status, gameServerId: r.query.gamesserver_id, olderThan: r.query.older_than, page: r.query.page }),
    );
    app.get(v1GetCode.path, { schema: { params: v1GetCode.params, response: { 200: v1GetCode.response } } }, async (r) => codes.getOwn(caller(r), r.params.id));
    app.delete(v1CancelCode.path, { schema: { params: v1CancelCode.params, response: { 200: v1CancelCode.response } } }, async (r) =>
      codes.cancelOwn(caller(r), r.params.id, idempotencyKey(r)),
    );
  };
