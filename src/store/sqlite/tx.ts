/**
 * The SQLite transaction handle (../ports/tx.ts): the reads and writes the core's routines run
 * inside one of its transactions (`transact`, ./store.ts). SQL and row mapping only. Every call
 * answers at once; it is valid only inside a write body of the connection (one connection: one
 * handle serves every transaction).
 */
import { newId } from "../../ids.ts";
import type { BatchItemStatus, BatchRecord, BatchStatus } from "../ports/batches.ts";
import type { ClaimRequest, EventRecord, JobRecord, JobStatus, NewJob } from "../ports/jobs.ts";
import type { ClaimCandidate, EmailAlertUpdate, JobUpdate, PlannedAlert, StoreTx, Subscription, WebhookDisabling, WebhookWrite } from "../ports/tx.ts";
import type { UsageCounters, UsageMark } from "../ports/usage.ts";
import type { DeliveryAttemptRecord, WebhookRecord } from "../ports/webhooks.ts";
import { BATCH, columns, JOB, toJob, toWebhook, USAGE, WEBHOOK } from "../records.ts";
import type { SqliteConnection } from "./connection.ts";

const JOB_COLUMNS = columns(JOB);
const WEBHOOK_COLUMNS = columns(WEBHOOK);
const BATCH_COLUMNS = columns(BATCH);
const USAGE_COLUMNS = columns(USAGE);
const MARK_COLUMNS: Record<UsageMark, string> = {
  warned80At: USAGE.warned80At,
  warned90At: USAGE.warned90At,
  warned95At: USAGE.warned95At,
  limitReachedAt: USAGE.limitReachedAt,
};
/*
 * The texts of the counting path's statements, built once: each count looks its statement up by
 * text (./statements.ts), and a constant string keeps its hash where a text built per call is
 * hashed again every time.
 */
const CONFIRM_RESERVED = `INSERT INTO usage_periods (account_id, period, used, reserved) VALUES (?, ?, 1, 0)
  ON CONFLICT (account_id, period) DO UPDATE SET used = used + 1, reserved = max(reserved - 1, 0)
  RETURNING ${USAGE_COLUMNS}`;
const TAKE_UNIT = `INSERT INTO usage_periods (account_id, period, used) SELECT ?1, ?2, 1 WHERE ?3 > 0
  ON CONFLICT (account_id, period) DO UPDATE SET used = used + 1 WHERE used + reserved + batch_reserved < ?3
  RETURNING ${USAGE_COLUMNS}`;
/** Also the store's `releaseUnit` (./usage.ts). */
export const RELEASE_RESERVED = "UPDATE usage_periods SET reserved = reserved - 1 WHERE account_id = ? AND period = ? AND reserved > 0";
const marks = (n: number) => Array.from({ length: n }, () => "?").join(", ");

export class SqliteTx implements StoreTx {
  constructor(private readonly c: SqliteConnection) {}

  /* ───────────── events, jobs and alerts ───────────── */

  enabledSubscriptions(accountId: string): Subscription[] {
    return this.c
      .sql("SELECT id, events, created_at AS createdAt, rowid AS seq FROM webhooks WHERE account_id = ? AND status = 'enabled'")
      .all(accountId) as Subscription[];
  }

  ownerEmail(accountId: string): string | null {
    return (this.c.sql("SELECT email FROM accounts WHERE id = ?").get(accountId) as { email: string } | null)?.email ?? null;
  }

  insertEvent(event: EventRecord): void {
    this.c
      .sql("INSERT INTO events (id, account_id, type, data, created_at) VALUES (?, ?, ?, ?, ?)")
      .run(event.id, event.accountId, event.type, event.data, event.createdAt);
  }

  insertJob(job: NewJob): string {
    const id = newId("job");
    this.c
      .sql(
        `INSERT INTO jobs (id, kind, lane, account_id, webhook_id, event_id, payload, status, run_at, attempts, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?, 0, ?, ?)`,
      )
      .run(
        id,
        job.kind,
        job.lane,
        job.accountId ?? null,
        job.webhookId ?? null,
        job.eventId ?? null,
        job.payload === undefined ? null : JSON.stringify(job.payload),
        job.runAt,
        job.now,
        job.now,
      );
    return id;
  }

