import { adenaText, decisionText, type RealtimeMessage } from '@adena/contract/lite';
import type { QueryClient } from '@tanstack/react-query';
import { errorUserCodeQueryOptions } from '../../features/codes/api/get-error-user-code';
import { codeIncidentsQueryOptions } from '../../features/codes/api/code-incidents';
import { type AnyPriceData, allPriceDataKey, priceDataQueryOptions } from '../../features/codes/api/price-data';
import { codeEntry, knowsCode, updateAuthPriceData, withCode, withCodeStatus, withoutCode, withWalletBalance } from '../../features/codes/api/price-data-cache';
import { allMyCodesKey } from '../../features/codes/api/my-codes';
import { allStatementKey } from '../../features/statement/api/statement';
import { allHistoryKey } from '../../lib/requests-history';
import { formatAmount, formatShort } from '../../utils/format-amount';
import { walletsQueryOptions } from '../../lib/wallets';
import { bumpBalanceEpoch } from '../../lib/balance-epoch';

export interface RealtimeEffects {
  /** error_code: open the error-code dialog for this incident. */
  openErrorCode(incidentId: number): void;
  /** session_ended: the session is over on the server; drop it here and say why. */
  endSession(reason: string): void;
  /** A short notice for the user (one of their codes was activated, an operator decided a request). */
  notify(text: string, status?: 'success' | 'info' | 'warning' | 'error'): void;
}

/**
 * SPEC.md section 4, one rule per event, applied to the TanStack Query cache. Events never create a
 * second copy of server state: they change the owning feature's cached answers, or invalidate them
 * when the cache lacks what the event refers to.
 */
export function applyRealtimeMessage(qc: QueryClient, msg: RealtimeMessage, effects: RealtimeEffects) {
  switch (msg.name) {
    case 'balance': {
      const { gamesserver_id, balance, balance_second } = msg.data;
      bumpBalanceEpoch(gamesserver_id);
      const key = walletsQueryOptions().queryKey;
      const wallets = qc.getQueryData(key);
      if (wallets?.some((w) => w.gamesserver_id === gamesserver_id)) {
        newerThanReads(qc, key, () => qc.setQueryData(key, wallets.map((w) => (w.gamesserver_id === gamesserver_id ? { ...w, balance, balance_second } : w))));
      } else {
        // A wallet this page has not seen yet (created by the change itself): fetch the list.
        void qc.invalidateQueries({ queryKey: key });
      }
      const priceKey = priceDataQueryOptions(gamesserver_id, true).queryKey;
      newerThanReads(qc, priceKey, () => updateAuthPriceData(qc, gamesserver_id, (d) => withWalletBalance(d, balance, balance_second)));
      readAgainSoon(qc, key);
      readAgainSoon(qc, priceKey);
      // Every operator decision on a request ends with this event, even one that moves no balance (a
      // rejected deposit, a paid-out withdrawal): a status in the history changed too (the event does
      // not say which one, so the open pages are read again).
      void qc.invalidateQueries({ queryKey: allHistoryKey });
      // A balance moved: the statement has a new line.
      void qc.invalidateQueries({ queryKey: allStatementKey });
      return;
    }
    case 'request_status': {
      // An operator's decision: said at once on any page, and History is marked unread until it is opened.
      const d = msg.data;
      const key = walletsQueryOptions().queryKey;
      qc.setQueryData(key, (ws) => ws?.map((w) => (w.gamesserver_id === d.gamesserver_id ? { ...w, new_message: true } : w)));
      void qc.invalidateQueries({ queryKey: allHistoryKey });
      // Adena in players' shorthand (1,5кк), coins in whole numbers, as the money form writes them.
      effects.notify(decisionText(d, (n) => (d.currency_type === 1 ? formatShort(n) : formatAmount(n))), d.status === 'completed' ? 'success' : 'warning');
      return;
    }
    case 'code_status': {
      const { gamesserver_id, code_id, code_status } = msg.data;
      const before = qc.getQueryData(priceDataQueryOptions(gamesserver_id, true).queryKey);
      const code = before && [...before.kods, ...before.svoy_variant_kods].find((c) => c.id === code_id);
      updateAuthPriceData(qc, gamesserver_id, (d) => withCodeStatus(d, code_id, code_status));
      readBatchesAgainIfUnknown(qc, gamesserver_id, before, code_id);
      readAgainSoon(qc, priceDataQueryOptions(gamesserver_id, true).queryKey);
      void qc.invalidateQueries({ queryKey: allMyCodesKey });
      if (code && code.status !== code_status && code_status === 'activated') effects.notify(`Ваш код на ${adenaText(code.nominal, '\u00a0', 'acc')} активирован`);
      return;
    }
    case 'sert': {
      const { gamesserver_id, code_id, nominal, sert, sert_masked } = msg.data;
      updateAuthPriceData(qc, gamesserver_id, (d) => withCode(d, codeEntry(d, { id: code_id, nominal, sert, sert_masked })));
      readAgainSoon(qc, priceDataQueryOptions(gamesserver_id, true).queryKey);
      void qc.invalidateQueries({ queryKey: allMyCodesKey });
      return;
    }
    case 'del_sert': {
      const { gamesserver_id, del_sert } = msg.data;
      readBatchesAgainIfUnknown(qc, gamesserver_id, qc.getQueryData(priceDataQueryOptions(gamesserver_id, true).queryKey), del_sert);
      updateAuthPriceData(qc, gamesserver_id, (d) => withoutCode(d, del_sert));
      readAgainSoon(qc, priceDataQueryOptions(gamesserver_id, true).queryKey);
      void qc.invalidateQueries({ queryKey: allMyCodesKey });
      return;
    }
    case 'error_code': {
      const key = errorUserCodeQueryOptions().queryKey;
      // The user's error flag is set at once; the count is then read again.
      qc.setQueryData(key, (d) => ({ error_codes_count: (d?.error_codes_count ?? 0) + 1 }));
      void qc.invalidateQueries({ queryKey: key });
      void qc.invalidateQueries({ queryKey: codeIncidentsQueryOptions().queryKey });
      effects.openErrorCode(msg.data.your_error_code_id);
      return;
    }
    case 'session_ended':
      effects.endSession(msg.data.reason);
      return;
    case 'test':
      return;
  }
}

