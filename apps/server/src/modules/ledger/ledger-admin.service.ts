import type { Db } from '../../db/client';
import { coalesce } from '../../db/coalesce';
import { AppError } from '../../lib/app-error';
import { auditLedger } from './ledger.service';
import { type LedgerTotals, toLedgerAccount, toLedgerEntry, toLedgerTotalsRow } from './ledger-admin.mapper';
import { createLedgerAdminRepository, type ServiceAccountKind } from './ledger-admin.repository';

/** The ledger as operators read it: totals per server and currency, any account's entries, the audit. */
export function createLedgerAdminService({ db, clock = () => new Date() }: { db: Db['kysely']; clock?: () => Date }) {
  const repo = createLedgerAdminRepository(db);
  /**
   * The audit scans the whole ledger on a pool connection without the pool's statement limit, so a
   * process runs one at a time: callers who arrive while one runs share the next, which starts
   * after each of them arrived (db/coalesce.ts), and a burst of audits holds one connection, not
   * the pool.
   */
  const audited = coalesce(async () => new Map([[0, await repo.wholeLedger((q) => auditLedger(q))]]), { maxInFlight: 1 });

  return {
    /** Per server and currency: what players hold, what is owed (wallets, held payouts, escrow), and the cash that balances it. */
    async totals() {
      // One snapshot: read at different moments, a movement between the reads showed an imbalance that was not there.
      const [servers, service, wallets] = await repo.snapshot(async (q) => [await repo.gameServers(q), await repo.serviceTotals(q), await repo.walletTotals(q)] as const);
      const data: LedgerTotals[] = [];
      for (const s of servers) {
        for (const currency of [1, 2] as const) {
          const mine = service.filter((a) => a.gamesserver_id === s.id && Number(a.currency_type) === currency);
          const of = (kind: ServiceAccountKind) => mine.find((a) => a.kind === kind);
          const w = wallets.find((x) => x.gamesserver_id === s.id);
          const walletSum = w ? (currency === 1 ? w.balance : w.balance_second) : 0n;
          const payout = of('payout')?.total ?? 0n;
          const escrow = of('escrow')?.total ?? 0n;
          data.push({
            gameServerId: s.id,
            gameServer: s.name,
            currency,
            wallets: walletSum,
            payout,
            escrow,
            fees: of('fees')?.total ?? 0n,
            cash: of('cash')?.total ?? 0n,
            owed: walletSum + payout + escrow,
            accounts: {
              cash: of('cash')?.account_id ?? null,
              payout: of('payout')?.account_id ?? null,
              escrow: of('escrow')?.account_id ?? null,
              fees: of('fees')?.account_id ?? null,
            },
          });
        }
      }
      return { data: data.map(toLedgerTotalsRow), computed_at: clock().toISOString() };
    },

    async accountEntries(accountId: number, page: number, perPage: number) {
      // The balance, the page and the total of one moment: read apart while movements committed, a page of every
      // entry summed to other than the balance above it, and its count differed from its rows (diff review, 2026-11-29).
      const read = await repo.snapshot(async (s) => {
        const account = await repo.account(accountId, s);
        return account && { account, ...(await repo.accountEntries(accountId, page, perPage, s)) };
      });
      if (!read) throw new AppError('NOT_FOUND', { message: 'Счёт не найден' });
      return { account: toLedgerAccount(read.account), data: read.rows.map(toLedgerEntry), total: read.total };
    },

    /** The newest entries on the user's wallets (the admin's user card). */
    async userEntries(userId: number, limit: number, q?: Db['kysely']) {
      return (await repo.userEntries(userId, limit, q)).map(toLedgerEntry);
    },

    /** Every invariant of the ledger, each violation in words, as of one moment. */
    audit: async () => (await audited(0))!,
  };
}

export type LedgerAdminService = ReturnType<typeof createLedgerAdminService>;
