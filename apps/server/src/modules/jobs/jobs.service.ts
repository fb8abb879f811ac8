import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { type ClaimedJob, type JobsDb, jobsRepository as repo, type Q } from './jobs.repository';

/**
 * Thrown by a handler to be run again after exactly `ms` (for example Telegram's `retry_after`),
 * instead of the exponential back-off. It still counts as an attempt.
 */
export class RetryAfter extends Error {
  constructor(
    readonly ms: number,
    message = `retry after ${ms} ms`,
  ) {
    super(message);
    this.name = 'RetryAfter';
  }
}

export interface JobContext {
  id: bigint;
  kind: string;
  /** 1 on the first run. */
  attempt: number;
  /** Aborted when the worker stops. */
  signal: AbortSignal;
}

export type JobHandler<P = unknown> = (payload: P, ctx: JobContext) => Promise<void>;

export interface EnqueueOptions {
  /** Not before this moment (default: now). */
  runAt?: Date;
  /** While a pending or running job has this key, enqueueing another with it does nothing. */
  key?: string;
  maxAttempts?: number;
  /** A failure later than this long after enqueueing is final (default one day). */
  maxAgeMs?: number;
}

interface Logger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface JobsOptions {
  db: JobsDb;
  log?: Logger;
  /** The clock every time in the queue is read from; tests pass a controllable one. */
  now?: () => Date;
  /** How long an idle worker waits before it looks again. */
  pollMs?: number;
  /** How long a claim lasts; a job running longer may be taken again by another worker. */
  leaseMs?: number;
  /** Jobs one process runs at the same time. */
  concurrency?: number;
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  maxAttempts?: number;
  maxAgeMs?: number;
  /** Names this process in claims (for operators reading the table). */
  name?: string;
}

const silent: Logger = { info() {}, warn() {}, error() {} };
const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 2000);

export type Jobs = ReturnType<typeof createJobs>;

/**
 * The job queue kept in the database (decision record 0016): `enqueue` writes a row, in the
 * caller's transaction if given one; the worker started by `start` claims due jobs one at a time
 * with SKIP LOCKED, runs the handler registered for the kind, deletes the row on success, and on
 * failure sets the next run after an exponential back-off (or the handler's RetryAfter) until the
 * attempts or the age are used up, then marks the row failed. Recurring work (`every`) is a job
 * that enqueues its next run under a fixed key when it finishes, so one schedule exists however
 * many processes share the database.
 */
