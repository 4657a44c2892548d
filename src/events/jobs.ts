/**
 * The job table as the core uses it, shared by every kind of background side effect.
 *
 * - Jobs are created by the store in the transaction of the change that causes them (event
 *   fan-out, alerts); `enqueue` adds one on its own.
 * - `claimDue` hands the worker due jobs with a lease, respecting per-lane caps so one slow
 *   endpoint cannot take every slot; claiming counts the attempt, so a process that dies
 *   mid-job has still "used" it and the job runs again once the lease is gone.
 * - `settle` decides the outcome from the kind's retry schedule (data, not if-chains) — or its
 *   own `retryDelayMs` where a kind computes delays per attempt (webhooks: jitter, Retry-After)
 *   — and writes it together with the kind's bookkeeping in one transaction of the store
 *   (`settleJob`, ./settlement.ts). Claiming is `claimJobs` (./lane-claim.ts), likewise.
 *
 * A kind is registered once (`register`): webhook deliveries and email alerts by their modules.
 */
import type { Clock } from "../clock.ts";
import type { ClaimResult, JobRecord, JobSettlement, JobStatus, NewJob, Store } from "../store/types.ts";
import { claimJobs } from "./lane-claim.ts";
import { type AttemptLog, settleJob } from "./settlement.ts";

export interface JobOutcome {
  ok: boolean;
  /** Why it failed (stored as `last_error`). */
  error?: string;
  /** False: give up now instead of retrying (e.g. an SMTP 550). */
  retryable?: boolean;
  /** True: the job no longer applies (its webhook is gone or disabled); drop it without recording an attempt. */
  canceled?: boolean;
  /** Kind-specific facts passed through to `bookkeeping` (status code, duration, attempt id…). */
  detail?: unknown;
}

/** What an attempt's outcome means, decided before the store applies it. */
export interface PlannedSettlement {
  job: JobRecord;
  outcome: JobOutcome;
  /** The attempt number that just finished (1 = first attempt). */
  attempt: number;
  /** When the job runs again (clock time); null when it will not. */
  nextRunAt: number | null;
  /** True when this failure used up the retry schedule (or was not retryable). */
  gaveUp: boolean;
  /** The status the job gets if it is still pending. */
  status: JobStatus;
  now: number;
}

export interface SettledJob extends PlannedSettlement {
  /** False when the job had been canceled or deleted while this attempt was in flight. */
  wasPending: boolean;
}

/** The kind's own records, written by the store in the settling transaction. */
export type Bookkeeping = Pick<JobSettlement, "deliveryAttempt" | "disableWebhook" | "emailAlert">;

export interface JobKind {
  kind: string;
  /** Seconds to wait after the 1st, 2nd, … failure. A failure beyond its length gives up. */
  retrySchedule: readonly number[];
  /**
   * Optional: the wait (ms, from the start of the attempt that just failed, `job.attempts`) before
   * the next attempt, or null to give up; `attemptStartedAt` is that start on the clock. Used
   * instead of `retrySchedule` for kinds whose delay depends on the attempt (jitter, an answer's
   * Retry-After). Not called for successes, cancellations or non-retryable failures.
   */
  retryDelayMs?(job: JobRecord, outcome: JobOutcome, attemptStartedAt: number): number | null;
  /** Does the work, outside any transaction. Throwing counts as a retryable failure. */
  perform(job: JobRecord, signal: AbortSignal): Promise<JobOutcome>;
  /** Bookkeeping for the settling transaction (delivery log, disabling, alert state). Pure. */
  bookkeeping?(planned: PlannedSettlement): Bookkeeping;
  /** Where the bookkeeping's `deliveryAttempt` is logged: required when the kind has one (webhook deliveries). */
  attemptLog?: AttemptLog;
}

/** The kind's wait before the next attempt in whole ms (never negative), or null when it gives up. */
function retryDelay(kind: JobKind, job: JobRecord, outcome: JobOutcome, startedAt: number): number | null {
  if (kind.retryDelayMs) {
    const ms = kind.retryDelayMs(job, outcome, startedAt);
    return ms === null || !Number.isFinite(ms) ? null : Math.max(0, Math.round(ms));
  }
  const seconds = kind.retrySchedule[job.attempts - 1];
  return seconds === undefined ? null : seconds * 1000;
}

/** Real time in ms, for leases only (they protect the process, so they ignore the test clock). */
export type RealTime = () => number;
const realTimeNow: RealTime = () => Date.now();

