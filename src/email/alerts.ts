/**
 * Email alerts (spec §6.4, DESIGN §5): 80 % warning, 95 % critical, 100 % quota exceeded, and
 * "your webhook was disabled".
 *
 * Nothing here detects thresholds: metering already decides, in the usage increment's
 * transaction, which `usage.warning` / `usage.limit_reached` events a request causes (each once
 * per account per month). An outbox fan-out turns the 80 % and 95 % warnings and the limit event
 * into an `email_alerts` row plus an `email` job in the shared job table, in that same
 * transaction. The job runner sends it; failures retry on EMAIL_RETRY_SCHEDULE, a 5xx reply
 * fails at once, and the alert row follows every attempt.
 */
import { desc, eq, sql } from "drizzle-orm";
import type { Clock } from "../clock.ts";
import type { Db, Tx } from "../db/client.ts";
import { emailAlerts, type EmailAlertKind, type EmailAlertRow, type EmailAlertState } from "../db/schema/email-alerts.ts";
import { accounts, type JobRow, type WebhookRow } from "../db/schema/index.ts";
import type { JobKind, JobOutcome, JobQueue, SettledJob } from "../events/jobs.ts";
import type { RecordedEvent } from "../events/outbox.ts";
import type { EventData } from "../events/types.ts";
import { newId } from "../ids.ts";
import type { Logger } from "../logger.ts";
import { nextResetAt, periodOf } from "../metering/period.ts";
import type { Mailer, SendResult } from "./mailer.ts";
import { buildAlertEmail, displayUrl, type AlertFacts, type UsageFacts, type WebhookDisabledFacts } from "./messages.ts";

export const EMAIL_JOB = "email";
/** All emails share one lane: the SMTP server is one endpoint. */
const EMAIL_LANE = "smtp";
/**
 * Seconds to wait after the 1st…7th failure (SMTP down, 4xx): 8 attempts over about 4 hours,
 * then the alert is recorded as failed with the last error.
 */
export const EMAIL_RETRY_SCHEDULE = [30, 60, 300, 900, 1800, 3600, 7200] as const;
/** Which usage warnings email the owner (the 90 % one is a webhook event only). */
const WARNING_KINDS: Record<number, EmailAlertKind> = { 80: "usage_warning", 95: "usage_critical" };

export interface EmailAlertView {
  id: string;
  kind: EmailAlertKind;
  recipient: string;
  subject: string;
  state: EmailAlertState;
  attempts: number;
  last_error: string | null;
  next_attempt_at: string | null;
  created_at: string;
  sent_at: string | null;
}

interface JobPayload {
  alert_id: string;
}

interface SendDetail {
  result: SendResult;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export class EmailAlerts {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly jobs: JobQueue,
    private readonly mailer: Mailer,
    private readonly logger: Logger,
    private readonly options: { baseUrl: string },
  ) {}

  get dashboardUrl(): string {
    return `${this.options.baseUrl}/dashboard`;
  }

  /** Outbox fan-out, in the usage increment's transaction. */
  fanOut(tx: Tx, event: RecordedEvent, data: unknown): void {
    let kind: EmailAlertKind | undefined;
    let facts: UsageFacts | undefined;
    if (event.type === "usage.warning") {
      const d = data as EventData["usage.warning"];
      kind = WARNING_KINDS[d.percentage];
      facts = { used: d.current_usage, quota: d.quota, percentage: d.percentage, plan: d.plan, resets_at: new Date(nextResetAt(event.createdAt)).toISOString() };
    } else if (event.type === "usage.limit_reached") {
      const d = data as EventData["usage.limit_reached"];
      kind = "quota_exceeded";
      facts = { used: d.current_usage, quota: d.quota, percentage: 100, plan: d.plan, resets_at: d.resets_at };
    }
    if (!kind || !facts) return;
    this.raise(tx, event.accountId, kind, facts, `${event.accountId}:${periodOf(event.createdAt)}:${kind}`);
  }

  /** WebhookService.onDisabled hook, in the disabling transaction. */
  webhookDisabled(tx: Tx, webhook: WebhookRow, reason: string): void {
    const facts: WebhookDisabledFacts = { webhook_id: webhook.id, url: displayUrl(webhook.url), reason };
    this.raise(tx, webhook.accountId, "webhook_disabled", facts, null);
  }

