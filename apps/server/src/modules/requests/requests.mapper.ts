import type { AdminRequest, Request, RequestStatusEvent } from '@adena/contract';
import { toFigure, toNumber } from '../../lib/money';
import type { AdminRequestRow, PendingGroup, RequestRow, requestsRepository } from './requests.repository';

const iso = (d: Date | string) => new Date(d).toISOString();

/** `amount` as the row holds it: bigint from a table, text from request_open's answer. */
export function toRequest(r: Omit<RequestRow, 'amount'> & { amount: bigint | string }): Request {
  return {
    id: r.id,
    type: r.type,
    currency_type: r.currency_type,
    amount: toNumber(BigInt(r.amount)),
    status: r.status,
    gamesserver_id: r.gamesserver_id,
    gamesserver: r.gamesserver,
    nick: r.nick,
    cashier_nick: r.cashier_nick,
    comment: r.comment,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

/** An operator's view of a request; `claimTimeoutMin` (CLAIM_TIMEOUT_MIN) says when its claim lapses. */
export function toAdminRequest(r: AdminRequestRow, now: Date, claimTimeoutMin: number): AdminRequest {
  return {
    ...toRequest(r),
    user: {
      id: r.user_id,
      name: r.user_name,
      email: r.user_email,
      phone: r.user_phone,
      vip: r.user_vip_until !== null && new Date(r.user_vip_until) > now,
      blocked: r.user_blocked_at !== null,
    },
    processed_by: r.processed_by,
    processed_by_name: r.processed_by === null ? null : (r.decider_name ?? ''),
    processed_at: r.processed_at === null ? null : iso(r.processed_at),
    claimed_by: r.claimed_by === null ? null : { id: r.claimed_by, name: r.claimer_name ?? '' },
    claimed_at: r.claimed_at === null ? null : iso(r.claimed_at),
    claim_lapses_at:
      r.claimed_by === null || r.claimed_at === null ? null : new Date(new Date(r.claimed_at).getTime() + claimTimeoutMin * 60_000).toISOString(),
    nick_shared: r.nick_shared,
    claim_dropped_by: r.claim_dropped_by === null ? null : { id: r.claim_dropped_by, name: r.claim_dropper_name ?? '' },
  };
}

/** A request on the admin's user card: hidden ones are shown, and marked. */
/** The realtime `request_status` of a decided request (PRODUCT.md section 11). */
export const toRequestStatusEvent = (r: RequestRow): RequestStatusEvent => ({
  id: r.id,
  type: r.type,
  status: r.status,
  amount: toNumber(r.amount),
  currency_type: r.currency_type,
  gamesserver_id: r.gamesserver_id,
  comment: r.comment,
});

export const toUserCardRequest = (r: RequestRow) => ({ ...toRequest(r), hidden: r.hidden_at !== null });

type Repo = typeof requestsRepository;
export interface DashboardData {
  pending: PendingGroup[];
  oldest: Awaited<ReturnType<Repo['oldestPending']>>;
  medians: Awaited<ReturnType<Repo['medians']>>;
  servers: Awaited<ReturnType<Repo['activeGameServers']>>;
  now: Date;
}

const minutes = (seconds: number | null) => (seconds === null ? null : Math.max(1, Math.round(Number(seconds) / 60)));

export function toDashboard({ pending, oldest, medians, servers, now }: DashboardData) {
  const overall = medians.find((m) => m.gamesserver_id === null);
  return {
    pending: pending.map((p) => ({
      gamesserver_id: p.gamesserver_id,
      gamesserver: p.gamesserver,
      currency_type: Number(p.currency_type) as 1 | 2,
      type: p.type,
      count: toNumber(BigInt(p.n)),
      sum: toFigure(BigInt(p.s)),
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
          waiting_minutes: Math.max(0, Math.floor((now.getTime() - oldest.created_at.getTime()) / 60_000)),
        }
      : null,
    medians: servers.map((s) => {
      const m = medians.find((x) => x.gamesserver_id === s.id);
      return { gamesserver_id: s.id, gamesserver: s.name, minutes: minutes(m?.seconds ?? null), processed: m ? toNumber(BigInt(m.n)) : 0 };
    }),
    median_all_minutes: minutes(overall?.seconds ?? null),
    processed_24h: overall ? toNumber(BigInt(overall.n)) : 0,
  };
}

/** A deposit's or withdrawal's body in the service's words. */
export const toOpeningInput = (body: { gamesserver_id: number; amount: number; currency_type: 1 | 2 }) => ({
  gameServerId: body.gamesserver_id,
  amount: body.amount,
  currency: body.currency_type,
});
