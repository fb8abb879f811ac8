import type { StatementCsvQuery, StatementQuery } from '@adena/contract';
import type { DbHandle } from '../../db/schema';
import { AppError } from '../../lib/app-error';
import type { Caller, User } from '../sessions/caller';
import type { SessionsService } from '../sessions/sessions.service';
import { toCsv, toStatementEntry } from './statement.mapper';
import { type StatementFilter, statementRepository as repo } from './statement.repository';

/** More rows than this in one file is refused: the player picks a shorter period. */
export const CSV_MAX_ROWS = 50_000;

/** A calendar day of the query as an instant: Moscow's midnight (UTC+3 all year). */
const moscowMidnight = (day: string, plusDays = 0) => new Date(new Date(`${day}T00:00:00+03:00`).getTime() + plusDays * 86_400_000);

/**
 * The player's statement: every entry of their wallet accounts in the ledger, newest first, the
 * amount signed and the wallet's balance after it, as the ledger recorded them. Read-only.
 */
export function createStatementService({ db, sessions }: { db: DbHandle; sessions: Pick<SessionsService, 'issueDownloadToken' | 'userOfDownloadToken'> }) {
  return {
    async page(caller: Caller, q: StatementQuery) {
      const filter: StatementFilter = { gameServerId: q.gamesserver_id, currencyType: q.currency_type };
      const { rows, total } = await repo.page(db, caller.user.id, filter, q.per_page, (q.page - 1) * q.per_page);
      return { data: rows.map(toStatementEntry), total };
    },

    /** The user behind the call: the bearer's, or a one-time download token's (a link cannot send a header). */
    async csvUser(bearerCaller: () => Promise<Caller>, token: string | undefined): Promise<User> {
      if (token === undefined) return (await bearerCaller()).user;
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

    issueDownloadToken: (caller: Caller) => sessions.issueDownloadToken(caller),
  };
}

export type StatementService = ReturnType<typeof createStatementService>;
