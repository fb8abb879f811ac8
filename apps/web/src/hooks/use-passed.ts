import { useEffect, useState } from 'react';

/** Timers take at most 2^31 − 1 ms; a later moment is waited for in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Whether this browser's clock has reached `iso`, rendered again the moment it does (a timer for that
 * moment, not a tick). False while `iso` is null.
 */
export function usePassed(iso: string | null): boolean {
  const at = iso === null ? Number.NaN : new Date(iso).getTime();
  // The clock as of the last timer: a new one is set until it has reached `at`.
  const [checked, setChecked] = useState(Date.now);
  useEffect(() => {
    if (!Number.isFinite(at) || checked >= at) return;
    const timer = setTimeout(() => setChecked(Date.now()), Math.min(MAX_TIMER_MS, Math.max(0, at - Date.now()) + 5));
    return () => clearTimeout(timer);
  }, [at, checked]);
  return Number.isFinite(at) && Date.now() >= at;
}
