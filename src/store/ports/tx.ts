/**
 * The transaction handle: the small reads and writes the core's routines run inside one of the
 * store's transactions (`Store.transact`, ../types.ts; how a routine runs on both stores:
 * ../tx-steps.ts). Each routine asks for the part it needs — recording an event `OutboxTx`,
 * settling a job `SettleTx`, a claim `ClaimTx`, a webhook's change `WebhookTx`, counting
 * `CountTx` and `ConfirmTx`, the monthly reset `ResetTx`, a batch `BatchTx` — and every store hands it the whole
 * `StoreTx`. SQL and row mapping only: what to write from what was read is the routine's.
 * SQLite's handle answers at once, PostgreSQL's with promises (`Step`), and PostgreSQL locks the
 * rows a decision depends on (each method says which).
 */
import type { Step } from "../tx-steps.ts";
import type { BatchItemStatus, BatchRecord, BatchStatus } from "./batches.ts";
import type { EmailAlertKind, EmailAlertState } from "./email-alerts.ts";
import type { ClaimRequest, EventRecord, JobRecord, JobStatus, NewJob } from "./jobs.ts";
import type { UsageCounters, UsageMark } from "./usage.ts";
import type { DeliveryAttemptRecord, WebhookRecord, WebhookStatus } from "./webhooks.ts";

/* ───────────── records the routines read and write ───────────── */

/** An enabled webhook of the account, as its row stores it. */
export interface Subscription {
  id: string;
  /** JSON text of the event types it takes, as stored. */
  events: string;
  createdAt: number;
  /** Insertion order (SQLite's rowid, PostgreSQL's seq): breaks ties of `createdAt`. */
  seq: number;
}

/** The alert row to insert unless its dedupe key exists already, and the job that sends it if inserted. */
export interface PlannedAlert {
  row: {
    id: string;
    accountId: string;
    kind: EmailAlertKind;
    recipient: string;
    subject: string;
    facts: Record<string, unknown>;
    dedupeKey: string | null;
    createdAt: number;
  };
  /** Queued only when the row was inserted; its id then goes into the row's `job_id`. */
  job: NewJob;
}

/** A due job as the claim query reads it, in run order (run time, then insertion order). */
export interface ClaimCandidate {
  id: string;
  lane: string;
}

/** A settled job's new state (its lease cleared). */
export interface JobUpdate {
  id: string;
  status: JobStatus;
  runAt: number;
  lastError: string | null;
  updatedAt: number;
  finishedAt: number | null;
}

/** A webhook disabled because its deliveries gave up. */
export interface WebhookDisabling {
  webhookId: string;
  reason: string;
  updatedAt: number;
}

/** An email job's attempt, written onto its alert row. */
export interface EmailAlertUpdate {
  alertId: string;
  state: EmailAlertState;
  attempts: number;
  lastError: string | null;
  nextAttemptAt: number | null;
  sentAt: number | null;
  updatedAt: number;
}

/** What an update writes onto a webhook row. */
export interface WebhookWrite {
  url: string;
  events: string[];
  secret: string;
  status: WebhookStatus;
  disabledReason: string | null;
  updatedAt: number;
}

/* ───────────── events, jobs and alerts ───────────── */

/** What raising an email alert reads and writes. */
export interface AlertTx {
  /** The account's address; null when the account is gone. */
  ownerEmail(accountId: string): Step<string | null>;
  /** Inserts the row unless its dedupe key exists; false when it did. */
  insertAlert(row: PlannedAlert["row"]): Step<boolean>;
  /** Inserts a pending job; returns its id. */
  insertJob(job: NewJob): Step<string>;
  setAlertJob(alertId: string, jobId: string): Step<void>;
}

/** What recording an event reads and writes. */
export interface OutboxTx extends AlertTx {
  /** The account's enabled webhooks, in any order. */
  enabledSubscriptions(accountId: string): Step<Subscription[]>;
  insertEvent(event: EventRecord): Step<void>;
  /** Tells the job worker, once the transaction commits, that jobs may be due (PostgreSQL: every instance's, by NOTIFY). */
  jobsQueued(): Step<void>;
}

/** What a claim reads and writes. */
export interface ClaimTx {
  /**
   * Before a claim: the leases of instances that are gone are released, so their jobs are due
   * again at once (PostgreSQL, at most every 2 s; SQLite has one worker, whose leases start-up clears).
   */
  releaseDeadLeases(realNow: number): Step<void>;
  /**
   * Due jobs of the request's kinds outside `skipLanes`, oldest `runAt` first (then insertion
   * order), at most `window` (PostgreSQL locks them, skipping rows another claim holds).
   */
  dueJobs(request: ClaimRequest, skipLanes: readonly string[], window: number): Step<ClaimCandidate[]>;
  /** Leases the chosen jobs (attempts + 1) and returns them as they are now, in the order given. */
  leaseJobs(ids: readonly string[], claimedUntil: number): Step<JobRecord[]>;
}

/* ───────────── webhooks and their delivery log ───────────── */

/** What logging a delivery attempt reads and writes. */
export interface DeliveryLogTx {
  /** Inserts the attempt while its webhook exists; false when the webhook is gone. */
  insertAttempt(attempt: DeliveryAttemptRecord): Step<boolean>;
  /** Deletes all but the newest `keep` attempts of the webhook. */
  trimAttempts(webhookId: string, keep: number): Step<void>;
}

