import {
  type AdminGamesserver,
  type AdminLedgerEntry,
  type AdminUser,
  GamesserverInputSchema,
  type GamesserverInput,
  type LedgerTotalsRow,
  zodIssuesToErrors,
} from '@adena/contract';
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../db/schema';
import { AppError } from '../../lib/app-error';
import { toNumber } from '../../lib/money';
import type { AuthUser } from '../../plugins/auth';
import type { Realtime } from '../../plugins/realtime';
import type { ServerList } from '../system/server-list';
import { toGamesserver } from '../system/system.mapper';
import { toUser } from '../users/user.mapper';
import { type AuditFilters, createAdminRepository, type ServerRow, type ServerValues, type UserSearch } from './admin.repository';
import { toRequest } from '../requests/requests.service';

export interface AdminServiceDeps {
  db: Kysely<Database>;
  realtime: Realtime;
  serverList: ServerList;
  clock?: () => Date;
}

const DETAIL_LIMIT = 50;

export function toAdminGamesserver(s: ServerRow): AdminGamesserver {
  const { median_processing_minutes: _, ...pub } = toGamesserver(s);
  return { ...pub, active: s.active, sort_order: s.sort_order, created_at: s.created_at.toISOString(), updated_at: s.updated_at.toISOString() };
}

export function toAdminUser(u: AuthUser, now = new Date()): AdminUser {
  return {
    ...toUser(u, now),
    blocked_at: u.blocked_at ? u.blocked_at.toISOString() : null,
    telegram_id: u.telegram_id === null ? null : String(u.telegram_id),
    discord_id: u.discord_id,
  };
}

/** What the audit log keeps of a user: the fields admins change. */
const userAuditView = (u: AuthUser) => ({
  admin: u.admin,
  vip_until: u.vip_until ? u.vip_until.toISOString() : null,
  blocked_at: u.blocked_at ? u.blocked_at.toISOString() : null,
});

const toServerValues = (s: GamesserverInput): ServerValues => ({
  name: s.name,
  active: s.active,
  sort_order: s.sort_order,
  cashier_nick: s.cashier_nick,
  limits: JSON.stringify(s.limits),
  code_fee_bp: s.code_fee_bp,
  vip_code_fee_bp: s.vip_code_fee_bp,
  min_nominal: s.min_nominal,
  // Shown in this order to players.
  standard_nominals: JSON.stringify([...s.standard_nominals].sort((a, b) => a - b)),
  vip_price: s.vip_price,
  vip_period_days: s.vip_period_days,
});

const nameTaken = () =>
  new AppError('CONFLICT', { message: 'Сервер с таким названием уже есть', errors: { name: ['Сервер с таким названием уже есть'] } });
const isUniqueViolation = (err: unknown) => (err as { code?: unknown } | null)?.code === '23505';

const toEntry = (e: {
  id: bigint;
  transaction_id: bigint;
  transaction_kind: string;
  ref_type: string | null;
  ref_id: bigint | null;
  actor_user_id: number | null;
  account_id: number;
  account_key: string;
  gamesserver_id: number;
  currency_type: 1 | 2;
  amount: bigint;
  balance_after: bigint | null;
  created_at: Date;
}): AdminLedgerEntry => ({
  id: toNumber(e.id),
  transaction_id: toNumber(e.transaction_id),
  transaction_kind: e.transaction_kind,
  ref_type: e.ref_type,
  ref_id: e.ref_id === null ? null : toNumber(e.ref_id),
  actor_user_id: e.actor_user_id,
  account_id: e.account_id,
  account_key: e.account_key,
  gamesserver_id: e.gamesserver_id,
  currency_type: Number(e.currency_type) as 1 | 2,
  amount: toNumber(e.amount),
  balance_after: e.balance_after === null ? null : toNumber(e.balance_after),
  created_at: e.created_at.toISOString(),
});

/**
 * The admin area's rules. Every change is one transaction that writes the record and its
 * audit-log row together (before and after), so the log never misses a committed change;
 * realtime events and cache invalidation happen only after the commit.
 */
