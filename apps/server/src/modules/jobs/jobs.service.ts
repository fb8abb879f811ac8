import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { type At, type ClaimedJob, type JobsDb, jobsRepository as repo, type Q } from './jobs.repository';

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

/**
 * Thrown by a handler whose job can never succeed (a refusal that repeating will not change): the
 * job is failed at once, without the remaining attempts.
 */
export class GiveUp extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GiveUp';
  }
}

export interface RegisterOptions {
  /** The payload is secret: it is replaced by `{}` when the job fails (a finished job is deleted anyway). */
  scrubOnFail?: boolean;
  /**
   * The workers that run this kind (default `DEFAULT_LANE`). Each lane has workers of its own, so a
   * kind that may wait on a stranger's server (a seller's webhook) cannot hold up another lane's
   * jobs (a player's sign-in code).
   */
  lane?: string;
  /**
   * How long a claim of this kind lasts (default the queue's `leaseMs`): for a handler bounded by
   * timeouts of its own (a mail, an SMS, a webhook), a job that a stopped process left running is
   * taken again this soon instead of after the queue's five minutes. A lane claims with the longest
   * lease of its kinds.
   */
  leaseMs?: number;
}

export const DEFAULT_LANE = 'default';

export interface JobContext {
  id: bigint;
  kind: string;
  /** 1 on the first run. */
  attempt: number;
  /** Aborted when the worker stops. */
  signal: AbortSignal;
  /**
   * Writes what a job did outside the database (a message Telegram accepted, a webhook delivered):
   * tried again with backoff while the database is away, until it succeeds, the worker stops or the
   * job's lease nearly ends. Throwing at once instead would leave the job to run again, and send
   * again, as soon as the database is back.
   */
  persist<T>(write: () => Promise<T>): Promise<T>;
}

export type JobHandler<P = unknown> = (payload: P, ctx: JobContext) => Promise<void>;

export interface EnqueueOptions {
  /** Not before this long after the database's now (default 0: due at once). */
  delayMs?: number;
  /** Not before this moment, compared with the database's clock (instead of `delayMs`). */
  runAt?: Date;
  /** While a pending or running job has this key, enqueueing another with it does nothing. */
  key?: string;
  /** Jobs of one group run one at a time (one seller's webhook deliveries): a group cannot take every worker of its lane. */
  group?: string;
  maxAttempts?: number;
  /** A failure later than this long after enqueueing (the database's now) is final (default one day). */
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
  /**
   * This process's clock, for the one thing measured on it: how long `ctx.persist` keeps trying
   * (a duration, so its offset does not matter). No job time comes from it: when a job is due, a
   * lease's end, a retry and `failed_at` are the database's `now()`, the same for every process
   * sharing the database, so a process whose clock is ahead does not take another's running job.
   */
  now?: () => Date;
  /**
   * Tests only: stands in for the database's `now()` in every job time the queue writes or compares,
   * so a test moves time instead of waiting. Never set in production (app.ts passes only a test's clock).
   */
  dbNow?: () => Date;
  /** How long an idle worker waits before it looks again. */
  pollMs?: number;
  /** How long a claim lasts; a job running longer may be taken again by another worker. */
  leaseMs?: number;
  /** Jobs of the default lane one process runs at the same time. */
  concurrency?: number;
  /** Jobs of each other lane one process runs at the same time (default 1 per lane). */
  lanes?: Record<string, number>;
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  maxAttempts?: number;
  maxAgeMs?: number;
  /** Names this process in claims (for operators reading the table). */
  name?: string;
  /** How long stop() waits for the jobs in hand before it leaves them to their lease. */
  stopGraceMs?: number;
}

const silent: Logger = { info() {}, warn() {}, error() {} };
const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 2000);
/** Writes after a job's effect stop being tried this long before its lease ends (another process may then take it). */
const PERSIST_MARGIN_MS = 10_000;
const PERSIST_FIRST_DELAY_MS = 200;
const PERSIST_MAX_DELAY_MS = 5_000;

type Outcome = { ok: true } | { ok: false; error: unknown };

/** Sleeps that wake() ends early. */
class Waiter {
  #waiting: (() => void)[] = [];

