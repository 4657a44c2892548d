/**
 * How the render pool (pool.ts) shares its interactive processes between accounts, and how long
 * a job arriving now would wait for one.
 *
 * - An account's own templates (data the account wrote, so of any cost the bounds allow) run on
 *   at most half of the ready processes at a time, and a held repeat offender (offenders.ts) on
 *   one, whatever it renders: their other jobs wait, and other accounts' jobs take the rest.
 * - The wait estimate reads the recent render time (a moving average), and for a job held to a
 *   share that account's own recent render time, killed renders included (they held a process
 *   for the whole deadline): one account's slow template makes its own backlog short, not
 *   everyone's.
 *
 * Apart from the pool because it decides who may start and who is turned away, never which
 * process draws what.
 */
import { LRUCache } from "lru-cache";
import type { RepeatOffenders } from "./offenders.ts";

/** The weight of the latest render in the moving averages of render times. */
const RECENT_WEIGHT = 0.2;

/** Accounts whose recent render time is kept. */
const MAX_ACCOUNTS_REMEMBERED = 1024;

/** What the shares read of a job: whose account template it is (none for operator templates), and who asked. */
export interface SharedJob {
  tenant: string | undefined;
  account: string | undefined;
}

export interface FairShareOptions {
  /** The interactive render processes. */
  size: number;
  /** How many of one account's own templates render at once. */
  perAccountLimit: number;
  /** Whether that limit was given (then it holds as it is, not half of the ready processes). */
  limitGiven: boolean;
  /** What a render is assumed to take before any has finished (ms). */
  initialRenderMs: number;
  offenders: RepeatOffenders;
  /** How many interactive processes are ready now. */
  readyProcesses: () => number;
}

export class FairShare {
  /** Recent render time (moving average, ms) of every render that finished. */
  recentRenderMs: number;
  /** Renders running now, by account (its own templates and, for a held account, every render). */
  private readonly running = new Map<string, number>();
  /** Recent render time of each account's own templates. Bounded, least recently used out. */
  private readonly accountRenderMs = new LRUCache<string, number>({ max: MAX_ACCOUNTS_REMEMBERED });

  constructor(private readonly options: FairShareOptions) {
    this.recentRenderMs = options.initialRenderMs;
  }

  /** An account's share of the processes now: one while it is held, else half of the ready ones. */
  shareOf(account: string): number {
    if (this.options.offenders.restricted(account)) return 1;
    if (this.options.limitGiven || this.options.size === 1) return this.options.perAccountLimit;
    // Half of the ready ones, not of all: while a killed process is being replaced, the one
    // left is kept for the other accounts instead of going to the account whose render was killed.
    return Math.min(this.options.perAccountLimit, Math.floor(this.options.readyProcesses() / 2));
  }

  /** The account whose share this job counts against, if any: the owner of an account template, or a held account. */
  heldAccount(job: SharedJob): string | undefined {
    if (job.account !== undefined && this.options.offenders.restricted(job.account)) return job.account;
    return job.tenant;
  }

  mayStart(job: SharedJob): boolean {
    const account = this.heldAccount(job);
    if (account === undefined) return true;
    return (this.running.get(account) ?? 0) < this.shareOf(account);
  }

  /** A job starts. Counted for every account: a held account's renders of any template count against its one process. */
  started(job: SharedJob): void {
    for (const account of new Set([job.tenant, job.account])) if (account !== undefined) this.running.set(account, (this.running.get(account) ?? 0) + 1);
  }

  /** A job ended (answered, failed, or its process gone): its accounts' shares are free again. */
  ended(job: SharedJob): void {
    for (const account of new Set([job.tenant, job.account])) {
      if (account === undefined) continue;
      const left = (this.running.get(account) ?? 1) - 1;
      if (left > 0) this.running.set(account, left);
      else this.running.delete(account);
    }
  }

  /** A render finished in `elapsedMs`. Only successes teach the estimate: a refusal inside the process took no drawing. */
  rendered(tenant: string | undefined, elapsedMs: number): void {
    this.recentRenderMs += RECENT_WEIGHT * (elapsedMs - this.recentRenderMs);
    this.learnAccount(tenant, elapsedMs);
  }

  /** A render was killed at the deadline: its account's renders took that long. */
  killedAtDeadline(tenant: string | undefined, timeoutMs: number): void {
    this.learnAccount(tenant, timeoutMs);
  }

  /**
   * How long a job arriving now would wait for a process: the jobs already waiting, each taking
   * the recent render time, spread over every process. A job held to a share (an account's own
   * template, or any job of an account held to one process) waits at least for that account's
   * queued jobs on its share, so one account's backlog stays its own: it reaches the bound long
   * before the pool-wide estimate does.
   */
  expectedWaitMs(queue: readonly SharedJob[], account?: string): number {
    const everyone = (queue.length * this.recentRenderMs) / this.options.size;
    if (account === undefined) return Math.round(everyone);
    let own = 0;
    for (const pending of queue) if (this.heldAccount(pending) === account) own++;
    const theirs = this.accountRenderMs.peek(account) ?? this.recentRenderMs;
    return Math.round(Math.max(everyone, (own * theirs) / this.shareOf(account)));
  }

  private learnAccount(account: string | undefined, elapsedMs: number): void {
    if (account === undefined) return;
    const before = this.accountRenderMs.get(account);
    this.accountRenderMs.set(account, before === undefined ? elapsedMs : before + RECENT_WEIGHT * (elapsedMs - before));
  }
}
