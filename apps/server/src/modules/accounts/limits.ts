import type { DelayRule, RateRule } from '../sessions/rate-limit.service';

/**
 * Limits per client address and per (account, address): PRODUCT.md section 8. Nothing here is
 * counted per account alone, so a stranger's wrong tries never lock the owner out.
 */
export const DEFAULT_LIMITS = {
  /** Wrong passwords for one login from one address: 5 free, then 1 s, 2 s, 4 s … at most a minute apart. */
  loginPerAccountIp: { free: 5, baseMs: 1000, maxMs: 60_000, resetMs: 15 * 60_000 },
  /** Sign-ins from one address over all logins (carriers put many players behind one). */
  loginPerIp: { free: 30, baseMs: 1000, maxMs: 60_000, resetMs: 15 * 60_000 },
  /** Codes sent (new flows and resends) from one address in an hour. */
  flowsPerIp: { limit: 20, windowMs: 60 * 60_000 },
  /**
   * Failed Discord and Telegram sign-ins from one address (unsigned, stale or replayed Telegram data; a Discord
   * state not given to this browser, a code Discord refused). Counted after the check, so signed logins and
   * Discord callbacks with this browser's state are never refused for them (external-sign-in.service.ts).
   */
  socialPerIp: { limit: 30, windowMs: 15 * 60_000 },
  /**
   * Reset codes one address gets in an hour through its remembered browsers' own minutes (each of
   * which is also one a minute): however many browsers someone once signed in from, they add this many.
   */
  knownBrowserResetsPerAddress: { limit: 5, windowMs: 60 * 60_000 },
} satisfies Record<string, RateRule | DelayRule>;

export type Limits = typeof DEFAULT_LIMITS;

/** Every limit multiplied by RATE_LIMIT_SCALE (more tries allowed; delays unchanged). */
export function scaleLimits(limits: Limits, scale: number): Limits {
  const n = (v: number) => Math.max(1, Math.round(v * scale));
  return {
    loginPerAccountIp: { ...limits.loginPerAccountIp, free: n(limits.loginPerAccountIp.free) },
    loginPerIp: { ...limits.loginPerIp, free: n(limits.loginPerIp.free) },
    flowsPerIp: { ...limits.flowsPerIp, limit: n(limits.flowsPerIp.limit) },
    socialPerIp: { ...limits.socialPerIp, limit: n(limits.socialPerIp.limit) },
    knownBrowserResetsPerAddress: { ...limits.knownBrowserResetsPerAddress, limit: n(limits.knownBrowserResetsPerAddress.limit) },
  };
}
