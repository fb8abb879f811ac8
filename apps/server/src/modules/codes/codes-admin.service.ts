import type { AdminCode, AdminCodeIncident, AdminLedgerEntry } from '@adena/contract';
import { type Kysely, sql } from 'kysely';
import type { Database } from '../../db/schema';
import { AppError } from '../../lib/app-error';
import { toNumber } from '../../lib/money';
import { maskSert, normalizeSert } from '../../lib/sert';
import type { AuthUser } from '../../plugins/auth';
import type { Realtime } from '../../plugins/realtime';
import { post, serviceAccount, walletAccount } from '../ledger/ledger.service';
import type { CodeRow } from './codes.repository';

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);
const person = (id: number, name: string | null, email: string | null) => ({ id, name: name ?? '', email });

/** Operators' side of codes: the incident list, a code's whole story, cancel with refund (audited). */
export function createCodesAdminService({ db, realtime }: { db: Kysely<Database>; realtime: Pick<Realtime, 'publish'> }) {
  async function codeView(q: Kysely<Database>, code: CodeRow, reveal: boolean): Promise<AdminCode> {
    const people = await q
      .selectFrom('users')
      .select(['id', 'name', 'email'])
      .where('id', 'in', [code.user_id, ...(code.activated_by ? [code.activated_by] : [])])
      .execute();
    const byId = new Map(people.map((p) => [p.id, p]));
    const server = await q.selectFrom('gamesservers').select('name').where('id', '=', code.gamesserver_id).executeTakeFirstOrThrow();
    const issuer = byId.get(code.user_id)!;
    const activator = code.activated_by ? byId.get(code.activated_by) : undefined;
    return {
      id: code.id,
      sert: reveal ? code.sert : maskSert(code.sert),
      sert_masked: !reveal,
      status: code.status,
      gamesserver_id: code.gamesserver_id,
      gamesserver: server.name,
      nominal: toNumber(code.nominal),
      fee: toNumber(code.fee),
      price: toNumber(code.price),
      pricekod_id: code.pricekod_id,
      issuer: person(issuer.id, issuer.name, issuer.email),
      activated_by: activator ? person(activator.id, activator.name, activator.email) : null,
      cancelled_by: code.cancelled_by,
      created_at: iso(code.created_at)!,
      activated_at: iso(code.activated_at),
      cancelled_at: iso(code.cancelled_at),
    };
  }

  function incidentsQuery(q: Kysely<Database>) {
    return q
      .selectFrom('code_incidents as i')
      .innerJoin('codes as c', 'c.id', 'i.code_id')
      .innerJoin('gamesservers as g', 'g.id', 'i.gamesserver_id')
      .innerJoin('users as owner', 'owner.id', 'i.user_id')
      .innerJoin('users as tried', 'tried.id', 'i.attempted_by');
  }

  async function incidentRows(filter: { codeId?: number; state?: 'open' | 'acknowledged' | 'all'; gamesserverId?: number; userId?: number }, page?: { limit: number; offset: number }) {
    let q = incidentsQuery(db);
    if (filter.codeId !== undefined) q = q.where('i.code_id', '=', filter.codeId);
    if (filter.state === 'open') q = q.where('i.acknowledged_at', 'is', null);
    if (filter.state === 'acknowledged') q = q.where('i.acknowledged_at', 'is not', null);
    if (filter.gamesserverId !== undefined) q = q.where('i.gamesserver_id', '=', filter.gamesserverId);
    if (filter.userId !== undefined) q = q.where('i.user_id', '=', filter.userId);
    const total = await q.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
    let rows = q
      .select([
        'i.id',
        'i.code_id',
        'i.gamesserver_id',
        'g.name as gamesserver',
        'c.nominal',
        'c.sert',
        'c.status as code_status',
        'i.attempt_ip',
        'i.acknowledged_at',
        'i.created_at',
        'owner.id as owner_id',
        'owner.name as owner_name',
        'owner.email as owner_email',
        'tried.id as tried_id',
        'tried.name as tried_name',
        'tried.email as tried_email',
      ])
      .orderBy('i.id', 'desc');
    if (page) rows = rows.limit(page.limit).offset(page.offset);
    const data: AdminCodeIncident[] = (await rows.execute()).map((r) => ({
      id: r.id,
      code_id: r.code_id,
      gamesserver_id: r.gamesserver_id,
      gamesserver: r.gamesserver,
      nominal: toNumber(r.nominal),
      sert: maskSert(r.sert),
      code_status: r.code_status,
      issuer: person(r.owner_id, r.owner_name, r.owner_email),
      attempted_by: person(r.tried_id, r.tried_name, r.tried_email),
      attempt_ip: r.attempt_ip,
      acknowledged_at: iso(r.acknowledged_at),
      created_at: iso(r.created_at)!,
    }));
    return { data, total: Number(total.n) };
  }

  async function ledgerOf(code: CodeRow): Promise<AdminLedgerEntry[]> {
    const rows = await sql<{
      id: bigint;
      transaction_id: bigint;
      kind: string;
      ref_type: string | null;
      ref_id: bigint | null;
      actor_user_id: number | null;
      account_id: number;
      key: string;
      gamesserver_id: number;
      currency_type: number;
      amount: bigint;
      balance_after: bigint | null;
      created_at: Date;
    }>`
      SELECT e.id, e.transaction_id, t.kind, t.ref_type, t.ref_id, t.actor_user_id, e.account_id, a.key,
             a.gamesserver_id, a.currency_type, e.amount, e.balance_after, e.created_at
      FROM ledger_transactions t
      JOIN ledger_entries e ON e.transaction_id = t.id
      JOIN ledger_accounts a ON a.id = e.account_id
      WHERE (t.ref_type = 'code' AND t.ref_id = ${code.id})
         OR (${code.pricekod_id}::integer IS NOT NULL AND t.ref_type = 'pricekod' AND t.ref_id = ${code.pricekod_id}::integer)
      ORDER BY e.id
      LIMIT 500`.execute(db);
    return rows.rows.map((r) => ({
      id: toNumber(BigInt(r.id)),
      transaction_id: toNumber(BigInt(r.transaction_id)),
      transaction_kind: r.kind,
      ref_type: r.ref_type,
      ref_id: r.ref_id === null ? null : toNumber(BigInt(r.ref_id)),
      actor_user_id: r.actor_user_id,
      account_id: r.account_id,
      account_key: r.key,
      gamesserver_id: r.gamesserver_id,
      currency_type: Number(r.currency_type) as 1 | 2,
      amount: toNumber(BigInt(r.amount)),
      balance_after: r.balance_after === null ? null : toNumber(BigInt(r.balance_after)),
      created_at: iso(r.created_at)!,
    }));
  }

  return {
    listIncidents: (q: { page: number; per_page: number; state: 'open' | 'acknowledged' | 'all'; gamesserver_id?: number; user_id?: number }) =>
      incidentRows(
        { state: q.state, gamesserverId: q.gamesserver_id, userId: q.user_id },
        { limit: q.per_page, offset: (q.page - 1) * q.per_page },
      ),

    async lookup(q: { sert?: string; id?: number }) {
      const sert = q.sert !== undefined ? normalizeSert(q.sert) : null;
      const code =
        q.id !== undefined
          ? await db.selectFrom('codes').selectAll().where('id', '=', q.id).executeTakeFirst()
          : sert
            ? await db.selectFrom('codes').selectAll().where('sert', '=', sert).executeTakeFirst()
            : undefined;
      if (!code) throw new AppError('NOT_FOUND', { message: 'Код не найден' });
      const attempts = await db
        .selectFrom('code_attempts as a')
        .innerJoin('users as u', 'u.id', 'a.user_id')
        .select(['a.id', 'a.ip', 'a.result', 'a.created_at', 'u.id as user_id', 'u.name', 'u.email'])
        .where('a.code_id', '=', code.id)
        .orderBy('a.id')
        .limit(500)
        .execute();
      return {
        // An operator who typed the sert already knows it; by id it stays masked.
        code: await codeView(db, code, q.id === undefined),
        attempts: attempts.map((a) => ({
          id: toNumber(BigInt(a.id)),
          user: person(a.user_id, a.name, a.email),
          ip: a.ip,
          result: a.result,
          created_at: iso(a.created_at)!,
        })),
        incidents: (await incidentRows({ codeId: code.id })).data,
        ledger: await ledgerOf(code),
      };
    },

    /** Refunds the price to the issuer's paying wallet, exactly like the issuer's own cancel; audited. */
    async cancel(admin: AuthUser, id: number, reason: string) {
      const out = await db.transaction().execute(async (trx) => {
        const code = await trx
          .updateTable('codes')
          .set({ status: 'cancelled', cancelled_by: admin.id, cancelled_at: sql`now()` })
          .where('id', '=', id)
          .where('status', '=', 'active')
          .returningAll()
          .executeTakeFirst();
        if (!code) {
          const existing = await trx.selectFrom('codes').select('status').where('id', '=', id).executeTakeFirst();
          if (!existing) throw new AppError('NOT_FOUND', { message: 'Код не найден' });
          throw new AppError('CODE_NOT_ACTIVE', {
            message: existing.status === 'activated' ? 'Код уже активирован' : 'Код уже отменён',
            body: { status: existing.status },
          });
        }
        const posted = await post(trx, {
          kind: 'code_cancel_admin',
          refType: 'code',
          refId: code.id,
          actorUserId: admin.id,
          legs: [
            { account: walletAccount(code.wallet_id, code.gamesserver_id, 1), amount: code.price },
            { account: serviceAccount('escrow', code.gamesserver_id, 1), amount: -code.nominal },
            { account: serviceAccount('fees', code.gamesserver_id, 1), amount: -code.fee },
          ],
        });
        await trx
          .insertInto('admin_audit_log')
          .values({
            admin_id: admin.id,
            action: 'code.cancel',
            entity_type: 'code',
            entity_id: String(code.id),
            before: JSON.stringify({ status: 'active' }),
            after: JSON.stringify({ status: 'cancelled', reason, refunded: code.price.toString(), wallet_id: code.wallet_id }),
          })
          .execute();
        return { code, wallets: posted.wallets };
      });
      const c = out.code;
      for (const w of out.wallets) {
        realtime.publish(c.user_id, 'balance', { gamesserver_id: w.gamesserverId, balance: toNumber(w.balance), balance_second: toNumber(w.balanceSecond) });
      }
      realtime.publish(c.user_id, 'code_status', { gamesserver_id: c.gamesserver_id, code_id: c.id, code_status: 'cancelled' });
      realtime.publish(c.user_id, 'del_sert', { gamesserver_id: c.gamesserver_id, del_sert: c.id });
      return { success: await codeView(db, c, false), summa: toNumber(c.price) };
    },
  };
}
