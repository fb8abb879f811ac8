import { useEffect, useState } from 'react';

/** Whole minutes since `iso`: 9 min 59 s is 9, as the server counts `waiting_minutes`. */
export const minutesSince = (iso: string, now = Date.now()) => Math.max(0, Math.floor((now - new Date(iso).getTime()) / 60_000));

/**
 * Minutes as the queue and the dashboard say them: «меньше минуты», «9 мин», «2 ч 5 мин», «3 дн. 4 ч»;
 * each unit joined to its number by a no-break space, so a line never ends on a bare number.
 */
export function minutesText(min: number) {
  if (min < 1) return 'меньше минуты';
  if (min < 60) return `${min}\u00a0мин`;
  const h = Math.floor(min / 60);
  return h < 48 ? `${h}\u00a0ч ${min % 60}\u00a0мин` : `${Math.floor(h / 24)}\u00a0дн. ${h % 24}\u00a0ч`;
}

/**
 * minutesSince(iso) on this browser's clock, rendered again the moment it grows (not on a tick of its
 * own), so the queue's cards and the dashboard beside them turn to the next minute together. Null while
 * `iso` is.
 */
export function useMinutesSince<T extends string | null>(iso: T): T extends string ? number : number | null {
  const [, setTick] = useState(0);
  useEffect(() => {
    if (iso === null) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    // Each turn waits for the next whole minute of this `iso`, then renders and waits again.
    const wait = () => {
      const next = new Date(iso).getTime() + (minutesSince(iso) + 1) * 60_000;
      if (!Number.isFinite(next)) return;
      timer = setTimeout(() => {
        setTick((n) => n + 1);
        wait();
      }, Math.max(0, next - Date.now()) + 5);
    };
    wait();
    return () => clearTimeout(timer);
  }, [iso]);
  return (iso === null ? null : minutesSince(iso)) as T extends string ? number : number | null;
}
