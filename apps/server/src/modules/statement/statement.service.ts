import type { StatementCsvQuery, StatementQuery } from '@adena/contract';
import type { DbHandle } from '../../db/schema';
import { AppError } from '../../lib/app-error';
import type { Caller, User } from '../sessions/caller';
import type { RateLimiter } from '../sessions/rate-limit.service';
import type { SessionsService } from '../sessions/sessions.service';
import { toCsv, toStatementEntry } from './statement.mapper';
import { type StatementFilter, statementRepository as repo } from './statement.repository';

/** More rows than this in one file is refused: the player picks a shorter period. */
export const CSV_MAX_ROWS = 50_000;

/**
 * Statement files a user may download in ten minutes, before RATE_LIMIT_SCALE: a file reads up to
 * CSV_MAX_ROWS joined rows, and wallet entries cost a player nothing to make (codes issued and cancelled).
 */
export const STATEMENT_FILES = { limit: 10, windowMs: 10 * 60_000 } as const;

/** A calendar day of the query as an instant: Moscow's midnight (UTC+3 all year). */
const moscowMidnight = (day: string, plusDays = 0) => new Date(new Date(`${day}T00:00:00+03:00`).getTime() + plusDays * 86_400_000);

/**
 * The player's statement: every entry of their wallet accounts in the ledger, newest first, the
 * amount signed and the wallet's balance after it, as the ledger recorded them. Read-only.
 */
export function createStatementService({
  db,
  sessions,
  limiter,
  filesPerWindow = STATEMENT_FILES.limit,
}: {
  db: DbHandle;
  sessions: Pick<SessionsService, 'issueDownloadToken' | 'userOfDownloadToken'>;
  /** Caps the files a user downloads (STATEMENT_FILES): each reads up to CSV_MAX_ROWS rows and builds the file. */
  limiter?: Pick<RateLimiter, 'count'>;
  filesPerWindow?: number;
}) {
  const countFile = async (userId: number) => {
    await limiter?.count(`statement:csv:${userId}`, { limit: filesPerWindow, windowMs: STATEMENT_FILES.windowMs });
  };
  return {
    async page(caller: Caller, q: StatementQuery) {
      const filter: StatementFilter = { gameServerId: q.gamesserver_id, currencyType: q.currency_type };
      const { rows, total } = await repo.page(db, caller.user.id, filter, q.per_page, (q.page - 1) * q.per_page);
      return { data: rows.map(toStatementEntry), total };
    },

    /** The user behind the call: the bearer's, or a one-time download token's (a link cannot send a header). */
    async csvUser(bearerCaller: () => Promise<Caller>, token: string | undefined): Promise<User> {
      if (token === undefined) {
        const { user } = await bearerCaller();
        await countFile(user.id);
        return user;
      }
      const user = await sessions.userOfDownloadToken(token);
      if (!user) throw new AppError('UNAUTHENTICATED', { message: 'Ссылка на выписку устарела: скачайте файл ещё раз' });
      return user;
    },

    async csv(user: User, q: StatementCsvQuery) {
      const filter: StatementFilter = {
        gameServerId: q.gamesserver_id,
        ...(q.from ? { since: moscowMidnight(q.from) } : {}),
        ...(q.to ? { until: moscowMidnight(q.to, 1) } : {}),
      };
      const { rows } = await repo.page(db, user.id, filter, CSV_MAX_ROWS + 1, 0);
      if (rows.length > CSV_MAX_ROWS) {
        const message = `В файле не больше ${CSV_MAX_ROWS.toLocaleString('ru-RU')} строк: выберите период короче`;
        throw new AppError('VALIDATION', { message, errors: { from: [message] } });
      }
      const name = ['statement', q.from, q.to].filter(Boolean).join('-');
      return { body: toCsv(rows.reverse()), fileName: `${name}.csv` };
    },

    /** A one-time link to one file: the file is counted here, where the web app can say so, not at the download. */
    async issueDownloadToken(caller: Caller) {
      await countFile(caller.user.id);
      return sessions.issueDownloadToken(caller);
    },
  };
}

export type StatementService = ReturnType<typeof createStatementService>;