  jobsQueued(): void {
    this.c.jobsQueued();
  }

  insertAlert(a: PlannedAlert["row"]): boolean {
    return (
      this.c
        .sql(
          `INSERT INTO email_alerts (id, account_id, kind, recipient, subject, facts, state, attempts, dedupe_key, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?) ON CONFLICT DO NOTHING`,
        )
        .run(a.id, a.accountId, a.kind, a.recipient, a.subject, JSON.stringify(a.facts), a.dedupeKey, a.createdAt, a.createdAt).changes > 0
    );
  }

  setAlertJob(alertId: string, jobId: string): void {
    this.c.sql("UPDATE email_alerts SET job_id = ? WHERE id = ?").run(jobId, alertId);
  }

  /* ───────────── settling ───────────── */

  jobStatus(jobId: string): JobStatus | null {
    return (this.c.sql("SELECT status FROM jobs WHERE id = ?").get(jobId) as { status: JobStatus } | null)?.status ?? null;
  }

  webhookState(webhookId: string): { accountId: string; status: string } | null {
    return this.c.sql("SELECT account_id AS accountId, status FROM webhooks WHERE id = ?").get(webhookId) as { accountId: string; status: string } | null;
  }

  updateJob(j: JobUpdate): void {
    this.c
      .sql("UPDATE jobs SET status = ?, run_at = ?, claimed_until = NULL, last_error = ?, updated_at = ?, finished_at = ? WHERE id = ?")
      .run(j.status, j.runAt, j.lastError, j.updatedAt, j.finishedAt, j.id);
  }

  disableWebhook(d: WebhookDisabling): void {
    this.c.sql("UPDATE webhooks SET status = 'disabled', disabled_reason = ?, updated_at = ? WHERE id = ?").run(d.reason, d.updatedAt, d.webhookId);
  }

  cancelPendingJobs(webhookId: string, now: number): void {
    this.c
      .sql("UPDATE jobs SET status = 'canceled', finished_at = ?, updated_at = ?, last_error = 'dropped' WHERE webhook_id = ? AND status = 'pending'")
      .run(now, now, webhookId);
  }

  updateEmailAlert(e: EmailAlertUpdate): void {
    this.c
      .sql("UPDATE email_alerts SET state = ?, attempts = ?, last_error = ?, next_attempt_at = ?, sent_at = ?, updated_at = ? WHERE id = ?")
      .run(e.state, e.attempts, e.lastError, e.nextAttemptAt, e.sentAt, e.updatedAt, e.alertId);
  }

  insertAttempt(a: DeliveryAttemptRecord): boolean {
    return (
      this.c
        .sql(
          `INSERT INTO delivery_attempts (id, webhook_id, account_id, job_id, event_id, event_type, attempt, status_code, error, delivered, duration_ms, next_attempt_at, created_at)
           SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM webhooks WHERE id = ?)`,
        )
        .run(
          a.id,
          a.webhookId,
          a.accountId,
          a.jobId,
          a.eventId,
          a.eventType,
          a.attempt,
          a.statusCode,
          a.error,
          a.delivered ? 1 : 0,
          a.durationMs,
          a.nextAttemptAt,
          a.createdAt,
          a.webhookId,
        ).changes > 0
    );
  }

  trimAttempts(webhookId: string, keep: number): void {
    this.c
      .sql(
        "DELETE FROM delivery_attempts WHERE webhook_id = ? AND rowid NOT IN (SELECT rowid FROM delivery_attempts WHERE webhook_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?)",
      )
      .run(webhookId, webhookId, keep);
  }

  /* ───────────── webhooks ───────────── */

