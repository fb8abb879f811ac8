import { type AdminGamesserver, adenaText, type GamesserverInput, GamesserverInputSchema, zodIssuesToErrors } from '@adena/contract';
import type { Db } from '../../db/client';
import { AppError } from '../../lib/app-error';
import { feeOf, MAX_SAFE_AMOUNT } from '../../lib/money';
import type { AuditRecorder } from '../audit/audit.service';
import type { Caller } from '../sessions/caller';
import { toAdminGamesserver, toGameServerValues } from './system.mapper';
import { createSystemRepository, type GameServerValues } from './system.repository';
import type { SystemService } from './system.service';

export interface SystemAdminServiceDeps {
  db: Db['kysely'];
  audit: AuditRecorder;
  system: Pick<SystemService, 'gameServersChanged'>;
}

const nameTaken = () =>
  new AppError('CONFLICT', { message: 'Сервер с таким названием уже есть', errors: { name: ['Сервер с таким названием уже есть'] } });
const isUniqueViolation = (err: unknown) => (err as { code?: unknown } | null)?.code === '23505';
/**
 * Every standard nominal's price at the server's fee must be a JSON number: price data shows it to
 * everyone, so one that does not fit would break the page for all players. The VIP fee is never
 * above the fee, so the fee's price is the largest. The fee maths is the server's, hence here and
 * not in the contract's schema; it runs on the merged record, so a change of the fee alone is checked too.
 */
function checkStandardPrices(s: Pick<GamesserverInput, 'standard_nominals' | 'code_fee_bp'>) {
  const tooBig = s.standard_nominals.filter((n) => BigInt(n) + feeOf(BigInt(n), s.code_fee_bp) > MAX_SAFE_AMOUNT);
  if (tooBig.length === 0) return;
  throw new AppError('VALIDATION', {
    errors: {
      standard_nominals: tooBig.map((n) => `Цена кода на ${adenaText(n)} с комиссией была бы слишком большой: уменьшите номинал или комиссию`),
    },
  });
}

const withoutTimes = ({ created_at: _c, updated_at: _u, ...rest }: AdminGamesserver) => rest;

/** The settings of `next` that differ from `current`'s (as the row takes them). */
function changedValues(current: GameServerValues, next: GameServerValues): Partial<GameServerValues> {
  const keys = Object.keys(next) as (keyof GameServerValues)[];
  return Object.fromEntries(keys.filter((k) => next[k] !== current[k]).map((k) => [k, next[k]]));
}

/**
 * The operators' game servers. A change and its audit-log row (before and after) are written in
 * one transaction; the public list is refreshed after the commit.
 */
export function createSystemAdminService({ db, audit, system }: SystemAdminServiceDeps) {
  const repo = createSystemRepository(db);

  return {
    async list() {
      return (await repo.listServers()).map(toAdminGamesserver);
    },

    async create(caller: Caller, input: GamesserverInput) {
      checkStandardPrices(input);
      const row = await repo
        .transaction(async (trx) => {
          if (await repo.serverNameTaken(trx, input.name)) throw nameTaken();
          const created = await repo.insertServer(trx, toGameServerValues(input));
          await audit.record(trx, {
            adminId: caller.user.id,
            sessionId: caller.sessionId,
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
      system.gameServersChanged();
      return toAdminGamesserver(row);
    },

    async update(caller: Caller, id: number, patch: Partial<GamesserverInput>) {
      const result = await repo
        .transaction(async (trx) => {
          // The operator's row before the server's, the order of every operator's act (audit.hold): a save that held
          // the server's row while it waited for the operator's closed a cycle with that operator's VIP change or block
          // of a player (waiting for the player's row) and a completion of that player's request (crediting a wallet
          // on the server); one of the three answered 503.
          await audit.hold(trx, caller);
          const current = await repo.lockServer(trx, id);
          if (!current) throw new AppError('NOT_FOUND', { message: 'Игровой сервер не найден' });
          const before = toAdminGamesserver(current);
          // The cross-field rules (min ≤ max, VIP fee ≤ fee, nominals ≥ minimum) hold for the merged record.
          const merged = GamesserverInputSchema.safeParse({ ...before, ...patch });
          if (!merged.success) throw new AppError('VALIDATION', { errors: zodIssuesToErrors(merged.error.issues) });
          checkStandardPrices(merged.data);
          if (merged.data.name.toLowerCase() !== current.name.toLowerCase() && (await repo.serverNameTaken(trx, merged.data.name, id))) {
            throw nameTaken();
          }
          const changes = changedValues(toGameServerValues(before), toGameServerValues(merged.data));
          // A save that changes nothing writes nothing: no audit row, the same updated_at.
          if (Object.keys(changes).length === 0) return before;
          const after = toAdminGamesserver(await repo.updateServer(trx, id, changes));
          await audit.record(trx, {
            adminId: caller.user.id,
            sessionId: caller.sessionId,
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
      system.gameServersChanged();
      return result;
    },
  };
}

export type SystemAdminService = ReturnType<typeof createSystemAdminService>;