  /** The job kind that sends one alert. */
  jobKind(): JobKind {
    return {
      kind: EMAIL_JOB,
      retrySchedule: EMAIL_RETRY_SCHEDULE,
      perform: (job, signal) => this.perform(job, signal),
      settled: (tx, settled) => this.settled(tx, settled),
    };
  }

  /** The account's most recent alerts, newest first (operators: `accounts show`). */
  recent(accountId: string, limit = 20): EmailAlertView[] {
    return this.db
      .select()
      .from(emailAlerts)
      .where(eq(emailAlerts.accountId, accountId))
      .orderBy(desc(emailAlerts.createdAt), desc(sql`rowid`))
      .limit(limit)
      .all()
      .map(toView);
  }

  private raise(tx: Tx, accountId: string, kind: EmailAlertKind, facts: AlertFacts, dedupeKey: string | null): void {
    const account = tx.select({ email: accounts.email }).from(accounts).where(eq(accounts.id, accountId)).get();
    if (!account) return;
    const now = this.clock.now();
    const id = newId("eml");
    const { subject } = buildAlertEmail(kind, facts, this.dashboardUrl);
    const inserted = tx
      .insert(emailAlerts)
      .values({ id, accountId, kind, recipient: account.email, subject, facts: facts as unknown as Record<string, unknown>, dedupeKey, createdAt: now, updatedAt: now })
      .onConflictDoNothing()
      .returning({ id: emailAlerts.id })
      .get();
    if (!inserted) return; // already raised this month
    const payload: JobPayload = { alert_id: id };
    const jobId = this.jobs.enqueue(tx, { kind: EMAIL_JOB, lane: EMAIL_LANE, accountId, payload });
    tx.update(emailAlerts).set({ jobId }).where(eq(emailAlerts.id, id)).run();
  }

  private async perform(job: JobRow, signal: AbortSignal): Promise<JobOutcome> {
    const alertId = (job.payload as JobPayload | null)?.alert_id;
    const alert = alertId ? this.db.select().from(emailAlerts).where(eq(emailAlerts.id, alertId)).get() : undefined;
    if (!alert || alert.state !== "pending") return { ok: false, canceled: true, error: "alert no longer pending" };
    const content = buildAlertEmail(alert.kind, alert.facts as unknown as AlertFacts, this.dashboardUrl);
    const result = await this.mailer.send({ to: alert.recipient, ...content }, signal);
    const detail: SendDetail = { result };
    switch (result.status) {
      case "sent":
        this.logger.info("email alert sent", { alert_id: alert.id, account_id: alert.accountId, kind: alert.kind });
        return { ok: true, detail };
      case "not_sent":
        return { ok: true, detail };
      case "failed":
        this.logger.warn("email alert attempt failed", { alert_id: alert.id, account_id: alert.accountId, kind: alert.kind, attempt: job.attempts, permanent: result.permanent, error: result.error });
        return { ok: false, retryable: !result.permanent, error: result.error, detail };
    }
  }

  private settled(tx: Tx, settled: SettledJob): void {
    const { job, outcome } = settled;
    const detail = outcome.detail as SendDetail | undefined;
    const alertId = (job.payload as JobPayload | null)?.alert_id;
    if (!alertId || !detail || !settled.wasPending) return;
    const result = detail.result;
    let state: EmailAlertState;
    let lastError: string | null = null;
    if (result.status === "sent") state = "sent";
    else if (result.status === "not_sent") {
      state = "not_sent";
      lastError = result.reason;
    } else if (settled.status === "pending") {
      state = "pending";
      lastError = result.error;
    } else {
      state = "failed";
      lastError = result.permanent ? `rejected (not retried): ${result.error}` : `gave up after ${settled.attempt} attempts: ${result.error}`;
    }
    tx.update(emailAlerts)
      .set({
        state,
        attempts: settled.attempt,
        lastError,
        nextAttemptAt: settled.nextRunAt,
        sentAt: state === "sent" ? settled.now : null,
        updatedAt: settled.now,
      })
      .where(eq(emailAlerts.id, alertId))
      .run();
  }
}

function toView(row: EmailAlertRow): EmailAlertView {
  return {
    id: row.id,
    kind: row.kind,
    recipient: row.recipient,
    subject: row.subject,
    state: row.state,
    attempts: row.attempts,
    last_error: row.lastError,
    next_attempt_at: iso(row.nextAttemptAt),
    created_at: iso(row.createdAt)!,
    sent_at: iso(row.sentAt),
  };
}
