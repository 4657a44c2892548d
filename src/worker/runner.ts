/**
 * Runs due jobs: claims them with a lease, performs them concurrently (bounded overall and per
 * lane, so one slow endpoint cannot hold back the others) and settles each outcome.
 *
 * `kick()` is cheap and coalesced: a commit that queued jobs calls it (the store tells the job
 * queue, `Store.onJobsAvailable`) so the first attempt starts at once, the worker's tick calls it every second for retries, and every
 * finished job calls it to fill its slot. `runDue()` runs until nothing is due or in flight
 * (the test clock's advance awaits it).
 */
import type { JobQueue } from "../events/jobs.ts";
import type { JobRecord } from "../store/types.ts";
import { describeError, type Logger } from "../logger.ts";

export interface RunnerOptions {
  /** Jobs in flight at once. */
  concurrency?: number;
  /** Jobs of one lane (one webhook endpoint) in flight at once. */
  perLane?: number;
  /** How long a claim protects a job (real time); longer than any attempt may take. */
  leaseMs?: number;
}

export class JobRunner {
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly laneCounts = new Map<string, number>();
  private readonly concurrency: number;
  private readonly perLane: number;
  private readonly leaseMs: number;
  private readonly abort = new AbortController();
  private kickPending = false;
  private searchPastFullLanes = true;
  private stopped = false;

  constructor(
    private readonly queue: JobQueue,
    private readonly logger: Logger,
    options: RunnerOptions = {},
  ) {
    this.concurrency = options.concurrency ?? 64;
    this.perLane = options.perLane ?? 8;
    this.leaseMs = options.leaseMs ?? 60_000;
  }

  get active(): number {
    return this.inFlight.size;
  }

  /**
   * Something new may be due (a commit, a tick, a clock advance): run what is due, and allow
   * one search past busy lanes again.
   */
  wake(): void {
    this.searchPastFullLanes = true;
    this.kick();
  }

  /**
   * Schedules one pump right after the current I/O phase: every completion and commit in one
   * event-loop turn shares a single claim query.
   */
  kick(): void {
    if (this.stopped || this.kickPending) return;
    this.kickPending = true;
    setImmediate(() => {
      this.kickPending = false;
      void this.pump();
    });
  }

  /**
   * Claims and starts as many due jobs as there is room for; returns how many started. One pump
   * at a time: a pump asked for while one runs is folded into another round of that one.
   */
  pump(): Promise<number> {
    if (this.pumping) {
      this.pumpAgain = true;
      return this.pumping;
    }
    this.pumping = (async () => {
      let started = 0;
      do {
        this.pumpAgain = false;
        started += await this.pumpOnce();
      } while (this.pumpAgain && !this.stopped);
      return started;
    })().finally(() => (this.pumping = undefined));
    return this.pumping;
  }

  private pumping: Promise<number> | undefined;
  private pumpAgain = false;

  private async pumpOnce(): Promise<number> {
    if (this.stopped) return 0;
    let started = 0;
    for (;;) {
      const free = this.concurrency - this.inFlight.size;
      if (free <= 0) break;
      let claimed;
      try {
        claimed = await this.queue.claimDue({
          limit: free,
          laneRoom: (lane) => this.perLane - (this.laneCounts.get(lane) ?? 0),
          leaseMs: this.leaseMs,
          searchPastFullLanes: this.searchPastFullLanes,
        });
      } catch (error) {
        this.logger.error("claiming jobs failed", describeError(error));
        break;
      }
      if (claimed.searchedEmpty) this.searchPastFullLanes = false;
      // Stopped while claiming: the leases stay and the next start runs these jobs.
      if (claimed.jobs.length === 0 || this.stopped) break;
      for (const job of claimed.jobs) this.start(job);
      started += claimed.jobs.length;
    }
    return started;
  }

  /** Runs every job that is due now, including ones that become due by finishing others; resolves when idle. */
  async runDue(): Promise<void> {
    this.searchPastFullLanes = true;
    for (;;) {
      await this.pump();
      if (this.inFlight.size === 0) return;
      await Promise.race(this.inFlight.values());
    }
  }

  /**
   * Stops claiming and lets the attempts in flight finish; after `graceMs` their signal is
   * aborted. An aborted job keeps its lease and runs again after a restart (never lost).
   */
  async stop(graceMs = 10_000): Promise<void> {
    this.stopped = true;
    await this.pumping;
    const all = Promise.allSettled([...this.inFlight.values()]);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const grace = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), graceMs)));
    if ((await Promise.race([all, grace])) === "late") this.abort.abort(new Error("worker stopping"));
    clearTimeout(timer);
    await all;
  }

  private start(job: JobRecord): void {
    this.laneCounts.set(job.lane, (this.laneCounts.get(job.lane) ?? 0) + 1);
    const run = this.execute(job).finally(() => {
      this.inFlight.delete(job.id);
      const left = (this.laneCounts.get(job.lane) ?? 1) - 1;
      if (left <= 0) this.laneCounts.delete(job.lane);
      else this.laneCounts.set(job.lane, left);
      this.kick();
    });
    this.inFlight.set(job.id, run);
  }

  private async execute(job: JobRecord): Promise<void> {
    const kind = this.queue.kindOf(job.kind);
    if (!kind) return; // not claimable: claimDue only takes registered kinds
    // A delivery's log lines name its webhook by id, never by URL (a URL's path can be a credential).
    const which = job.webhookId ? { job_id: job.id, kind: job.kind, webhook_id: job.webhookId } : { job_id: job.id, kind: job.kind };
    let outcome;
    try {
      outcome = await kind.perform(job, this.abort.signal);
    } catch (error) {
      this.logger.warn("job failed with an exception", { ...which, ...describeError(error) });
      outcome = { ok: false, error: error instanceof Error ? error.message : String(error) };
    }
    // Cut short by shutdown: not the receiver's fault. The lease stays; the next start runs it again.
    if (this.abort.signal.aborted) return;
    try {
      const settled = await this.queue.settle(job, outcome);
      if (settled.gaveUp) this.logger.warn("job gave up", { ...which, attempts: settled.attempt, error: outcome.error });
    } catch (error) {
      // The lease stays; the job runs again when it expires (at least once, never lost).
      this.logger.error("settling a job failed", { ...which, ...describeError(error) });
    }
  }
}
