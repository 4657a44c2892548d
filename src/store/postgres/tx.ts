/**
 * The PostgreSQL transaction handle (../ports/tx.ts): the reads and writes the core's routines
 * run inside one of its transactions (`transact`, ./store.ts). SQL and row mapping only; one
 * handle per transaction. Rows that a decision depends on are locked (`for update`), so
 * concurrent instances decide one after the other.
 */
import { newId } from "../../ids.ts";
import type { BatchItemStatus, BatchRecord, BatchStatus } from "../ports/batches.ts";
import type { ClaimRequest, EventRecord, JobRecord, JobStatus, NewJob } from "../ports/jobs.ts";
import type { ClaimCandidate, EmailAlertUpdate, JobUpdate, PlannedAlert, StoreTx, Subscription, WebhookDisabling, WebhookWrite } from "../ports/tx.ts";
import type { UsageCounters, UsageMark } from "../ports/usage.ts";
import type { DeliveryAttemptRecord, WebhookRecord } from "../ports/webhooks.ts";
import { BATCH, columns, JOB, toJob, toWebhook, USAGE, WEBHOOK } from "../records.ts";
import type { PostgresConnection, Tx } from "./connection.ts";
import { releaseDeadLeases } from "./liveness.ts";

const JOB_COLUMNS = columns(JOB);
const WEBHOOK_COLUMNS = columns(WEBHOOK);
const BATCH_COLUMNS = columns(BATCH);
const USAGE_COLUMNS = columns(USAGE);
const TAKEN_COLUMNS = columns(USAGE, { table: "usage_periods" });
const MARK_COLUMNS: Record<UsageMark, string> = {
  warned80At: USAGE.warned80At,
  warned90At: USAGE.warned90At,
  warned95At: USAGE.warned95At,
  limitReachedAt: USAGE.limitReachedAt,
};

export class PostgresTx implements StoreTx {
  /** Accounts' webhooks read along with `takeUnits`, for the events of the units it counted (this transaction's only). */
  readonly #subscriptions = new Map<string, Subscription[]>();

  constructor(
    private readonly c: PostgresConnection,
    readonly tx: Tx,
  ) {}

  /* ───────────── events, jobs and alerts ───────────── */

  async enabledSubscriptions(accountId: string): Promise<Subscription[]> {
    const prefetched = this.#subscriptions.get(accountId);
    if (prefetched) return prefetched;
    return (await this
      .tx`select id, events, created_at as "createdAt", seq from webhooks where account_id = ${accountId} and status = 'enabled'`) as unknown as Subscription[];
  }

  async ownerEmail(accountId: string): Promise<string | null> {
    const [owner] = await this.tx`select email from accounts where id = ${accountId}`;
    return owner ? (owner.email as string) : null;
  }

  async insertEvent(e: EventRecord): Promise<void> {
    await this.tx`insert into events (id, account_id, type, data, created_at) values (${e.id}, ${e.accountId}, ${e.type}, ${e.data}, ${e.createdAt})`;
  }

  async insertJob(j: NewJob): Promise<string> {
    const id = newId("job");
    await this.tx`insert into jobs (id, kind, lane, account_id, webhook_id, event_id, payload, status, run_at, attempts, created_at, updated_at)
      values (${id}, ${j.kind}, ${j.lane}, ${j.accountId ?? null}, ${j.webhookId ?? null}, ${j.eventId ?? null},
              ${j.payload === undefined ? null : JSON.stringify(j.payload)}, 'pending', ${j.runAt}, 0, ${j.now}, ${j.now})`;
    return id;
  }

  jobsQueued(): Promise<void> {
    return this.c.notifyJobs(this.tx);
  }

  async insertAlert(a: PlannedAlert["row"]): Promise<boolean> {
    const inserted = await this.tx`insert into email_alerts (id, account_id, kind, recipient, subject, facts, dedupe_key, created_at, updated_at)
      values (${a.id}, ${a.accountId}, ${a.kind}, ${a.recipient}, ${a.subject}, ${JSON.stringify(a.facts)}, ${a.dedupeKey}, ${a.createdAt}, ${a.createdAt})
      on conflict do nothing returning id`;
    return inserted.length > 0;
  }

