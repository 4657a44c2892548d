/**
 * The job table's core operations, shared by every kind of background side effect.
 *
 * - `enqueue(tx, …)` inside the caller's transaction (outbox fan-out, alerts, …).
 * - `claimDue` hands the worker due jobs with a lease, respecting per-lane caps so one slow
 *   endpoint cannot take every slot; claiming counts the attempt, so a process that dies
 *   mid-job has still "used" it and the job runs again once the lease is gone.
 * - `settle` records the outcome and, on failure, the next run time from the kind's retry
 *   schedule (data, not if-chains); the kind's own bookkeeping runs in that same transaction.
 *
 * A kind is registered once (`register`): webhook deliveries here, email alerts by their module.
 */
import { and, eq, inArray, lt, sql } from "drizzle-orm";
import type { Clock } from "../clock.ts";
import type { Db, DbOrTx, Tx } from "../db/client.ts";
import { jobs, type JobRow, type JobStatus } from "../db/schema/index.ts";
import { newId } from "../ids.ts";

export interface JobOutcome {
  ok: boolean;
  /** Why it failed (stored as `last_error`). */
  error?: string;
  /** False: give up now instead of retrying (e.g. an SMTP 550). */
  retryable?: boolean;
  /** True: the job no longer applies (its webhook is gone or disabled); drop it without recording an attempt. */
  canceled?: boolean;
  /** Kind-specific facts passed through to `settled` (status code, duration, attempt id…). */
  detail?: unknown;
}

export interface SettledJob {
  job: JobRow;
  outcome: JobOutcome;
  /** The attempt number that just finished (1 = first attempt). */
  attempt: number;
  /** When the job runs again (clock time); null when it will not. */
  nextRunAt: number | null;
  /** True when this failure used up the retry schedule (or was not retryable). */
  gaveUp: boolean;
  /** The job's status after settling. */
  status: JobStatus;
  /** False when the job had been canceled or deleted while this attempt was in flight. */
  wasPending: boolean;
  now: number;
}

export interface JobKind {
  kind: string;
  /** Seconds to wait after the 1st, 2nd, … failure. A failure beyond its length gives up. */
  retrySchedule: readonly number[];
  /** Does the work, outside any transaction. Throwing counts as a retryable failure. */
  perform(job: JobRow, signal: AbortSignal): Promise<JobOutcome>;
  /** Bookkeeping in the transaction that settles the attempt (delivery log, disabling…). */
  settled?(tx: Tx, settled: SettledJob): void;
}

export interface ClaimResult {
  jobs: JobRow[];
  /** The search past full lanes ran and found nothing: do not repeat it until something new may be due. */
  searchedEmpty: boolean;
}

export interface NewJob {
  kind: string;
  lane: string;
  accountId?: string | null;
  webhookId?: string | null;
  eventId?: string | null;
  payload?: unknown;
  /** Clock time when it is first due; default now. */
  runAt?: number;
}

/** Real time in ms, for leases only (they protect the process, so they ignore the test clock). */
export type RealTime = () => number;
const realTimeNow: RealTime = () => Date.now();

export class JobQueue {
  private readonly kinds = new Map<string, JobKind>();
  private readonly enqueuedListeners = new Set<() => void>();