export function createAdminService(deps: AdminServiceDeps) {
  const repo = createAdminRepository(deps.db);
  const db = deps.db;
  const now = deps.clock ?? (() => new Date());

  /** Admin, VIP and block changes share this shape: lock, check, write, audit, then after-commit effects. */
  async function changeUser(
    admin: AuthUser,
    id: number,
    action: string,
    change: (u: AuthUser) => { admin?: boolean; vip_until?: Date | null; blocked_at?: Date | null } | null,
    extra: { reason?: string; endTokens?: boolean } = {},
  ) {
    const result = await db.transaction().execute(async (trx) => {
      const before = await repo.lockUser(trx, id);
      if (!before) throw new AppError('NOT_FOUND', { message: 'Пользователь не найден' });
      const set = change(before);
      if (!set) return { user: before, changed: false };
      const after = await repo.updateUser(trx, id, set);
      if (extra.endTokens) await repo.endTokens(trx, id);
      await repo.writeAudit(trx, {
        adminId: admin.id,
        action,
        entityType: 'user',
        entityId: id,
        before: userAuditView(before),
        after: { ...userAuditView(after), ...(extra.reason ? { reason: extra.reason } : {}) },
      });
      return { user: after, changed: true };
    });
    return result;
  }

  return {
    // ── game servers ──
    async listServers() {
      return (await repo.listServers()).map(toAdminGamesserver);
    },

    async createServer(admin: AuthUser, input: GamesserverInput) {
      const row = await db
        .transaction()
        .execute(async (trx) => {
          if (await repo.serverNameTaken(trx, input.name)) throw nameTaken();
          const created = await repo.insertServer(trx, toServerValues(input));
          await repo.writeAudit(trx, {
            adminId: admin.id,
            action: 'gamesserver.create',
            entityType: 'gamesserver',
            entityId: created.id,
            before: null,
            after: toAdminGamesserver(created),
          });
          return created;
        })
        .catch((err: unknown) => {
          throw isUniqueViolation(err) ? nameTaken() : err;
        });
      deps.serverList.invalidate();
      return toAdminGamesserver(row);
    },

    async updateServer(admin: AuthUser, id: number, patch: Partial<GamesserverInput>) {
      const result = await db
        .transaction()
        .execute(async (trx) => {
          const current = await repo.lockServer(trx, id);
          if (!current) throw new AppError('NOT_FOUND', { message: 'Игровой сервер не найден' });
          const before = toAdminGamesserver(current);
          // The cross-field rules (min ≤ max, VIP fee ≤ fee, nominals ≥ minimum) hold for the merged record.
          const merged = GamesserverInputSchema.safeParse({ ...before, ...patch });
          if (!merged.success) throw new AppError('VALIDATION', { errors: zodIssuesToErrors(merged.error.issues) });
          if (merged.data.name.toLowerCase() !== current.name.toLowerCase() && (await repo.serverNameTaken(trx, merged.data.name, id))) {
            throw nameTaken();
          }
          const updated = await repo.updateServer(trx, id, toServerValues(merged.data));
          const after = toAdminGamesserver(updated);
          await repo.writeAudit(trx, {
            adminId: admin.id,
            action: 'gamesserver.update',
            entityType: 'gamesserver',
            entityId: id,
            before: withoutTimes(before),
            after: withoutTimes(after),
          });
          return after;
        })
        .catch((err: unknown) => {
          throw isUniqueViolation(err) ? nameTaken() : err;
        });
      // Players' GET /api/gamesservers answers the change at once in this process.
      deps.serverList.invalidate();
      return result;
    },

    // ── users ──
    async searchUsers(s: UserSearch) {
      const { rows, total } = await repo.searchUsers(s);
      const t = now();
      return { data: rows.map((u) => toAdminUser(u, t)), total };
    },

    async userDetails(id: number) {
      const user = await repo.findUser(db, id);
      if (!user) throw new AppError('NOT_FOUND', { message: 'Пользователь не найден' });
      const [wallets, requests, ledger, codes] = await Promise.all([
        repo.userWallets(id),
        repo.userRequests(id, DETAIL_LIMIT),
        repo.userLedger(id, DETAIL_LIMIT),
        userCodes(id),
      ]);
      return {
        user: toAdminUser(user, now()),
        wallets: wallets.map((w) => ({
          id: w.id,
          gamesserver_id: w.gamesserver_id,
          gamesserver: w.gamesserver,
          nick: w.nick,
          balance: toNumber(w.balance),
          balance_second: toNumber(w.balance_second),
          new_message: w.new_message,
          telegram_price: w.telegram_price === null ? null : toNumber(w.telegram_price),
          accounts: { '1': w.account_1 ?? null, '2': w.account_2 ?? null },
        })),
        requests: requests.map((r) => ({ ...toRequest(r), hidden: r.hidden_at !== null })),
        codes,
        ledger: ledger.map(toEntry),
      };
    },

    async setAdmin(admin: AuthUser, id: number, value: boolean) {
      if (id === admin.id) {
        throw new AppError('CONFLICT', { message: 'Нельзя менять свои собственные права администратора' });
      }
      const { user } = await changeUser(admin, id, value ? 'user.admin_grant' : 'user.admin_revoke', (u) =>
        u.admin === value ? null : { admin: value },
      );
      return toAdminUser(user, now());
    },

    async setVip(admin: AuthUser, id: number, until: string | null) {
      const date = until === null ? null : new Date(until);
      if (date && date <= now()) {
        throw new AppError('VALIDATION', { errors: { vip_until: ['Дата окончания VIP должна быть в будущем'] } });
      }
      const { user } = await changeUser(admin, id, date ? 'user.vip_grant' : 'user.vip_revoke', (u) =>
        (u.vip_until?.getTime() ?? null) === (date?.getTime() ?? null) ? null : { vip_until: date },
      );
      return toAdminUser(user, now());
    },

    /**
     * Blocks the account and ends every token in the same transaction, so no request after the
     * commit is answered for it (auth also refuses blocked users on every lookup). Open pages
     * learn it at once: `session_ended` on the user's channel, then their sockets are dropped.
     */
    async block(admin: AuthUser, id: number, reason: string) {
      if (id === admin.id) throw new AppError('CONFLICT', { message: 'Нельзя заблокировать самого себя' });
      const { user, changed } = await changeUser(admin, id, 'user.block', (u) => (u.blocked_at ? null : { blocked_at: now() }), {
        reason,
        endTokens: true,
      });
      if (changed) {
        deps.realtime.publish(id, 'session_ended', { reason: 'blocked' });
        deps.realtime.disconnectUser(id);
      }
      return toAdminUser(user, now());
    },

    async unblock(admin: AuthUser, id: number) {
      const { user } = await changeUser(admin, id, 'user.unblock', (u) => (u.blocked_at ? { blocked_at: null } : null));
      return toAdminUser(user, now());
    },

    // ── incidents ──
    async resolveIncident(admin: AuthUser, incidentId: number, note: string) {
      const resolution = await db.transaction().execute(async (trx) => {
        if (!(await incidentExists(trx, incidentId))) throw new AppError('NOT_FOUND', { message: 'Инцидент не найден' });
        const inserted = await repo.insertResolution(trx, { incidentId, adminId: admin.id, note });
        if (!inserted) throw new AppError('CONFLICT', { message: 'Инцидент уже закрыт' });
        await repo.writeAudit(trx, {
          adminId: admin.id,
          action: 'code_incident.resolve',
          entityType: 'code_incident',
          entityId: incidentId,
          before: null,
          after: { note },
        });
        return inserted;
      });
      return {
        incident_id: toNumber(resolution.incident_id),
        note: resolution.note,
        resolved_by: resolution.admin_id,
        resolved_by_name: admin.name,
        resolved_at: resolution.resolved_at.toISOString(),
      };
    },

    async incidentResolutions(ids: number[]) {
      const rows = await repo.resolutions([...new Set(ids)]);
      return rows.map((r) => ({
        incident_id: toNumber(r.incident_id),
        note: r.note,
        resolved_by: r.admin_id,
        resolved_by_name: r.admin_name,
        resolved_at: r.resolved_at.toISOString(),
      }));
    },

    // ── ledger ──
    async ledgerTotals(): Promise<{ data: LedgerTotalsRow[]; computed_at: string }> {
      const [servers, service, wallets] = await Promise.all([repo.listServers(), repo.serviceTotals(), repo.walletTotals()]);
      const data: LedgerTotalsRow[] = [];
      for (const s of servers) {
        for (const currency of [1, 2] as const) {
          const mine = service.filter((a) => a.gamesserver_id === s.id && Number(a.currency_type) === currency);
          const of = (kind: 'cash' | 'payout' | 'escrow' | 'fees') => mine.find((a) => a.kind === kind);
          const w = wallets.find((x) => x.gamesserver_id === s.id);
          const walletSum = w ? (currency === 1 ? w.balance : w.balance_second) : 0n;
          const payout = of('payout')?.total ?? 0n;
          const escrow = of('escrow')?.total ?? 0n;
          data.push({
            gamesserver_id: s.id,
            gamesserver: s.name,
            currency_type: currency,
            wallets: toNumber(walletSum),
            payout: toNumber(payout),
            escrow: toNumber(escrow),
            fees: toNumber(of('fees')?.total ?? 0n),
            cash: toNumber(of('cash')?.total ?? 0n),
            owed: toNumber(walletSum + payout + escrow),
            accounts: {
              cash: of('cash')?.account_id ?? null,
              payout: of('payout')?.account_id ?? null,
              escrow: of('escrow')?.account_id ?? null,
              fees: of('fees')?.account_id ?? null,
            },
          });
        }
      }
      return { data, computed_at: now().toISOString() };
    },

    async accountEntries(accountId: number, page: number, perPage: number) {
      const account = await repo.account(accountId);
      if (!account) throw new AppError('NOT_FOUND', { message: 'Счёт не найден' });
      const { rows, total } = await repo.accountEntries(accountId, page, perPage);
      return {
        account: {
          id: account.id,
          key: account.key,
          kind: account.kind,
          gamesserver_id: account.gamesserver_id,
          gamesserver: account.gamesserver,
          currency_type: Number(account.currency_type) as 1 | 2,
          wallet_id: account.wallet_id,
          user_id: account.user_id ?? null,
          balance: toNumber(account.balance),
        },
        data: rows.map(toEntry),
        total,
      };
    },

    // ── audit log ──
    async auditLog(f: AuditFilters) {
      const { rows, total } = await repo.auditLog(f);
      return {
        data: rows.map((r) => ({
          id: toNumber(r.id),
          admin_id: r.admin_id,
          admin_name: r.admin_name,
          admin_email: r.admin_email,
          action: r.action,
          entity_type: r.entity_type,
          entity_id: r.entity_id,
          before: r.before ?? null,
          after: r.after ?? null,
          created_at: r.created_at.toISOString(),
        })),
        total,
      };
    },

    // ── dashboard ──
    async dashboard() {
      const t = now();
      const [pending, oldest, medians, servers] = await Promise.all([
        repo.pendingSummary(),
        repo.oldestPending(),
        repo.medians(),
        repo.listServers(),
      ]);
      const minutes = (seconds: number | null) => (seconds === null ? null : Math.max(1, Math.round(Number(seconds) / 60)));
      const overall = medians.find((m) => m.gamesserver_id === null);
      return {
        pending: pending.map((p) => ({
          gamesserver_id: p.gamesserver_id,
          gamesserver: p.gamesserver,
          currency_type: Number(p.currency_type) as 1 | 2,
          type: p.type,
          count: toNumber(BigInt(p.n)),
          sum: toNumber(BigInt(p.s)),
          oldest_created_at: new Date(p.oldest).toISOString(),
        })),
        oldest: oldest
          ? {
              id: oldest.id,
              gamesserver_id: oldest.gamesserver_id,
              gamesserver: oldest.gamesserver,
              type: oldest.type,
              currency_type: Number(oldest.currency_type) as 1 | 2,
              amount: toNumber(oldest.amount),
              created_at: oldest.created_at.toISOString(),
              waiting_minutes: Math.max(0, Math.floor((t.getTime() - oldest.created_at.getTime()) / 60_000)),
            }
          : null,
        medians: servers
          .filter((s) => s.active)
          .map((s) => {
            const m = medians.find((x) => x.gamesserver_id === s.id);
            return { gamesserver_id: s.id, gamesserver: s.name, minutes: minutes(m?.seconds ?? null), processed: m ? toNumber(BigInt(m.n)) : 0 };
          }),
        median_all_minutes: minutes(overall?.seconds ?? null),
        processed_24h: overall ? toNumber(BigInt(overall.n)) : 0,
      };
    },
  };

  /** The codes module owns incidents; read inside the caller's transaction (PGlite has one connection). */
  async function incidentExists(trx: Transaction<Database>, id: number) {
    return Boolean(await trx.selectFrom('code_incidents').select('id').where('id', '=', id).executeTakeFirst());
  }

  /** The newest codes the user issued (the codes module's table, read-only here). */
  async function userCodes(userId: number) {
    const rows = await repo.userCodes(userId, DETAIL_LIMIT);
    return rows.map((c) => ({
      id: c.id,
      gamesserver_id: c.gamesserver_id,
      nominal: toNumber(c.nominal),
      price: toNumber(c.price),
      status: c.status,
      created_at: c.created_at.toISOString(),
      activated_at: c.activated_at ? c.activated_at.toISOString() : null,
    }));
  }
}

const withoutTimes = ({ created_at: _c, updated_at: _u, ...rest }: AdminGamesserver) => rest;

export type AdminService = ReturnType<typeof createAdminService>;