  async setAlertJob(alertId: string, jobId: string): Promise<void> {
    await this.tx`update email_alerts set job_id = ${jobId} where id = ${alertId}`;
  }

  /* ───────────── settling ───────────── */

  async jobStatus(jobId: string): Promise<JobStatus | null> {
    const [row] = await this.tx`select status from jobs where id = ${jobId} for update`;
    return (row?.status as JobStatus | undefined) ?? null;
  }

  async webhookState(webhookId: string): Promise<{ accountId: string; status: string } | null> {
    const [row] = await this.tx`select account_id as "accountId", status from webhooks where id = ${webhookId} for update`;
    return (row as { accountId: string; status: string } | undefined) ?? null;
  }

  async updateJob(j: JobUpdate): Promise<void> {
    await this.tx`update jobs set status = ${j.status}, run_at = ${j.runAt}, claimed_until = null, claimed_by = null, last_error = ${j.lastError},
      updated_at = ${j.updatedAt}, finished_at = ${j.finishedAt} where id = ${j.id}`;
  }

  async disableWebhook(d: WebhookDisabling): Promise<void> {
    await this.tx`update webhooks set status = 'disabled', disabled_reason = ${d.reason}, updated_at = ${d.updatedAt} where id = ${d.webhookId}`;
  }

  async cancelPendingJobs(webhookId: string, now: number): Promise<void> {
    await this
      .tx`update jobs set status = 'canceled', finished_at = ${now}, updated_at = ${now}, last_error = 'dropped' where webhook_id = ${webhookId} and status = 'pending'`;
  }

  async updateEmailAlert(e: EmailAlertUpdate): Promise<void> {
    await this.tx`update email_alerts set state = ${e.state}, attempts = ${e.attempts}, last_error = ${e.lastError}, next_attempt_at = ${e.nextAttemptAt},
      sent_at = ${e.sentAt}, updated_at = ${e.updatedAt} where id = ${e.alertId}`;
  }

  async insertAttempt(a: DeliveryAttemptRecord): Promise<boolean> {
    const inserted = await this.tx`
      insert into delivery_attempts (id, webhook_id, account_id, job_id, event_id, event_type, attempt, status_code, error, delivered, duration_ms, next_attempt_at, created_at)
      select ${a.id}, ${a.webhookId}, ${a.accountId}, ${a.jobId}, ${a.eventId}, ${a.eventType}, ${a.attempt}, ${a.statusCode}, ${a.error}, ${a.delivered},
             ${Math.round(a.durationMs)}, ${a.nextAttemptAt}, ${a.createdAt}
      where exists (select 1 from webhooks where id = ${a.webhookId})
      returning id`;
    return inserted.length > 0;
  }

  async trimAttempts(webhookId: string, keep: number): Promise<void> {
    await this.tx`delete from delivery_attempts where webhook_id = ${webhookId} and seq not in
      (select seq from delivery_attempts where webhook_id = ${webhookId} order by created_at desc, seq desc limit ${keep})`;
  }

  /* ───────────── webhooks ───────────── */

  async lockWebhook(accountId: string, id: string): Promise<WebhookRecord | null> {
    const [row] = await this.tx`select ${this.tx.unsafe(WEBHOOK_COLUMNS)} from webhooks where id = ${id} and account_id = ${accountId} for update`;
    return row ? toWebhook(row) : null;
  }

  async writeWebhook(id: string, w: WebhookWrite): Promise<WebhookRecord> {
    const [row] = await this.tx`update webhooks set url = ${w.url}, events = ${JSON.stringify(w.events)}, secret = ${w.secret},
        status = ${w.status}, disabled_reason = ${w.disabledReason}, updated_at = ${w.updatedAt}
      where id = ${id} returning ${this.tx.unsafe(WEBHOOK_COLUMNS)}`;
    return toWebhook(row!);
  }

