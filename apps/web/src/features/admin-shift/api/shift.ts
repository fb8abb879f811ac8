import { adminOperatorStats, adminOperatorStatsCsv, adminRequests, OperatorStatsQuerySchema } from '@adena/contract';
import { zodIssuesToErrors } from '@adena/contract/lite';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { ApiError, request, tokenStore } from '../../../lib/api-client';

export interface Period {
  /** Calendar days, YYYY-MM-DD (Moscow time on the server). */
  from: string;
  to: string;
}

export const operatorStatsQueryOptions = (p: Period, enabled = true) =>
  queryOptions({
    queryKey: ['admin', 'operators', 'stats', p],
    queryFn: () => request(adminOperatorStats, { query: { from: p.from, to: p.to } }),
    placeholderData: keepPreviousData,
    enabled,
  });

/** `enabled`: false for a period the form itself refuses (periodProblems): it is not sent. */
export const useOperatorStats = (p: Period, enabled = true) => useQuery(operatorStatsQueryOptions(p, enabled));

/**
 * What the server would refuse in a period, by field, in its own words (the contract's schema): an end before the
 * start, a year out of range, a period over MAX_REPORT_DAYS. Null when it is one the server takes.
 */
export function periodProblems(p: Period): Partial<Record<keyof Period, string>> | null {
  // An emptied field is not sent (request leaves out ''): the server takes its default, as it does here.
  const r = OperatorStatsQuerySchema.safeParse({ from: p.from || undefined, to: p.to || undefined });
  if (r.success) return null;
  const errors = zodIssuesToErrors(r.error.issues);
  return { from: errors.from?.[0], to: errors.to?.[0] };
}

/**
 * Pending requests in the whole queue; under ['admin', 'requests'], so every change of the queue refreshes it.
 * Live, it is still read each minute, as the queue is: a lost event does not leave the tab's counter stale.
 */
export const usePendingCount = (live: boolean) =>
  useQuery({
    queryKey: ['admin', 'requests', 'pending-count'],
    queryFn: () => request(adminRequests, { query: { status: 'pending', per_page: 1 } }),
    select: (d) => d.total,
    refetchInterval: live ? 60_000 : 5_000,
    // Read in a hidden tab too (an operator in the game client, the browser minimised): the chime and the
    // title's count are for exactly that operator. The queue itself waits for the tab to be shown.
    refetchIntervalInBackground: true,
  });

/** Downloads the report's CSV (the call needs the bearer, so a plain link would not do). */
export async function downloadStatsCsv(p: Period) {
  const qs = new URLSearchParams({ from: p.from, to: p.to });
  const res = await fetch(`${adminOperatorStatsCsv.path}?${qs}`, { headers: { Authorization: `Bearer ${tokenStore.get() ?? ''}` } });
  if (!res.ok) {
    const body = (await res.json().catch(() => null)) as { message?: string } | null;
    throw new ApiError(res.status, { message: body?.message ?? 'Не удалось выгрузить отчёт' });
  }
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = `smena-${p.from}-${p.to}.csv`;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