/**
 * Writes an event's news into a cached answer that a read still in flight (a refetch on focus, a
 * resync, the one after a withdrawal) would otherwise overwrite with what the server said before the
 * event: that read is cancelled (its cache state reverted) before the write, and made again after it,
 * so the figure shown is the event's until a read made after the event comes back.
 */
function newerThanReads(qc: QueryClient, queryKey: readonly unknown[], write: () => void) {
  const reading = qc.isFetching({ queryKey, exact: true }) > 0;
  if (reading) void qc.cancelQueries({ queryKey, exact: true });
  write();
  if (reading) void qc.invalidateQueries({ queryKey, exact: true });
}

/**
 * A user's events can come from several server processes: each sends its own sockets' events at once
 * and the others' through PostgreSQL, so two changes made one after the other (two operators deciding
 * on one player, codes activated on two processes) may arrive the other way round, and the older
 * figure would stay shown. The event is shown at once; a read made SETTLE_MS after the last event for
 * the same answer puts right one that came out of order.
 */
export const SETTLE_MS = 1_500;
const settling = new WeakMap<QueryClient, Map<string, ReturnType<typeof setTimeout>>>();
function readAgainSoon(qc: QueryClient, queryKey: readonly unknown[]) {
  const timers = settling.get(qc) ?? new Map<string, ReturnType<typeof setTimeout>>();
  settling.set(qc, timers);
  const id = JSON.stringify(queryKey);
  clearTimeout(timers.get(id));
  timers.set(
    id,
    setTimeout(() => {
      timers.delete(id);
      void qc.invalidateQueries({ queryKey, exact: true });
    }, SETTLE_MS),
  );
}

/**
 * A code the cache does not list may still be one of the player's own-nominal batches, whose open
 * count the edit dialog starts from: the price data is read again rather than left counting it open.
 */
function readBatchesAgainIfUnknown(qc: QueryClient, gameServerId: number, data: AnyPriceData | undefined, codeId: number) {
  if (data && data.pricekods.length > 0 && !knowsCode(data, codeId)) void qc.invalidateQueries({ queryKey: priceDataQueryOptions(gameServerId, true).queryKey });
}

/**
 * After a reconnect anything sent while away is lost: read wallets, history, codes, the error flag and
 * the code incidents the error dialog lists (an `error_code` missed while away) again.
 */
export function resync(qc: QueryClient) {
  void qc.invalidateQueries({ queryKey: codeIncidentsQueryOptions().queryKey });
  void qc.invalidateQueries({ queryKey: walletsQueryOptions().queryKey });
  void qc.invalidateQueries({ queryKey: allHistoryKey });
  void qc.invalidateQueries({ queryKey: allPriceDataKey });
  void qc.invalidateQueries({ queryKey: errorUserCodeQueryOptions().queryKey });
  void qc.invalidateQueries({ queryKey: allStatementKey });
  void qc.invalidateQueries({ queryKey: allMyCodesKey });
}