  /* ───────────── claiming ───────────── */

  async releaseDeadLeases(realNow: number): Promise<void> {
    if (!this.c.livenessCheckDue(realNow)) return;
    await this.c.holdLiveness().catch(() => {}); // our own lock, again if our connection was replaced
    await releaseDeadLeases(this.c, this.tx);
  }

  async dueJobs(request: ClaimRequest, skipLanes: readonly string[], window: number): Promise<ClaimCandidate[]> {
    // SKIP LOCKED: another instance claiming at the same moment takes different rows. A lease
    // that expired (its instance died) makes the job due again here.
    return (await this.tx`
      select id, lane from jobs
      where status = 'pending' and run_at <= ${request.now} and (claimed_until is null or claimed_until < ${request.realNow})
        and kind = any(${request.kinds}::text[]) ${skipLanes.length > 0 ? this.tx`and lane <> all(${skipLanes as string[]}::text[])` : this.tx``}
      order by run_at, seq limit ${window} for update skip locked`) as unknown as ClaimCandidate[];
  }

  async leaseJobs(ids: readonly string[], claimedUntil: number): Promise<JobRecord[]> {
    const rows = await this.tx`update jobs set claimed_until = ${claimedUntil}, claimed_by = ${this.c.instanceKey}, attempts = attempts + 1
      where id = any(${ids as string[]}::text[]) returning ${this.tx.unsafe(JOB_COLUMNS)}`;
    const byId = new Map(rows.map((row) => [row.id as string, toJob(row)]));
    return ids.map((id) => byId.get(id)!);
  }

  /* ───────────── counting and the monthly reset ───────────── */

  async countDay(accountId: string, day: string): Promise<void> {
    await this.tx`insert into usage_days (account_id, day, count) values (${accountId}, ${day}, 1)
      on conflict (account_id, day) do update set count = usage_days.count + 1`;
  }

  async setMarks(accountId: string, period: string, set: readonly UsageMark[], now: number): Promise<void> {
    const marks = Object.fromEntries(set.map((mark) => [MARK_COLUMNS[mark], now]));
    await this.tx`update usage_periods set ${this.tx(marks)} where account_id = ${accountId} and period = ${period}`;
  }

  /* Every transaction locks the month's row before the instance's reservation row, in the store's
     reserveUnit order (./usage.ts), so two never wait on each other in a cycle. */

  async confirmReserved(accountId: string, period: string): Promise<UsageCounters> {
    await this.tx`insert into usage_periods (account_id, period) values (${accountId}, ${period}) on conflict do nothing`;
    // If the unit was reclaimed after this instance was taken for dead, `reserved` already gave it back.
    const held = await this.#takeHeld(accountId, period);
    // The UPDATE holds the row lock until commit: concurrent confirmations see distinct counters.
    const [after] = await this.tx`update usage_periods set used = used + 1, reserved = greatest(reserved - ${held ? 1 : 0}, 0)
      where account_id = ${accountId} and period = ${period} returning ${this.tx.unsafe(USAGE_COLUMNS)}`;
    return after as UsageCounters;
  }