export class JobQueue {
  private readonly kinds = new Map<string, JobKind>();
  private readonly enqueuedListeners = new Set<() => void>();
  /** Clock time each claimed job was handed out: retry delays count from the attempt, not from when it was settled. */
  private readonly claimedAt = new WeakMap<JobRecord, number>();

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly realNow: RealTime = realTimeNow,
  ) {}

  register(kind: JobKind): void {
    if (this.kinds.has(kind.kind)) throw new Error(`job kind ${kind.kind} is registered twice`);
    this.kinds.set(kind.kind, kind);
  }

  kindOf(name: string): JobKind | undefined {
    return this.kinds.get(name);
  }

  registeredKinds(): string[] {
    return [...this.kinds.keys()];
  }

  /** Adds a job on its own (due now unless `runAt` says otherwise); the store tells the worker once it is committed. */
  enqueue(job: Omit<NewJob, "runAt" | "now"> & { runAt?: number }): Promise<string> {
    const now = this.clock.now();
    return this.store.enqueueJob({ ...job, runAt: job.runAt ?? now, now });
  }

  /** Listeners (the worker) learn that jobs were committed and may be due now. */
  onEnqueued(listener: () => void): () => void {
    this.enqueuedListeners.add(listener);
    return () => this.enqueuedListeners.delete(listener);
  }

  notify(): void {
    for (const listener of this.enqueuedListeners) listener();
  }

  /**
   * Claims up to `limit` due jobs of registered kinds, oldest first, at most `laneRoom(lane)` per
   * lane; each claimed job's `attempts` is incremented. `searchedEmpty`: the search past full
   * lanes found nothing, so the caller skips it until something new may be due.
   */
  async claimDue(options: { limit: number; laneRoom: (lane: string) => number; leaseMs: number; searchPastFullLanes?: boolean }): Promise<ClaimResult> {
    const kinds = this.registeredKinds();
    if (options.limit <= 0 || kinds.length === 0) return { jobs: [], searchedEmpty: false };
    const now = this.clock.now();
    const request = { kinds, now, realNow: this.realNow(), ...options };
    const claimed = await this.store.transact((tx) => claimJobs(tx, request));
    for (const job of claimed.jobs) this.claimedAt.set(job, now);
    return claimed;
  }

  /** Records one attempt's outcome: done, retry at the next step of the schedule, or give up. */
  async settle(job: JobRecord, outcome: JobOutcome): Promise<SettledJob> {
    const kind = this.kinds.get(job.kind);
    const now = this.clock.now();
    // From the attempt's start: a test-clock advance while the attempt ran does not push the retry out.
    const startedAt = this.claimedAt.get(job) ?? now;
    const delay = outcome.ok || outcome.canceled || outcome.retryable === false || !kind ? null : retryDelay(kind, job, outcome, startedAt);
    let status: JobStatus;
    let nextRunAt: number | null = null;
    let gaveUp = false;
    if (outcome.ok) status = "succeeded";
    else if (outcome.canceled) status = "canceled";
    else if (delay !== null) {
      status = "pending";
      nextRunAt = startedAt + delay;
    } else {
      status = "failed";
      gaveUp = true;
    }
    const planned: PlannedSettlement = { job, outcome, attempt: job.attempts, nextRunAt, gaveUp, status, now };
    const settlement: JobSettlement = {
      jobId: job.id,
      now,
      status,
      runAt: nextRunAt ?? job.runAt,
      lastError: outcome.ok ? null : (outcome.error ?? "failed"),
      ...kind?.bookkeeping?.(planned),
    };
    const result = await this.store.transact((tx) => settleJob(tx, settlement, kind?.attemptLog));
    return { ...planned, gaveUp: gaveUp && result.wasPending, status: result.status, wasPending: result.wasPending };
  }

  /**
   * Start-up: leases left by a previous process are released so its jobs run again at once
   * (the store leaves live leases of other instances alone).
   */
  releaseLeases(): Promise<number> {
    return this.store.releaseLeases();
  }

  /** Pending jobs per registered kind, zeros included, for /metrics. */
  async pendingByKind(): Promise<Record<string, number>> {
    const counts: Record<string, number> = Object.fromEntries([...this.kinds.keys()].map((kind) => [kind, 0]));
    return { ...counts, ...(await this.store.pendingJobsByKind()) };
  }

  /** Deletes finished jobs older than `ageMs` (clock time). */
  pruneFinished(ageMs: number): Promise<number> {
    return this.store.pruneFinishedJobs(this.clock.now() - ageMs);
  }
}
