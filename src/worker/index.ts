/**
 * The background worker of `ogsmith serve`: one tick per second picks up
 * due jobs (retries, emails) and the monthly reset; commits kick it at once so first attempts do
 * not wait for a tick; the test clock's advance runs everything that became due before it
 * answers. Stops cleanly: no new claims, in-flight attempts finish.
 */
import type { Clock, TestClock } from "../clock.ts";
import type { JobQueue } from "../events/jobs.ts";
import type { Outbox } from "../events/outbox.ts";
import { describeError, type Logger } from "../logger.ts";
import type { Store } from "../store/types.ts";
import { MonthlyReset } from "./monthly-reset.ts";
import { JobRunner, type RunnerOptions } from "./runner.ts";

/** How often the tick looks for retries, emails and the monthly reset (commits kick the runner at once). */
const TICK_MS = 1_000;
/** Finished jobs are kept this long (clock time) for inspection, then pruned. */
const FINISHED_JOB_RETENTION_MS = 7 * 86_400_000;
const PRUNE_EVERY_MS = 3_600_000;

export interface WorkerDeps {
  store: Store;
  clock: Clock;
  testClock: TestClock | undefined;
  jobs: JobQueue;
  outbox: Outbox;
  logger: Logger;
}

export class JobWorker {
  readonly runner: JobRunner;
  readonly monthlyReset: MonthlyReset;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;
  private readonly unsubscribe: (() => void)[] = [];
  private lastPrune = 0;

  constructor(
    private readonly deps: WorkerDeps,
    options: RunnerOptions = {},
  ) {
    this.runner = new JobRunner(deps.jobs, deps.logger, options);
    this.monthlyReset = new MonthlyReset(deps.store, deps.clock, deps.outbox);
  }

  /** Resolves once the start-up catch-up (released leases, a reset missed while down) is done. */
  async start(): Promise<void> {
    const { jobs, logger, testClock } = this.deps;
    try {
      const released = await jobs.releaseLeases();
      if (released > 0) logger.info("released job leases left by a previous process", { jobs: released });
    } catch (error) {
      // The leases run out on their own; their jobs run then.
      logger.error("releasing job leases failed", describeError(error));
    }
    this.unsubscribe.push(jobs.onEnqueued(() => this.runner.wake()));
    if (testClock) this.unsubscribe.push(testClock.onAdvance(() => this.runDue()));
    await this.tick(); // catch up: a reset missed while down, jobs left due or in flight by a crash
    this.schedule();
  }

  /**
   * The next tick one interval after this one finished: ticks never overlap, and a plain timer
   * costs nothing between them (a cron expression's next-time arithmetic ran on every tick).
   */
  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.tick().finally(() => this.schedule());
    }, TICK_MS);
  }

  /** Everything due now: the monthly reset, then every job (and the jobs those cause). */
  async runDue(): Promise<void> {
    await this.maintain();
    await this.runner.runDue();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    for (const off of this.unsubscribe.splice(0)) off();
    await this.runner.stop();
  }

  private async tick(): Promise<void> {
    await this.maintain();
    this.runner.wake();
  }

  private async maintain(): Promise<void> {
    try {
      await this.monthlyReset.check();
      const now = this.deps.clock.now();
      if (now - this.lastPrune >= PRUNE_EVERY_MS) {
        this.lastPrune = now;
        await this.deps.jobs.pruneFinished(FINISHED_JOB_RETENTION_MS);
      }
    } catch (error) {
      this.deps.logger.error("worker maintenance failed", describeError(error));
    }
  }
}