  /**
   * Only a unit this instance still holds is taken off `reserved` (one already reclaimed after
   * this instance was taken for dead is not given back twice).
   */
  async releaseReserved(accountId: string, period: string): Promise<void> {
    if (!(await this.#takeHeld(accountId, period))) return;
    await this.tx`update usage_periods set reserved = greatest(reserved - 1, 0) where account_id = ${accountId} and period = ${period}`;
  }

  /** Locks the month's row, then takes one unit off this instance's reservations; false when it held none. */
  async #takeHeld(accountId: string, period: string): Promise<boolean> {
    await this.tx`select 1 from usage_periods where account_id = ${accountId} and period = ${period} for update`;
    const held = await this.tx`update unit_reservations set count = count - 1
      where instance_key = ${this.c.instanceKey} and account_id = ${accountId} and period = ${period} and count > 0 returning 1`;
    return held.length > 0;
  }

  async markImageCounted(accountId: string, period: string, contentAddress: string, now: number): Promise<boolean> {
    // The primary key decides across instances: a concurrent insert of the same row waits for
    // the other transaction and then finds the conflict.
    const inserted = await this.tx`insert into counted_images (account_id, period, content_address, created_at)
      values (${accountId}, ${period}, ${contentAddress}, ${now}) on conflict do nothing returning 1`;
    return inserted.length > 0;
  }

  async takeUnit(accountId: string, period: string, quota: number): Promise<UsageCounters | null> {
    // On conflict PostgreSQL locks the row and evaluates the WHERE on its latest version.
    const [after] = await this.tx`insert into usage_periods (account_id, period, used) select ${accountId}, ${period}, 1 where ${quota}::int > 0
      on conflict (account_id, period) do update set used = usage_periods.used + 1
        where usage_periods.used + usage_periods.reserved + usage_periods.batch_reserved < ${quota}::int
      returning ${this.tx.unsafe(USAGE_COLUMNS)}`;
    return (after as UsageCounters | undefined) ?? null;
  }

  /**
   * ONE statement (with the transaction's BEGIN and COMMIT, a group is three round trips when its
   * units cause no writes of their own): lock the month's row and read what is taken, add the
   * units that fit, count the day, and read the account's webhooks for the events (kept for
   * `enabledSubscriptions` for the rest of this transaction). The locking read sees the row's
   * latest committed version, and the UPDATE of that locked row in the same statement works on
   * it too, so `granted` is exact under concurrency.
   */
  async takeUnits(accountId: string, period: string, quota: number, day: string, n: number): Promise<{ granted: number; after: UsageCounters }> {
    const take = () => this.tx`
      with locked as (
        select used + reserved + batch_reserved as taken from usage_periods where account_id = ${accountId} and period = ${period} for update),
      taken as (
        update usage_periods set used = usage_periods.used + least(${n}::int, greatest(0, ${quota}::int - locked.taken))
        from locked where account_id = ${accountId} and period = ${period}
        returning ${this.tx.unsafe(TAKEN_COLUMNS)}, least(${n}::int, greatest(0, ${quota}::int - locked.taken)) as granted),
      days as (
        insert into usage_days (account_id, day, count) select ${accountId}, ${day}, granted from taken where granted > 0
        on conflict (account_id, day) do update set count = usage_days.count + excluded.count)
      select taken.*, (select coalesce(json_agg(json_build_object('id', w.id, 'events', w.events, 'createdAt', w.created_at, 'seq', w.seq)), '[]'::json)
        from webhooks w where w.account_id = ${accountId} and w.status = 'enabled') as subscriptions
      from taken`;
    let [row] = await take();
    if (!row) {
      if (quota <= 0)
        return {
          granted: 0,
          after: { accountId, period, used: 0, reserved: 0, warned80At: null, warned90At: null, warned95At: null, limitReachedAt: null, resetEmittedAt: null },
        };
      await this.tx`insert into usage_periods (account_id, period) values (${accountId}, ${period}) on conflict do nothing`;
      [row] = await take();
    }
    const { granted, subscriptions, ...after } = row!;
    this.#subscriptions.set(accountId, subscriptions as Subscription[]);
    return { granted: Number(granted), after: after as UsageCounters };
  }

  async claimReset(accountId: string, period: string, now: number): Promise<boolean> {
    await this.tx`insert into usage_periods (account_id, period) values (${accountId}, ${period}) on conflict do nothing`;
    const claimed = await this.tx`update usage_periods set reset_emitted_at = ${now}
      where account_id = ${accountId} and period = ${period} and reset_emitted_at is null returning period`;
    return claimed.length > 0;
  }

  async usedIn(accountId: string, period: string): Promise<number> {
    const [row] = await this.tx`select used from usage_periods where account_id = ${accountId} and period = ${period}`;
    return (row?.used as number | undefined) ?? 0;
  }

  /* ───────────── batches ───────────── */

  async reserveBatchUnits(accountId: string, period: string, quota: number, units: number): Promise<{ reserved: true } | { reserved: false; left: number }> {
    await this.tx`insert into usage_periods (account_id, period) values (${accountId}, ${period}) on conflict do nothing`;
    // The row lock orders this after every reservation and confirmation of the month in flight.
    const [row] = await this
      .tx`select used + reserved + batch_reserved as taken from usage_periods where account_id = ${accountId} and period = ${period} for update`;
    const taken = Number(row!.taken);
    if (taken + units > quota) return { reserved: false, left: Math.max(0, quota - taken) };
    await this.tx`update usage_periods set batch_reserved = batch_reserved + ${units} where account_id = ${accountId} and period = ${period}`;
    return { reserved: true };
  }

  async insertBatch(b: BatchRecord, items: readonly string[]): Promise<void> {
    await this.tx`insert into batches (id, account_id, signing_key_id, request_id, period, status, total, done, failed, created_at, finished_at)
      values (${b.id}, ${b.accountId}, ${b.signingKeyId}, ${b.requestId}, ${b.period}, ${b.status}, ${b.total}, ${b.done}, ${b.failed}, ${b.createdAt}, ${b.finishedAt})`;
    const indexes = items.map((_, index) => index);
    await this.tx`insert into batch_items (batch_id, idx, status, body)
      select ${b.id}, i, 'queued', body from unnest(${indexes}::int[], ${items as string[]}::text[]) as t(i, body) order by i`;
  }

  async lockBatch(batchId: string): Promise<BatchRecord | null> {
    const [row] = await this.tx`select ${this.tx.unsafe(BATCH_COLUMNS)} from batches where id = ${batchId} for update`;
    return (row as BatchRecord | undefined) ?? null;
  }

  async itemStatus(batchId: string, index: number): Promise<BatchItemStatus | null> {
    const [row] = await this.tx`select status from batch_items where batch_id = ${batchId} and idx = ${index} for update`;
    return (row?.status as BatchItemStatus | undefined) ?? null;
  }

  async setItem(batchId: string, index: number, status: BatchItemStatus, url: string | null, error: string | null): Promise<void> {
    await this
      .tx`update batch_items set status = ${status}, url = ${url}, error = ${error}, claimed_until = null, claimed_by = null where batch_id = ${batchId} and idx = ${index}`;
  }

  async failQueuedItems(batchId: string, error: string): Promise<number> {
    const result = await this
      .tx`update batch_items set status = 'failed', error = ${error}, claimed_until = null, claimed_by = null where batch_id = ${batchId} and status = 'queued'`;
    return result.count;
  }

  async countBatchUnit(accountId: string, period: string): Promise<UsageCounters> {
    const [after] = await this.tx`update usage_periods set used = used + 1, batch_reserved = greatest(batch_reserved - 1, 0)
      where account_id = ${accountId} and period = ${period} returning ${this.tx.unsafe(USAGE_COLUMNS)}`;
    return after as UsageCounters;
  }

  async releaseBatchUnits(accountId: string, period: string, units: number): Promise<void> {
    await this.tx`update usage_periods set batch_reserved = greatest(batch_reserved - ${units}, 0) where account_id = ${accountId} and period = ${period}`;
  }

  async updateBatch(batchId: string, change: { status: BatchStatus; done: number; failed: number; finishedAt: number | null }): Promise<BatchRecord> {
    const [row] = await this
      .tx`update batches set status = ${change.status}, done = ${change.done}, failed = ${change.failed}, finished_at = ${change.finishedAt}
      where id = ${batchId} returning ${this.tx.unsafe(BATCH_COLUMNS)}`;
    return row as BatchRecord;
  }
}
