/**
 * The outbox and the job table: the events recorded (with their fan-out to webhook deliveries and
 * email alerts), and the jobs that carry them out.
 * The rules of the Store (../types.ts) hold for every method: each is atomic, operational faults
 * are thrown as StoreUnavailableError, times are epoch ms, records are plain objects.
 */
import type { AlertDraft, EmailAlertState } from "./email-alerts.ts";
import type { DeliveryAttemptRecord } from "./webhooks.ts";

export interface EventRecord {
  /** `evt_` + random id; the same on every delivery attempt of this event. */
  id: string;
  accountId: string;
  /** image.generated | usage.warning | usage.limit_reached | usage.reset */
  type: string;
  /**
   * JSON text of the envelope's `data`, stored and returned byte for byte (not re-serialized:
   * every retry must send identical bytes, so PostgreSQL keeps it as text, not jsonb).
   */
  data: string;
  /** Clock time of the change; the envelope's `timestamp`. */
  createdAt: number;
}

export type JobStatus = "pending" | "succeeded" | "failed" | "canceled";

export interface JobRecord {
  /** `job_` + random id. */
  id: string;
  /** Which handler runs it (`webhook_delivery`, `email`, …). */
  kind: string;
  /** Fairness key: jobs of one lane share a concurrency cap (a webhook id, or `smtp`). */
  lane: string;
  accountId: string | null;
  /** Set for webhook deliveries; deleting the webhook deletes its jobs. */
  webhookId: string | null;
  /** The outbox event the job reports, when there is one. */
  eventId: string | null;
  /** Kind-specific input (JSON-serializable), null when the columns say everything. */
  payload: unknown;
  status: JobStatus;
  /** When the job is due next (clock time). */
  runAt: number;
  /** Attempts started so far; a claim increments it. */
  attempts: number;
  /** Lease end (real time); null when nobody holds it. */
  claimedUntil: number | null;
  lastError: string | null;
  createdAt: number;
  updatedAt: number;
  /** When it left `pending` (clock time). */
  finishedAt: number | null;
}

/** Job kinds and lanes the store itself creates when it fans an event out. */
export const WEBHOOK_DELIVERY_JOB = "webhook_delivery";
export const EMAIL_JOB = "email";
/** All emails share one lane: the SMTP server is one endpoint. */
export const EMAIL_LANE = "smtp";

/**
 * An outbox event to record. Recording one (in whatever routine's transaction) writes what
 * `fanOut` (src/events/fan-out.ts) plans, so the event exists if and only if the change that
 * causes it committed:
 *  1. one `WEBHOOK_DELIVERY_JOB` job per *enabled* webhook of the account whose `events` include
 *     the type, and the event row itself only when there is at least one;
 *  2. `alert`, when present and the account still exists: the alert row unless its dedupeKey
 *     exists already (then nothing more), and one `EMAIL_JOB` job whose id goes into its `jobId`.
 */
export interface EventDraft {
  type: string;
  /** JSON text of `data` (see EventRecord.data). */
  data: string;
  alert?: AlertDraft;
}

export interface NewJob {
  kind: string;
  lane: string;
  accountId?: string | null;
  webhookId?: string | null;
  eventId?: string | null;
  payload?: unknown;
  /** Clock time when it is first due. */
  runAt: number;
  /** Clock time of creation. */
  now: number;
}

export interface ClaimRequest {
  /** Only these kinds are claimed (others belong to someone else). */
  kinds: string[];
  limit: number;
  /** How many more jobs of this lane the caller can take now (called synchronously, per candidate). */
  laneRoom: (lane: string) => number;
  /** Clock time: due means `runAt <= now`. */
  now: number;
  /** Real time: a lease with `claimedUntil < realNow` has expired. */
  realNow: number;
  /** Claimed jobs get `claimedUntil = realNow + leaseMs`. */
  leaseMs: number;
  /**
   * When the oldest due jobs (a window of `limit * 2 + 16`) all sit in lanes that are full,
   * search past them for other lanes.
   */
  searchPastFullLanes?: boolean;
}

export interface ClaimResult {
  /** Claimed jobs, as they are after the claim (attempts incremented, lease set). */
  jobs: JobRecord[];
  /** The search past full lanes ran and found nothing (the caller skips it until something new may be due). */
  searchedEmpty: boolean;
}

/**
 * One attempt's outcome. The core has already computed what follows from the retry schedule;
 * the store applies it only while the job is still `pending` (it may have been canceled or
 * deleted while the attempt ran), together with the kind's bookkeeping, in one transaction.
 */
export interface JobSettlement {
  jobId: string;
  /** Clock time of settling. */
  now: number;
  /** The status to set (pending = retry at `runAt`). Clears the lease. */
  status: JobStatus;
  runAt: number;
  lastError: string | null;
  /**
   * Webhook deliveries: the attempt to log. Logged whether or not the job was still pending,
   * but only while the webhook exists (a deleted webhook's log is gone with it).
   */
  deliveryAttempt?: DeliveryAttemptRecord;
  /**
   * Webhook deliveries that gave up: only if the job was pending and the webhook is still
   * enabled — disable it with `reason`, cancel its pending jobs, and raise `alert` when given.
   */
  disableWebhook?: { webhookId: string; reason: string; alert?: AlertDraft };
  /** Email jobs: only if the job was pending — update the alert row. */
  emailAlert?: { alertId: string; state: EmailAlertState; attempts: number; lastError: string | null; nextAttemptAt: number | null; sentAt: number | null };
}

export interface SettleResult {
  /** False when the job had left `pending` (canceled, deleted) while the attempt was in flight. */
  wasPending: boolean;
  /** The job's status after settling (`canceled` when it no longer exists). */
  status: JobStatus;
}

/**
 * Events and jobs. Recording events, claiming jobs and settling them are the core's routines
 * (src/events), run through `Store.transact` on the transaction handle (./tx.ts).
 */
export interface JobsPort {
  getEvent(id: string): Promise<EventRecord | undefined>;
  /** Inserts a pending job; returns its id. */
  enqueueJob(job: NewJob): Promise<string>;
  /**
   * Tells `listener` when committed jobs may be due now, so that the job worker looks at once
   * rather than at its next tick: after any write of this store that queued jobs (deliveries of
   * an event, an email alert, an enqueued job), and with PostgreSQL also after another
   * instance's. A change that queued none (most counted images) tells nobody.
   */
  onJobsAvailable(listener: () => void): () => void;
  /**
   * Start-up of the only worker: leases of pending jobs are cleared so they run again at once;
   * returns how many. With several instances on one database, leave live leases alone (they
   * expire on their own) and return 0.
   */
  releaseLeases(): Promise<number>;
  /** Pending jobs per kind (kinds without any are absent). */
  pendingJobsByKind(): Promise<Record<string, number>>;
  /** Deletes succeeded/failed/canceled jobs that finished before `finishedBefore` (clock time). */
  pruneFinishedJobs(finishedBefore: number): Promise<number>;
  getJob(id: string): Promise<JobRecord | undefined>;
  /** Jobs with this status, oldest first; for operators and tests. */
  listJobs(filter: { status: JobStatus }): Promise<JobRecord[]>;
}