  sleep(ms: number) {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#waiting = this.#waiting.filter((w) => w !== done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#waiting.push(done);
    });
  }

  wake() {
    for (const w of [...this.#waiting]) w();
  }
}

const everyKey = (kind: string) => `every:${kind}`;

/**
 * The job queue kept in the database (decision record 0016): `enqueue` writes a row, in the
 * caller's transaction if given one; each worker loop started by `start` claims due jobs one at a time
 * with SKIP LOCKED, runs the handler registered for the kind, deletes the row on success, and on
 * failure sets the next run after an exponential back-off (or the handler's RetryAfter) until the
 * attempts or the age are used up, then marks the row failed. Recurring work (`every`) is a job
 * that enqueues its next run under a fixed key when it finishes, so one schedule exists however
 * many processes share the database. Kinds are run by their lane's workers (`RegisterOptions.lane`).
 * Every job time (when it is due, a lease's end, a retry, `failed_at`) is computed by the database from
 * its own `now()`, so processes whose clocks disagree still agree on whose lease is live.
 */
export class JobQueue {
  readonly #db: JobsDb;
  readonly #log: Logger;
  readonly #now: () => Date;
  readonly #dbNow: (() => Date) | undefined;
  readonly #o: Required<Omit<JobsOptions, 'db' | 'log' | 'now' | 'dbNow'>>;
  readonly #handlers = new Map<string, { run: JobHandler<never>; everyMs?: number; scrubOnFail?: boolean; lane: string; leaseMs?: number }>();
  readonly #inFlight = new Set<Promise<unknown>>();
  readonly #waiter = new Waiter();
  #abort = new AbortController();
  #loops: Promise<void>[] = [];
  #running = false;
  /** A start() still scheduling, and how many stop()s came: a stop during that await wins over the start. */
  #starting: Promise<void> | null = null;
  #stops = 0;
  #scheduled = false;

  constructor(opts: JobsOptions) {
    this.#db = opts.db;
    this.#log = opts.log ?? silent;
    this.#now = opts.now ?? (() => new Date());
    this.#dbNow = opts.dbNow;
    this.#o = {
      pollMs: opts.pollMs ?? 1000,
      leaseMs: opts.leaseMs ?? 5 * 60_000,
      concurrency: opts.concurrency ?? 1,
      backoffBaseMs: opts.backoffBaseMs ?? 1000,
      backoffMaxMs: opts.backoffMaxMs ?? 60 * 60_000,
      maxAttempts: opts.maxAttempts ?? 10,
      maxAgeMs: opts.maxAgeMs ?? 24 * 60 * 60_000,
      name: opts.name ?? `${hostname()}:${process.pid}`,
      stopGraceMs: opts.stopGraceMs ?? 5_000,
      lanes: opts.lanes ?? {},
    };
  }

  /** Registers the handler of a kind; a worker only claims kinds it has handlers for. */
  register<P>(kind: string, handler: JobHandler<P>, o: RegisterOptions = {}) {
    this.#handlers.set(kind, { run: handler as JobHandler<never>, scrubOnFail: o.scrubOnFail, lane: o.lane ?? DEFAULT_LANE, leaseMs: o.leaseMs });
  }

  /** A kind that runs every `everyMs`, on one process at a time; scheduled by `start`. */
  every(kind: string, everyMs: number, handler: JobHandler<Record<string, never>>) {
    this.#handlers.set(kind, { run: handler as JobHandler<never>, everyMs, lane: DEFAULT_LANE });
  }

  /** The new job's id, or null when a live job holds the key. Outside a transaction it wakes this process's workers. */
  async enqueue(q: Q, kind: string, payload: unknown = {}, o: EnqueueOptions = {}): Promise<bigint | null> {
    const id = await repo.insert(q, {
      kind,
      payload,
      key: o.key ?? null,
      group: o.group ?? null,
      runAt: o.runAt ?? null,
      delayMs: o.delayMs ?? 0,
      maxAttempts: o.maxAttempts ?? this.#o.maxAttempts,
      maxAgeMs: o.maxAgeMs ?? this.#o.maxAgeMs,
      at: this.#at(),
    });
    if (id !== null && !q.isTransaction) this.wake();
    return id;
  }

  /**
   * Withdraws the jobs of a kind not yet started whose payload names this `ref` (a message replaced by a
   * newer one), and those a dead process left running past their lease; a job under a live lease is left
   * to finish.
   */
  cancelPending(q: Q, kind: string, ref: string): Promise<number> {
    return repo.deletePendingByRef(q, kind, ref, this.#at());
  }

  /** Makes idle workers of this process look for due jobs at once (call it after a COMMIT that enqueued). */
  wake() {
    this.#waiter.wake();
  }

  /** Runs due jobs until none is left; returns how many ran. The worker loop and tests use it. */
  async runDue(): Promise<number> {
    let n = 0;
    while (await this.#tracked(this.#runOne())) n += 1;
    return n;
  }

  /** Enqueues the first run of every recurring kind (once per key) and starts each lane's worker loops. */
  start(): Promise<void> {
    if (this.#running) return Promise.resolve();
    this.#starting ??= this.#start().finally(() => {
      this.#starting = null;
    });
    return this.#starting;
  }

  async #start() {
    const stopsBefore = this.#stops;
    try {
      await this.#ensureSchedules();
    } catch (err) {
      this.#log.warn({ err: messageOf(err) }, 'job queue: recurring jobs will be scheduled when the database answers');
    }
    // A stop() while the schedules were written (a SIGTERM soon after listening, a slow database) found no
    // loops to wait for: starting them now would leave workers claiming jobs after the app closed.
    if (this.#stops !== stopsBefore) return;
    this.#running = true;
    this.#abort = new AbortController();
    const lanes = new Map<string, string[]>();
    for (const [kind, h] of this.#handlers) lanes.set(h.lane, [...(lanes.get(h.lane) ?? []), kind]);
    this.#loops = [...lanes].flatMap(([lane, kinds]) =>
      Array.from({ length: lane === DEFAULT_LANE ? this.#o.concurrency : (this.#o.lanes[lane] ?? 1) }, () => this.#loop(kinds)),
    );
  }

  /**
   * Stops claiming, aborts the handlers' signal and waits for the jobs in hand to settle, at most
   * `stopGraceMs`: a handler that ignores the signal (an SMTP server taking its time) must not keep a
   * deploy's SIGTERM past main.ts's deadline. A job still running then keeps its claim, and another
   * process runs it again once the lease ends, as after a crash.
   */
  async stop() {
    this.#stops += 1;
    this.#running = false;
    this.#abort.abort();
    this.wake();
    const settled = Promise.allSettled([...this.#loops, ...this.#inFlight]).then(() => true);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), this.#o.stopGraceMs);
    });
    const done = await Promise.race([settled, late]);
    clearTimeout(timer);
    if (!done) this.#log.warn({ graceMs: this.#o.stopGraceMs }, 'job queue: jobs still running at stop are left to their lease');
    this.#loops = [];
  }

  /** The moment job times are computed from: undefined is the database's `now()`; a test's clock when given. */
  #at(): At {
    return this.#dbNow?.();
  }

  #tracked<T>(p: Promise<T>): Promise<T> {
    this.#inFlight.add(p);
    const forget = () => this.#inFlight.delete(p);
    void p.then(forget, forget);
    return p;
  }

  async #ensureSchedules() {
    if (this.#scheduled) return;
    for (const [kind, h] of this.#handlers) {
      if (h.everyMs !== undefined) await this.enqueue(this.#db, kind, {}, { key: everyKey(kind) });
    }
    this.#scheduled = true;
  }

  async #loop(kinds: string[]) {
    let failures = 0;
    while (this.#running) {
      try {
        await this.#ensureSchedules();
        const ran = await this.#tracked(this.#runOne(kinds, true));
        failures = 0;
        if (!ran && this.#running) await this.#waiter.sleep(this.#o.pollMs);
      } catch (err) {
        // The database is away or refused the claim: wait longer each time, up to a minute.
        failures += 1;
        if (!this.#running) break;
        this.#log.warn({ err: messageOf(err) }, 'job queue: cannot reach the database');
        await this.#waiter.sleep(Math.min(this.#o.pollMs * 2 ** failures, 60_000));
      }
    }
  }

  /** Claims one due job of the given kinds (default: every kind) and runs it; false when none was due. */
  async #runOne(kinds = [...this.#handlers.keys()], fromLoop = false): Promise<boolean> {
    const claim = `${this.#o.name}:${randomUUID()}`;
    const leaseMs = kinds.length === 0 ? this.#o.leaseMs : Math.max(...kinds.map((k) => this.#handlers.get(k)?.leaseMs ?? this.#o.leaseMs));
    const job = await repo.claim(this.#db, { kinds, at: this.#at(), leaseMs, claim });
    if (!job) return false;
    if (fromLoop && !this.#running) {
      // stop() came while the loop's claim was on its way (its signal is already aborted): the job goes back
      // as it was, due at once for another process, instead of starting only to be cut off.
      await repo.release(this.#db, job.id, claim, this.#at());
      return true;
    }
    if (job.attempts > job.max_attempts) {
      // Claimed again after its lease ran out each time: its process died while running it.
      await this.#settle(job, claim, { ok: false, error: new Error('the process running it stopped') });
      return true;
    }
    const run = this.#handlers.get(job.kind)!.run as JobHandler;
    // Measured on this process's clock from just after the claim: the lease's end is the database's
    // time, which this process does not read, but both clocks run at the same rate.
    const persistUntil = this.#now().getTime() + leaseMs - Math.min(PERSIST_MARGIN_MS, leaseMs / 10);
    const persist = <T>(write: () => Promise<T>) => this.#persist(write, persistUntil);
    let outcome: Outcome;
    try {
      await run(job.payload, { id: job.id, kind: job.kind, attempt: job.attempts, signal: this.#abort.signal, persist });
      outcome = { ok: true };
    } catch (error) {
      outcome = { ok: false, error };
    }
    await this.#settle(job, claim, outcome, persist);
    return true;
  }

  /** `write`, tried again after 0.2, 0.4 … up to 5 s apart while it fails, until `until` or the worker stops. */
  async #persist<T>(write: () => Promise<T>, until: number): Promise<T> {
    let delay = PERSIST_FIRST_DELAY_MS;
    for (;;) {
      try {
        return await write();
      } catch (err) {
        if (this.#abort.signal.aborted || this.#now().getTime() + delay >= until) throw err;
        this.#log.warn({ err: messageOf(err) }, 'job queue: cannot record a finished job yet; trying again');
        await sleep(delay, undefined, { signal: this.#abort.signal }).catch(() => undefined);
        delay = Math.min(delay * 2, PERSIST_MAX_DELAY_MS);
      }
    }
  }

  /** Ends a claimed job: deleted, retried later or failed; a recurring one enqueues its next run in the same transaction. */
  async #settle(job: ClaimedJob, claim: string, outcome: Outcome, persist: JobContext['persist'] = (write) => write()) {
    const { everyMs, scrubOnFail = false } = this.#handlers.get(job.kind) ?? {};
    const scheduleNext = async (trx: Q) => {
      if (everyMs !== undefined) await this.enqueue(trx, job.kind, job.payload, { key: everyKey(job.kind), delayMs: everyMs });
    };
    if (outcome.ok) {
      // The job did its work (a message may be out): its removal outlasts a short outage rather than letting it run again.
      await persist(() =>
        repo.transaction(this.#db, async (trx) => {
          if (await repo.remove(trx, job.id, claim)) await scheduleNext(trx);
        }),
      );
      return;
    }
    const error = messageOf(outcome.error);
    const delay = outcome.error instanceof RetryAfter ? outcome.error.ms : this.#backoff(job.attempts);
    const about = { job: String(job.id), kind: job.kind, attempt: job.attempts, err: error };
    const final = outcome.error instanceof GiveUp;
    // A failure is recorded through a short outage as a success is (persist): written once, a write the restarting
    // database refused left the job 'running' with nobody on it until its lease ended (up to five minutes), its
    // group waiting behind it, and a GiveUp job then ran again (stress round 13). Both writes are no-ops once done.
    if (!final && job.attempts < job.max_attempts) {
      // Due again `delay` after the database's now, unless that is past the job's give_up_at ('late').
      const retryAt = await persist(() => repo.retry(this.#db, job.id, claim, delay, error, this.#at()));
      if (retryAt === null) {
        this.#log.warn(about, 'job failed after its lease ended; another worker may run it again');
        return;
      }
      if (retryAt !== 'late') {
        this.#log.warn({ ...about, retryAt: retryAt.toISOString() }, 'job failed; retrying');
        return;
      }
    }
    this.#log.error(about, 'job failed for good');
    await persist(() =>
      repo.transaction(this.#db, async (trx) => {
        if (await repo.fail(trx, job.id, claim, this.#at(), error, scrubOnFail)) await scheduleNext(trx);
      }),
    );
  }

  #backoff(attempt: number) {
    return Math.min(this.#o.backoffBaseMs * 2 ** (attempt - 1), this.#o.backoffMaxMs);
  }
}

export type Jobs = JobQueue;

export function createJobs(opts: JobsOptions): Jobs {
  return new JobQueue(opts);
}