  lockWebhook(accountId: string, id: string): WebhookRecord | null {
    // The write lock is the connection's: no row lock to take.
    const row = this.c.sql(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = ? AND account_id = ?`).get(id, accountId) as Record<string, unknown> | null;
    return row ? toWebhook(row) : null;
  }

  writeWebhook(id: string, w: WebhookWrite): WebhookRecord {
    const row = this.c
      .sql(`UPDATE webhooks SET url = ?, events = ?, secret = ?, status = ?, disabled_reason = ?, updated_at = ? WHERE id = ? RETURNING ${WEBHOOK_COLUMNS}`)
      .get(w.url, JSON.stringify(w.events), w.secret, w.status, w.disabledReason, w.updatedAt, id) as Record<string, unknown>;
    return toWebhook(row);
  }

  /* ───────────── claiming ───────────── */

  releaseDeadLeases(): void {
    // One worker per file, and its start-up cleared every lease a previous run left (releaseLeases).
  }

  dueJobs(request: ClaimRequest, skipLanes: readonly string[], window: number): ClaimCandidate[] {
    const skip = skipLanes.length > 0 ? ` AND lane NOT IN (${marks(skipLanes.length)})` : "";
    return this.c
      .sql(
        `SELECT id, lane FROM jobs WHERE status = 'pending' AND run_at <= ? AND (claimed_until IS NULL OR claimed_until < ?)
         AND kind IN (${marks(request.kinds.length)})${skip} ORDER BY run_at, rowid LIMIT ?`,
      )
      .all(request.now, request.realNow, ...request.kinds, ...skipLanes, window) as ClaimCandidate[];
  }

  leaseJobs(ids: readonly string[], claimedUntil: number): JobRecord[] {
    const lease = this.c.sql(`UPDATE jobs SET claimed_until = ?, attempts = attempts + 1 WHERE id = ? RETURNING ${JOB_COLUMNS}`);
    return ids.map((id) => toJob(lease.get(claimedUntil, id) as Record<string, unknown>));
  }

  /* ───────────── counting and the monthly reset ───────────── */

  countDay(accountId: string, day: string): void {
    this.c
      .sql("INSERT INTO usage_days (account_id, day, count) VALUES (?, ?, 1) ON CONFLICT (account_id, day) DO UPDATE SET count = count + 1")
      .run(accountId, day);
  }

  setMarks(accountId: string, period: string, set: readonly UsageMark[], now: number): void {
    // A handful of texts at most (the marks set together), each compiled once.
    this.c
      .sql(`UPDATE usage_periods SET ${set.map((mark) => `${MARK_COLUMNS[mark]} = ?1`).join(", ")} WHERE account_id = ?2 AND period = ?3`)
      .run(now, accountId, period);
  }

  /* ───────────── confirming and counting units ───────────── */

  confirmReserved(accountId: string, period: string): UsageCounters {
    // The reservation made the row; the upsert keeps a confirmation without one working. One
    // process reserves on this file, so the counters alone say what is held.
    return this.c.sql(CONFIRM_RESERVED).get(accountId, period) as UsageCounters;
  }

  releaseReserved(accountId: string, period: string): void {
    this.c.sql(RELEASE_RESERVED).run(accountId, period);
  }

  markImageCounted(accountId: string, period: string, contentAddress: string, now: number): boolean {
    return (
      this.c
        .sql("INSERT INTO counted_images (account_id, period, content_address, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING")
        .run(accountId, period, contentAddress, now).changes > 0
    );
  }

  takeUnit(accountId: string, period: string, quota: number): UsageCounters | null {
    return this.c.sql(TAKE_UNIT).get(accountId, period, quota) as UsageCounters | null;
  }

  takeUnits(accountId: string, period: string, quota: number, day: string, n: number): { granted: number; after: UsageCounters } {
    // One writer: the transaction itself is the lock.
    this.c.sql("INSERT INTO usage_periods (account_id, period) VALUES (?, ?) ON CONFLICT DO NOTHING").run(accountId, period);
    const { taken } = this.c
      .sql("SELECT used + reserved + batch_reserved AS taken FROM usage_periods WHERE account_id = ? AND period = ?")
      .get(accountId, period) as { taken: number };
    const granted = Math.min(n, Math.max(0, quota - taken));
    const after = this.c
      .sql(`UPDATE usage_periods SET used = used + ? WHERE account_id = ? AND period = ? RETURNING ${USAGE_COLUMNS}`)
      .get(granted, accountId, period) as UsageCounters;
    if (granted > 0)
      this.c
        .sql("INSERT INTO usage_days (account_id, day, count) VALUES (?, ?, ?) ON CONFLICT (account_id, day) DO UPDATE SET count = count + excluded.count")
        .run(accountId, day, granted);
    return { granted, after };
  }

  claimReset(accountId: string, period: string, now: number): boolean {
    this.c.sql("INSERT INTO usage_periods (account_id, period) VALUES (?, ?) ON CONFLICT DO NOTHING").run(accountId, period);
    return (
      this.c.sql("UPDATE usage_periods SET reset_emitted_at = ? WHERE account_id = ? AND period = ? AND reset_emitted_at IS NULL").run(now, accountId, period)
        .changes > 0
    );
  }

  usedIn(accountId: string, period: string): number {
    return (this.c.sql("SELECT used FROM usage_periods WHERE account_id = ? AND period = ?").get(accountId, period) as { used: number } | null)?.used ?? 0;
  }

  /* ───────────── batches ───────────── */

  reserveBatchUnits(accountId: string, period: string, quota: number, units: number): { reserved: true } | { reserved: false; left: number } {
    this.c.sql("INSERT INTO usage_periods (account_id, period) VALUES (?, ?) ON CONFLICT DO NOTHING").run(accountId, period);
    const row = this.c
      .sql("SELECT used + reserved + batch_reserved AS taken FROM usage_periods WHERE account_id = ? AND period = ?")
      .get(accountId, period) as { taken: number };
    if (row.taken + units > quota) return { reserved: false, left: Math.max(0, quota - row.taken) };
    this.c.sql("UPDATE usage_periods SET batch_reserved = batch_reserved + ? WHERE account_id = ? AND period = ?").run(units, accountId, period);
    return { reserved: true };
  }

  insertBatch(b: BatchRecord, items: readonly string[]): void {
    this.c
      .sql(
        "INSERT INTO batches (id, account_id, signing_key_id, request_id, period, status, total, done, failed, created_at, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      )
      .run(b.id, b.accountId, b.signingKeyId, b.requestId, b.period, b.status, b.total, b.done, b.failed, b.createdAt, b.finishedAt);
    const insert = this.c.sql("INSERT INTO batch_items (batch_id, idx, status, body) VALUES (?, ?, 'queued', ?)");
    for (const [index, body] of items.entries()) insert.run(b.id, index, body);
  }

  lockBatch(batchId: string): BatchRecord | null {
    // One writer: the transaction itself is the lock.
    return this.c.sql(`SELECT ${BATCH_COLUMNS} FROM batches WHERE id = ?`).get(batchId) as BatchRecord | null;
  }

  itemStatus(batchId: string, index: number): BatchItemStatus | null {
    return (
      (this.c.sql("SELECT status FROM batch_items WHERE batch_id = ? AND idx = ?").get(batchId, index) as { status: BatchItemStatus } | null)?.status ?? null
    );
  }

  setItem(batchId: string, index: number, status: BatchItemStatus, url: string | null, error: string | null): void {
    this.c
      .sql("UPDATE batch_items SET status = ?, url = ?, error = ?, claimed_until = NULL WHERE batch_id = ? AND idx = ?")
      .run(status, url, error, batchId, index);
  }

  failQueuedItems(batchId: string, error: string): number {
    return this.c.sql("UPDATE batch_items SET status = 'failed', error = ?, claimed_until = NULL WHERE batch_id = ? AND status = 'queued'").run(error, batchId)
      .changes;
  }

  countBatchUnit(accountId: string, period: string): UsageCounters {
    return this.c
      .sql(
        `UPDATE usage_periods SET used = used + 1, batch_reserved = max(batch_reserved - 1, 0) WHERE account_id = ? AND period = ? RETURNING ${USAGE_COLUMNS}`,
      )
      .get(accountId, period) as UsageCounters;
  }

  releaseBatchUnits(accountId: string, period: string, units: number): void {
    this.c.sql("UPDATE usage_periods SET batch_reserved = max(batch_reserved - ?, 0) WHERE account_id = ? AND period = ?").run(units, accountId, period);
  }

  updateBatch(batchId: string, change: { status: BatchStatus; done: number; failed: number; finishedAt: number | null }): BatchRecord {
    return this.c
      .sql(`UPDATE batches SET status = ?, done = ?, failed = ?, finished_at = ? WHERE id = ? RETURNING ${BATCH_COLUMNS}`)
      .get(change.status, change.done, change.failed, change.finishedAt, batchId) as BatchRecord;
  }
}