/** What a webhook's update reads and writes. */
export interface WebhookTx {
  /** The account's webhook, null when it has none by that id (PostgreSQL locks the row). */
  lockWebhook(accountId: string, id: string): Step<WebhookRecord | null>;
  /** Writes the webhook's fields; returns it as it is now. */
  writeWebhook(id: string, change: WebhookWrite): Step<WebhookRecord>;
  /** Cancels the webhook's pending jobs (`last_error = 'dropped'`). */
  cancelPendingJobs(webhookId: string, now: number): Step<void>;
}

/** What settling one attempt of a job reads and writes. */
export interface SettleTx extends AlertTx, DeliveryLogTx, Pick<WebhookTx, "cancelPendingJobs"> {
  /** The job's status, null when it is gone (PostgreSQL locks the row). */
  jobStatus(jobId: string): Step<JobStatus | null>;
  /** The webhook's account and status, null when it is gone (PostgreSQL locks the row). */
  webhookState(webhookId: string): Step<{ accountId: string; status: string } | null>;
  updateJob(job: JobUpdate): Step<void>;
  disableWebhook(change: WebhookDisabling): Step<void>;
  updateEmailAlert(change: EmailAlertUpdate): Step<void>;
  /** Tells the job worker, once the transaction commits, that jobs may be due. */
  jobsQueued(): Step<void>;
}

/* ───────────── counting and the monthly reset ───────────── */

/** What counting writes after the increment. */
export interface CountTx extends OutboxTx {
  /** The day's count + 1. */
  countDay(accountId: string, day: string): Step<void>;
  /** Sets each mark of the month's counters to `now`. */
  setMarks(accountId: string, period: string, marks: readonly UsageMark[], now: number): Step<void>;
}

/** What confirming a reserved unit and counting done units read and write. */
export interface ConfirmTx extends CountTx {
  /**
   * A unit reserved by this process (PostgreSQL: by this instance, `unit_reservations`) moves into
   * `used`: used + 1 and reserved − 1 (not below 0; nothing taken off when this process holds
   * none, e.g. one reclaimed after the instance was taken for dead), creating the month's
   * counters when missing. The row stays locked until commit, so concurrent confirmations see
   * distinct counters. Returns the counters after.
   */
  confirmReserved(accountId: string, period: string): Step<UsageCounters>;
  /** Gives one reserved unit of this process back (never below zero; on PostgreSQL only one this instance still holds). */
  releaseReserved(accountId: string, period: string): Step<void>;
  /** Records the image as counted this month; false (nothing written) when it is already. */
  markImageCounted(accountId: string, period: string, contentAddress: string, now: number): Step<boolean>;
  /**
   * Takes one done unit into `used` while used + every kind of reservation < quota, creating the
   * month's counters when missing, in one conditional statement (the row locked until commit);
   * the counters after, or null with nothing written when no unit is left.
   */
  takeUnit(accountId: string, period: string, quota: number): Step<UsageCounters | null>;
  /**
   * With the month's counters locked (created when missing): takes min(n, quota − taken) units
   * into `used` (taken: used + every kind of reservation) and adds them to the day's count.
   * Returns how many it took and the counters after.
   */
  takeUnits(accountId: string, period: string, quota: number, day: string, n: number): Step<{ granted: number; after: UsageCounters }>;
}

/** What the monthly reset reads and writes. */
export interface ResetTx extends OutboxTx {
  /** Sets the month's `resetEmittedAt` (creating its counters when missing) unless set; true when this call set it. */
  claimReset(accountId: string, period: string, now: number): Step<boolean>;
  /** The month's `used` (0 when nothing happened in it). */
  usedIn(accountId: string, period: string): Step<number>;
}

/* ───────────── batches ───────────── */

/** What creating, settling and canceling a batch read and write. */
export interface BatchTx extends CountTx, Pick<ConfirmTx, "markImageCounted"> {
  /**
   * Reserves `units` of the month for a batch while `used + reserved + batch_reserved + units <=
   * quota` (creating the month's counters when missing; the row locked). `{left}` when they do not fit.
   */
  reserveBatchUnits(accountId: string, period: string, quota: number, units: number): Step<{ reserved: true } | { reserved: false; left: number }>;
  insertBatch(batch: BatchRecord, items: readonly string[]): Step<void>;
  /** The batch, its row locked until the transaction ends. */
  lockBatch(batchId: string): Step<BatchRecord | null>;
  itemStatus(batchId: string, index: number): Step<BatchItemStatus | null>;
  setItem(batchId: string, index: number, status: BatchItemStatus, url: string | null, error: string | null): Step<void>;
  /** Every queued item of the batch fails with `error`; returns how many. */
  failQueuedItems(batchId: string, error: string): Step<number>;
  /** One of the batch units moves into `used`; the counters after it. */
  countBatchUnit(accountId: string, period: string): Step<UsageCounters>;
  /** Gives `units` batch units back (never below zero). */
  releaseBatchUnits(accountId: string, period: string, units: number): Step<void>;
  updateBatch(batchId: string, change: { status: BatchStatus; done: number; failed: number; finishedAt: number | null }): Step<BatchRecord>;
}

/** The whole handle, as `Store.transact` hands it to a routine. */
export interface StoreTx extends OutboxTx, ClaimTx, SettleTx, WebhookTx, CountTx, ConfirmTx, ResetTx, BatchTx {}
