import { Readable } from 'node:stream';
import type { StatementCsvQuery, StatementQuery } from '@adena/contract';
import type { DbHandle } from '../../db/schema';
import { readSnapshot } from '../../db/snapshot';
import { AppError } from '../../lib/app-error';
import type { Caller, User } from '../sessions/caller';
import type { RateLimiter } from '../sessions/rate-limit.service';
import type { SessionsService } from '../sessions/sessions.service';
import { csvHead, csvLines, toStatementEntry } from './statement.mapper';
import { type StatementFilter, type StatementRow, statementRepository as repo } from './statement.repository';

/**
 * Rows the CSV reads at a time. The file has no row limit: it is streamed page by page, each page
 * its own short read (no transaction stays open for the download), keyed on the entry id.
 */
export const CSV_PAGE_ROWS = 5_000;

/**
 * Statement files a user may download in ten minutes, before RATE_LIMIT_SCALE: a file reads every
 * entry of the period, and wallet entries cost a player nothing to make (codes issued and cancelled).
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
  csvPageRows = CSV_PAGE_ROWS,
}: {
  db: DbHandle;
  sessions: Pick<SessionsService, 'issueDownloadToken' | 'userOfDownloadToken'>;
  /** Caps the files a user downloads (STATEMENT_FILES): each reads every entry of its period. */
  limiter?: Pick<RateLimiter, 'count'>;
  filesPerWindow?: number;
  /** Rows per read of the CSV (CSV_PAGE_ROWS); tests set it small to page a short file. */
  csvPageRows?: number;
}) {
  const countFile = async (userId: number) => {
    await limiter?.count(`statement:csv:${userId}`, { limit: filesPerWindow, windowMs: STATEMENT_FILES.windowMs });
  };
  return {
    async page(caller: Caller, q: StatementQuery) {
      const filter: StatementFilter = { gameServerId: q.gamesserver_id, currencyType: q.currency_type };
      const beforeId = q.before_id === undefined ? undefined : BigInt(q.before_id);
      // One snapshot: a first page's rows and total agree while the player's movements commit (stress round 9).
      const { rows, total } = await readSnapshot(db, (s) => repo.page(s, caller.user.id, filter, q.per_page, (q.page - 1) * q.per_page, beforeId));
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

    /**
     * The file, oldest first, as a stream: the BOM and the header line, then each page's lines. Pages
     * follow the entry id (unique, the file's order), so no entry committed before the download is
     * skipped or written twice; one committed meanwhile may or may not be in the file. The first page
     * is read before anything is sent, so a failing database still answers with an error; a later
     * page is read only when the client has taken the one before (the stream's backpressure), and
     * none after the client has gone (Fastify destroys the stream, which ends the generator).
     */
    async csv(user: User, q: StatementCsvQuery) {
      const filter: StatementFilter = {
        gameServerId: q.gamesserver_id,
        currencyType: q.currency_type,
        ...(q.from ? { since: moscowMidnight(q.from) } : {}),
        ...(q.to ? { until: moscowMidnight(q.to, 1) } : {}),
      };
      const pageRows = Math.max(1, Math.floor(csvPageRows));
      const read = (afterId: StatementRow['id'] | null) => repo.csvPage(db, user.id, filter, afterId, pageRows);
      const first = await read(null);
      async function* file() {
        yield csvHead();
        let rows = first;
        for (;;) {
          if (rows.length > 0) yield csvLines(rows);
          if (rows.length < pageRows) return;
          rows = await read(rows[rows.length - 1]!.id);
        }
      }
      const name = ['statement', q.from, q.to].filter(Boolean).join('-');
      // Bytes, not objects: the stream holds at most the page it is handing on.
      return { body: Readable.from(file(), { objectMode: false }), fileName: `${name}.csv` };
    },

    /** A one-time link to one file: the file is counted here, where the web app can say so, not at the download. */
    async issueDownloadToken(caller: Caller) {
      await countFile(caller.user.id);
      return sessions.issueDownloadToken(caller);
    },
  };
}

export type StatementService = ReturnType<typeof createStatementService>;
