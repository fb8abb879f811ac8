import { statement, statementCsv, statementDownloadToken } from '@adena/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireSignedIn } from '../../plugins/auth';
import type { StatementService } from './statement.service';

/**
 * The player's statement (PRODUCT.md section 11): a page of JSON, the CSV file, and the one-time
 * token that lets a plain link fetch the file. The CSV accepts the bearer or `?token=`.
 */
export const statementRoutes =
  ({ statement: service }: { statement: StatementService }): FastifyPluginAsyncZod =>
  async (app) => {
    const authFirst = { onRequest: async (request: FastifyRequest) => void (await requireSignedIn(request)) };

    app.get(statement.path, { ...authFirst, schema: { querystring: statement.query, response: { 200: statement.response } } }, async (request) =>
      service.page(await requireSignedIn(request), request.query),
    );

    app.post(
      statementDownloadToken.path,
      { ...authFirst, schema: { body: statementDownloadToken.body, response: { 200: statementDownloadToken.response } } },
      async (request) => {
        const { token, expiresAt } = await service.issueDownloadToken(await requireSignedIn(request));
        return { token, expires_at: expiresAt.toISOString() };
      },
    );

    // No HEAD: Fastify answers HEAD through the GET handler, which would spend a one-time link on a
    // client that only looks before it fetches (a download manager, a link preview).
    app.get(statementCsv.path, { exposeHeadRoute: false, schema: { querystring: statementCsv.query } }, async (request, reply) => {
      const user = await service.csvUser(() => requireSignedIn(request), request.query.token);
      const { body, fileName } = await service.csv(user, request.query);
      return reply
        .header('Content-Type', 'text/csv; charset=utf-8')
        .header('Content-Disposition', `attachment; filename="${fileName}"`)
        .header('Cache-Control', 'no-store')
        .send(body);
    });
  };
