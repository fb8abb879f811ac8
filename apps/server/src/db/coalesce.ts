/**
 * Reads that many requests make at the same moment, answered by one statement per batch
 * (decision record 0026, "Wallets and price data"). A call joins only a batch whose statement has
 * not started yet, so its answer is read after the call was made: whatever was committed before
 * the request arrived is in it, exactly as with a statement of its own. Nothing is kept between
 * batches; this saves round trips, it caches nothing.
 *
 * At most `maxInFlight` statements run at once; calls arriving meanwhile wait and go together in
 * the next one (equal keys share one answer), at most `maxBatch` keys a statement. An idle process
 * runs a lone call at once, so a quiet request pays nothing for this.
 */
export function coalesce<K, V>(load: (keys: K[]) => Promise<Map<K, V>>, opts: { maxInFlight?: number; maxBatch?: number } = {}) {
  const maxInFlight = opts.maxInFlight ?? 2;
  const maxBatch = opts.maxBatch ?? 256;
  type Waiter = { resolve: (v: V | undefined) => void; reject: (e: unknown) => void };
  let waiting = new Map<K, Waiter[]>();
  let inFlight = 0;

  const run = (batch: Map<K, Waiter[]>) => {
    inFlight++;
    Promise.resolve([...batch.keys()]).then(load).then(
      (found) => {
        for (const [key, ws] of batch) for (const w of ws) w.resolve(found.get(key));
      },
      (err) => {
        for (const ws of batch.values()) for (const w of ws) w.reject(err);
      },
    ).finally(() => {
      inFlight--;
      drain();
    });
  };
  const drain = () => {
    while (inFlight < maxInFlight && waiting.size > 0) {
      if (waiting.size <= maxBatch) {
        const batch = waiting;
        waiting = new Map();
        run(batch);
      } else {
        const batch = new Map<K, Waiter[]>();
        for (const [key, ws] of waiting) {
          if (batch.size === maxBatch) break;
          batch.set(key, ws);
          waiting.delete(key);
        }
        run(batch);
      }
    }
  };

  return (key: K): Promise<V | undefined> =>
    new Promise((resolve, reject) => {
      const ws = waiting.get(key);
      if (ws) ws.push({ resolve, reject });
      else waiting.set(key, [{ resolve, reject }]);
      drain();
    });
}
