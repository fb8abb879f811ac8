import { saveNick, wallets } from '@adena/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../../app';
import { toNumber } from '../../lib/money';
import { requireUser } from '../../plugins/auth';
import { ensureWallet } from './wallets.repository';

/** The caller's wallets and the nick of their character on a server. */
export const walletsRoutes =
  (deps: Deps): FastifyPluginAsyncZod =>
  async (app) => {
    const db = deps.db.kysely;
    const authFirst = { onRequest: async (request: FastifyRequest) => void (await requireUser(request)) };

    app.get(wallets.path, { ...authFirst, schema: { response: { 200: wallets.response } } }, async (request) => {
      const user = await requireUser(request);
      const rows = await db
        .selectFrom('wallets as w')
        .innerJoin('gamesservers as g', 'g.id', 'w.gamesserver_id')
        .select(['w.id', 'w.gamesserver_id', 'g.name as gamesserver', 'w.nick', 'w.balance', 'w.balance_second', 'w.new_message'])
        .where('w.user_id', '=', user.id)
        .where('g.active', '=', true)
        .orderBy('g.sort_order')
        .orderBy('g.id')
        .execute();
      return rows.map((w) => ({ ...w, balance: toNumber(w.balance), balance_second: toNumber(w.balance_second) }));
    });

    app.post(saveNick.path, { ...authFirst, schema: { body: saveNick.body, response: { 200: saveNick.response } } }, async (request) => {
      const user = await requireUser(request);
      const wallet = await ensureWallet(db, user.id, request.body.gamesserver_id);
      await db.updateTable('wallets').set({ nick: request.body.nick }).where('id', '=', wallet.id).where('user_id', '=', user.id).execute();
      return { success: request.body.nick };
    });
  };
