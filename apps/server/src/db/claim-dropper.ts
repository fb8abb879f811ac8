import { sql } from 'kysely';

/**
 * In a query of `balance_requests as r`: the name of the operator whose claim their block, demotion or TOTP rescue
 * dropped (migration 0045), shown on the request so the next operator checks in game whether it was handed over.
 * Here, beside db/shared-nick.ts, because the requests' and the shift's repositories both read it.
 */
export const claimDropperName = sql<string | null>`(SELECT d.name FROM users d WHERE d.id = r.claim_dropped_by)`.as('claim_dropper_name');

/** Likewise the deciding operator's name, so the queue says who decided a request they had not claimed. */
export const deciderName = sql<string | null>`(SELECT p.name FROM users p WHERE p.id = r.processed_by)`.as('decider_name');