export function createJobs(opts: JobsOptions) {
  const db = opts.db;
  const log = opts.log ?? silent;
  const now = opts.now ?? (() => new Date());
  const pollMs = opts.pollMs ?? 1000;
  const leaseMs = opts.leaseMs ?? 5 * 60_000;
  const concurrency = opts.concurrency ?? 1;
  const backoffBaseMs = opts.backoffBaseMs ?? 1000;
  const backoffMaxMs = opts.backoffMaxMs ?? 60 * 60_000;
  const defaultMaxAttempts = opts.maxAttempts ?? 10;
  const defaultMaxAgeMs = opts.maxAgeMs ?? 24 * 60 * 60_000;
  const name = opts.name ?? `${hostname()}:${process.pid}`;

  const handlers = new Map<string, { run: JobHandler<never>; everyMs?: number }>();
  const inFlight = new Set<Promise<unknown>>();
  let abort = new AbortController();
  let loops: Promise<void>[] = [];
  let running = false;
  let wakeUp: (() => void)[] = [];

  const everyKey = (kind: string) => `every:${kind}`;

  async function enqueue(q: Q, kind: string, payload: unknown = {}, o: EnqueueOptions = {}): Promise<bigint | null> {
    const at = now();
    const id = await repo.insert(q, {
      kind,
      payload,
      key: o.key ?? null,
      runAt: o.runAt ?? at,
      maxAttempts: o.maxAttempts ?? defaultMaxAttempts,
      giveUpAt: new Date(at.getTime() + (o.maxAgeMs ?? defaultMaxAgeMs)),
      createdAt: at,
    });
    // Outside a transaction the row is visible now; a transaction's caller may call wake() after COMMIT.
    if (id !== null && !q.isTransaction) wake();
    return id;
  }

  function backoff(attempt: number) {
    return Math.min(backoffBaseMs * 2 ** (attempt - 1), backoffMaxMs);
  }

  /** Ends a claimed job; a recurring one enqueues its next run in the same transaction. */
  async function settle(job: ClaimedJob, claim: string, outcome: { ok: true } | { ok: false; error: unknown }) {
    const everyMs = handlers.get(job.kind)?.everyMs;
    const at = now();
    if (outcome.ok) {
      if (everyMs === undefined) return void (await repo.remove(db, job.id, claim));
      await repo.transaction(db, async (trx) => {
        if (await repo.remove(trx, job.id, claim)) await scheduleNext(trx, job, everyMs, at);
      });
      return;
    }
    const error = messageOf(outcome.error);
    const delay = outcome.error instanceof RetryAfter ? outcome.error.ms : backoff(job.attempts);
    const next = new Date(at.getTime() + delay);
    if (job.attempts < job.max_attempts && next <= job.give_up_at) {
      log.warn({ job: String(job.id), kind: job.kind, attempt: job.attempts, retryAt: next.toISOString(), err: error }, 'job failed; retrying');
      await repo.retry(db, job.id, claim, next, error);
      return;
    }
    log.error({ job: String(job.id), kind: job.kind, attempt: job.attempts, err: error }, 'job failed for good');
    await repo.transaction(db, async (trx) => {
      if ((await repo.fail(trx, job.id, claim, at, error)) && everyMs !== undefined) await scheduleNext(trx, job, everyMs, at);
    });
  }

  function scheduleNext(trx: Q, job: ClaimedJob, everyMs: number, at: Date) {
    return enqueue(trx, job.kind, job.payload, { key: everyKey(job.kind), runAt: new Date(at.getTime() + everyMs) });
  }

  /** Claims one due job and runs it; false when none was due. */
  async function runOne(): Promise<boolean> {
    const claim = `${name}:${randomUUID()}`;
    const at = now();
    const job = await repo.claim(db, {
      kinds: [...handlers.keys()],
      now: at,
      leaseUntil: new Date(at.getTime() + leaseMs),
      claim,
    });
    if (!job) return false;
    if (job.attempts > job.max_attempts) {
      // Claimed again after its lease ran out each time: its process died while running it.
      await settle(job, claim, { ok: false, error: new Error('the process running it stopped') });
      return true;
    }
    const run = handlers.get(job.kind)!.run as JobHandler;
    let outcome: { ok: true } | { ok: false; error: unknown };
    try {
      await run(job.payload, { id: job.id, kind: job.kind, attempt: job.attempts, signal: abort.signal });
      outcome = { ok: true };
    } catch (error) {
      outcome = { ok: false, error };
    }
    await settle(job, claim, outcome);
    return true;
  }

  function tracked<T>(p: Promise<T>): Promise<T> {
    inFlight.add(p);
    void p.then(
      () => inFlight.delete(p),
      () => inFlight.delete(p),
    );
    return p;
  }

  /** Runs due jobs until none is left; returns how many ran. The worker loop and tests use it. */
  async function runDue(): Promise<number> {
    let n = 0;
    while (await tracked(runOne())) n += 1;
    return n;
  }

  function sleep(ms: number) {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        wakeUp = wakeUp.filter((w) => w !== done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      wakeUp.push(done);
    });
  }

  /** Makes idle workers of this process look for due jobs at once. */
  function wake() {
    for (const w of [...wakeUp]) w();
  }

  let scheduled = false;
  async function ensureSchedules() {
    if (scheduled) return;
    for (const [kind, h] of handlers) {
      if (h.everyMs !== undefined) await enqueue(db, kind, {}, { key: everyKey(kind) });
    }
    scheduled = true;
  }

  async function loop() {
    let failures = 0;
    while (running) {
      try {
        await ensureSchedules();
        const ran = await tracked(runOne());
        failures = 0;
        if (!ran && running) await sleep(pollMs);
      } catch (err) {
        // The database is away or refused the claim: wait longer each time, up to a minute.
        failures += 1;
        if (running) log.warn({ err: messageOf(err) }, 'job queue: cannot reach the database');
        if (running) await sleep(Math.min(pollMs * 2 ** failures, 60_000));
      }
    }
  }

  return {
    /** Registers the handler of a kind; a worker only claims kinds it has handlers for. */
    register<P>(kind: string, handler: JobHandler<P>) {
      handlers.set(kind, { run: handler as JobHandler<never> });
    },
    /** A kind that runs every `everyMs`, on one process at a time; scheduled by `start`. */
    every(kind: string, everyMs: number, handler: JobHandler<Record<string, never>>) {
      handlers.set(kind, { run: handler as JobHandler<never>, everyMs });
    },
    enqueue,
    runDue,
    wake,
    /** Enqueues the first run of every recurring kind (once per key) and starts the worker loops. */
    async start() {
      if (running) return;
      try {
        await ensureSchedules();
      } catch (err) {
        log.warn({ err: messageOf(err) }, 'job queue: recurring jobs will be scheduled when the database answers');
      }
      running = true;
      abort = new AbortController();
      loops = Array.from({ length: concurrency }, () => loop());
    },
    /** Stops claiming, aborts the handlers' signal and waits for the jobs in hand to settle. */
    async stop() {
      running = false;
      abort.abort();
      wake();
      await Promise.all(loops);
      await Promise.allSettled([...inFlight]);
      loops = [];
    },
  };
}
