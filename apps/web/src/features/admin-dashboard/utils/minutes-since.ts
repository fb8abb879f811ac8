import { useEffect, useState } from 'react';

/**
 * Whole minutes since `iso`: 9 min 59 s is 9, as the server counts `waiting_minutes` and the queue's
 * card counts «ждёт» (its twin, admin-requests/utils/queue-texts; features do not import each other).
 */
export const minutesSince = (iso: string, now = Date.now()) => Math.max(0, Math.floor((now - new Date(iso).getTime()) / 60_000));

/**
 * minutesSince(iso) on this browser's clock, rendered again the moment it grows: the server's
 * `waiting_minutes` is the count at the time of reading, a minute behind the card beside it at worst.
 */
export function useMinutesSince(iso: string) {
  const [, setTick] = useState(0);
  useEffect(() => {
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
  return minutesSince(iso);
}
