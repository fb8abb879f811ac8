// autocannon ships no types; this is the part the benches use.
declare module 'autocannon' {
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    amount?: number;
    method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
    headers?: Record<string, string>;
    body?: string;
    requests?: Array<{ method?: string; path?: string; headers?: Record<string, string>; body?: string; setupRequest?: (req: { headers: Record<string, string> }, ctx: unknown) => unknown }>;
  }
  interface Histogram {
    average: number;
    p50: number;
    p99: number;
    max: number;
  }
  interface Result {
    requests: Histogram & { total: number };
    latency: Histogram;
    errors: number;
    non2xx: number;
    timeouts: number;
    '2xx': number;
    /** Seconds the run lasted. */
    duration: number;
  }
  function autocannon(opts: Options): Promise<Result>;
  export default autocannon;
}