  constructor(
    private readonly db: Db,
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

  /** Inserts a job in the caller's transaction. Call `notify()` after commit to run it at once. */
  enqueue(_tx: DbOrTx, job: NewJob): string {
    // `_tx` documents the contract: the caller's transaction is open on this same connection,
    // so the cached statement below runs inside it.
    const now = this.clock.now();
    const id = newId("job");
    this.sql(
      `INSERT INTO jobs (id, kind, lane, account_id, webhook_id, event_id, payload, status, run_at, attempts, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?, 0, ?, ?)`,
    ).run(id, job.kind, job.lane, job.accountId ?? null, job.webhookId ?? null, job.eventId ?? null, job.payload === undefined ? null : JSON.stringify(job.payload), job.runAt ?? now, now, now);
    return id;
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
   * lane. Each claimed job's `attempts` is incremented.
   *
   * Fairness without a scan per claim: the oldest due jobs are read in a small window; only when
   * that window is all full lanes (one busy endpoint with a backlog) is the table searched past
   * them for other lanes (`searchPastFullLanes`). That search walks the busy lanes' backlog, so
   * the caller skips it again until something new may be due (a commit, a tick): `searchedEmpty`.
   */
  claimDue(options: { limit: number; laneRoom: (lane: string) => number; leaseMs: number; searchPastFullLanes?: boolean }): ClaimResult {
    const kinds = this.registeredKinds();
    if (options.limit <= 0 || kinds.length === 0) return { jobs: [], searchedEmpty: false };
    const now = this.clock.now();
    const real = this.realNow();
    const marks = (n: number) => Array.from({ length: n }, () => "?").join(", ");
    const due = `status = 'pending' AND run_at <= ? AND (claimed_until IS NULL OR claimed_until < ?) AND kind IN (${marks(kinds.length)})`;
    const window = options.limit * 2 + 16;
    return this.db.$client.transaction((): ClaimResult => {
      const taken = new Map<string, number>();
      const claimed: JobRow[] = [];
      const claim = this.sql("UPDATE jobs SET claimed_until = ?, attempts = attempts + 1 WHERE id = ? RETURNING *");
      const take = (candidates: { id: string; lane: string }[]) => {
        for (const candidate of candidates) {
          if (claimed.length >= options.limit) break;
          const already = taken.get(candidate.lane) ?? 0;
          if (already >= options.laneRoom(candidate.lane)) continue;
          taken.set(candidate.lane, already + 1);
          claimed.push(toJobRow(claim.get(real + options.leaseMs, candidate.id) as RawJob));
        }
      };
      const first = this.sql(`SELECT id, lane FROM jobs WHERE ${due} ORDER BY run_at, rowid LIMIT ?`).all(now, real, ...kinds, window) as { id: string; lane: string }[];
      take(first);
      let searchedEmpty = false;
      if (claimed.length < options.limit && first.length === window && options.searchPastFullLanes) {
        const full = [...new Set(first.map((c) => c.lane))].filter((lane) => (taken.get(lane) ?? 0) >= options.laneRoom(lane));
        const beyond = this.sql(`SELECT id, lane FROM jobs WHERE ${due}${full.length > 0 ? ` AND lane NOT IN (${marks(full.length)})` : ""} ORDER BY run_at, rowid LIMIT ?`).all(
          now,
          real,
          ...kinds,
          ...full,
          window,
        ) as { id: string; lane: string }[];
        const before = claimed.length;
        take(beyond);
        searchedEmpty = claimed.length === before;
      }
      return { jobs: claimed, searchedEmpty };
    })();
  }

  /** Records one attempt's outcome: done, retry at the next step of the schedule, or give up. */
  settle(job: JobRow, outcome: JobOutcome): SettledJob {
    const kind = this.kinds.get(job.kind);
    const schedule = kind?.retrySchedule ?? [];
    return this.db.transaction((tx) => {
      const now = this.clock.now();
      const current = this.sql("SELECT status FROM jobs WHERE id = ?").get(job.id) as { status: JobStatus } | null;
      const wasPending = current?.status === "pending";
      let status: JobStatus = current?.status ?? "canceled";
      let nextRunAt: number | null = null;
      let gaveUp = false;
      if (wasPending) {
        if (outcome.ok) status = "succeeded";
        else if (outcome.canceled) status = "canceled";
        else if (outcome.retryable !== false && job.attempts - 1 < schedule.length) {
          status = "pending";
          nextRunAt = now + schedule[job.attempts - 1]! * 1000;
        } else {
          status = "failed";
          gaveUp = true;
        }
        this.sql("UPDATE jobs SET status = ?, run_at = ?, claimed_until = NULL, last_error = ?, updated_at = ?, finished_at = ? WHERE id = ?").run(
          status,
          nextRunAt ?? job.runAt,
          outcome.ok ? null : (outcome.error ?? "failed"),
          now,
          status === "pending" ? null : now,
          job.id,
        );
      }
      const settled: SettledJob = { job, outcome, attempt: job.attempts, nextRunAt, gaveUp, status, wasPending, now };
      kind?.settled?.(tx, settled);
      return settled;
    });
  }

  /**
   * A cached prepared statement. The hot paths (enqueue, claim, settle) use these directly:
   * drizzle builds and prepares every query anew, which cost more than the SQL itself here.
   */
  private sql(text: string) {
    return this.db.$client.query(text);
  }

  /**
   * Start-up: leases left by a previous process are released so its jobs run again at once.
   * One worker per database is the deployment model (SQLite, one process); were a second one
   * running, a job could run twice, which at-least-once delivery allows.
   */
  releaseLeases(): number {
    return this.db.update(jobs).set({ claimedUntil: null }).where(and(eq(jobs.status, "pending"), sql`${jobs.claimedUntil} IS NOT NULL`)).returning({ id: jobs.id }).all().length;
  }

  /** Pending jobs per kind, for /metrics. */
  pendingByKind(): Record<string, number> {
    const rows = this.db
      .select({ kind: jobs.kind, n: sql<number>`count(*)` })
      .from(jobs)
      .where(eq(jobs.status, "pending"))
      .groupBy(jobs.kind)
      .all();
    const counts: Record<string, number> = Object.fromEntries([...this.kinds.keys()].map((kind) => [kind, 0]));
    for (const row of rows) counts[row.kind] = row.n;
    return counts;
  }

  /** Drops pending jobs matching `where` (e.g. a deleted or disabled webhook's deliveries). */
  cancelPending(tx: DbOrTx, where: { webhookId: string }): number {
    const now = this.clock.now();
    return tx
      .update(jobs)
      .set({ status: "canceled", finishedAt: now, updatedAt: now, lastError: "dropped" })
      .where(and(eq(jobs.webhookId, where.webhookId), eq(jobs.status, "pending")))
      .returning({ id: jobs.id })
      .all().length;
  }

  /** Deletes finished jobs older than `ageMs` (clock time). */
  pruneFinished(ageMs: number): number {
    const cutoff = this.clock.now() - ageMs;
    return this.db
      .delete(jobs)
      .where(and(inArray(jobs.status, ["succeeded", "failed", "canceled"]), lt(jobs.finishedAt, cutoff)))
      .returning({ id: jobs.id })
      .all().length;
  }
}

/** A `jobs` row as SQLite returns it. */
interface RawJob {
  id: string;
  kind: string;
  lane: string;
  account_id: string | null;
  webhook_id: string | null;
  event_id: string | null;
  payload: string | null;
  status: JobStatus;
  run_at: number;
  attempts: number;
  claimed_until: number | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
}

function toJobRow(raw: RawJob): JobRow {
  return {
    id: raw.id,
    kind: raw.kind,
    lane: raw.lane,
    accountId: raw.account_id,
    webhookId: raw.webhook_id,
    eventId: raw.event_id,
    payload: raw.payload === null ? null : JSON.parse(raw.payload),
    status: raw.status,
    runAt: raw.run_at,
    attempts: raw.attempts,
    claimedUntil: raw.claimed_until,
    lastError: raw.last_error,
    createdAt: raw.created_at,
    updatedAt: raw.updated_at,
    finishedAt: raw.finished_at,
  };
}
