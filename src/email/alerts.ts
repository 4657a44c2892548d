/**
 * Email alerts: 80 % warning, 95 % critical, 100 % quota exceeded, and "your webhook was
 * disabled".
 *
 * Nothing here detects thresholds: metering already decides, in the usage increment's
 * transaction, which `usage.warning` / `usage.limit_reached` events a request causes (each once
 * per account per month). An outbox alert rule turns the 80 % and 95 % warnings and the limit
 * event into an alert the store records — an `email_alerts` row plus an `email` job in the
 * shared job table — in that same transaction. The job runner sends it; failures retry on EMAIL_RETRY_SCHEDULE, a 5xx reply
 * fails at once, and the alert row follows every attempt.
 */
import type { Bookkeeping, JobKind, JobOutcome, PlannedSettlement } from "../events/jobs.ts";
import type { DraftedEvent } from "../events/outbox.ts";
import type { EventData } from "../events/types.ts";
import type { Logger } from "../logger.ts";
import { nextResetAt, periodOf } from "../metering/period.ts";
import {
  EMAIL_JOB,
  type AlertDraft,
  type EmailAlertKind,
  type EmailAlertRecord,
  type EmailAlertState,
  type JobRecord,
  type Store,
  type WebhookRecord,
} from "../store/types.ts";
import type { Mailer, SendResult } from "./mailer.ts";
import { buildAlertEmail, displayUrl, type AlertFacts, type UsageFacts, type WebhookDisabledFacts } from "./messages.ts";

export { EMAIL_JOB } from "../store/types.ts";
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
    private readonly store: Store,
    private readonly mailer: Mailer,
    private readonly logger: Logger,
    private readonly options: { baseUrl: string },
  ) {}

  get dashboardUrl(): string {
    return `${this.options.baseUrl}/dashboard`;
  }

  /** Outbox alert rule: which usage events email the owner (once per account, month and kind). */
  alertFor(event: DraftedEvent): AlertDraft | undefined {
    let kind: EmailAlertKind | undefined;
    let facts: UsageFacts | undefined;
    if (event.type === "usage.warning") {
      const d = event.data as EventData["usage.warning"];
      kind = WARNING_KINDS[d.percentage];
      facts = { used: d.current_usage, quota: d.quota, percentage: d.percentage, plan: d.plan, resets_at: new Date(nextResetAt(event.at)).toISOString() };
    } else if (event.type === "usage.limit_reached") {
      const d = event.data as EventData["usage.limit_reached"];
      kind = "quota_exceeded";
      facts = { used: d.current_usage, quota: d.quota, percentage: 100, plan: d.plan, resets_at: d.resets_at };
    }
    if (!kind || !facts) return undefined;
    return this.draft(kind, facts, `${event.accountId}:${periodOf(event.at)}:${kind}`);
  }

  /** The alert raised in the transaction that disables a webhook. */
  webhookDisabled(webhook: Pick<WebhookRecord, "id" | "url">, reason: string): AlertDraft {
    const facts: WebhookDisabledFacts = { webhook_id: webhook.id, url: displayUrl(webhook.url), reason };
    return this.draft("webhook_disabled", facts, null);
  }

  private draft(kind: EmailAlertKind, facts: AlertFacts, dedupeKey: string | null): AlertDraft {
    const { subject } = buildAlertEmail(kind, facts, this.dashboardUrl);
    return { kind, subject, facts: facts as unknown as Record<string, unknown>, dedupeKey };
  }

  /** The job kind that sends one alert. */
  jobKind(): JobKind {
    return {
      kind: EMAIL_JOB,
      retrySchedule: EMAIL_RETRY_SCHEDULE,
      perform: (job, signal) => this.perform(job, signal),
      bookkeeping: (planned) => this.bookkeeping(planned),
    };
  }

  /** The account's most recent alerts, newest first (operators: `accounts show`). */
  async recent(accountId: string, limit = 20): Promise<EmailAlertView[]> {
    return (await this.store.recentEmailAlerts(accountId, limit)).map(toView);
  }

  private async perform(job: JobRecord, signal: AbortSignal): Promise<JobOutcome> {
    const alertId = (job.payload as JobPayload | null)?.alert_id;
    const alert = alertId ? await this.store.getEmailAlert(alertId) : undefined;
    if (alert?.state !== "pending") return { ok: false, canceled: true, error: "alert no longer pending" };
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
        this.logger.warn("email alert attempt failed", {
          alert_id: alert.id,
          account_id: alert.accountId,
          kind: alert.kind,
          attempt: job.attempts,
          permanent: result.permanent,
          error: result.error,
        });
        return { ok: false, retryable: !result.permanent, error: result.error, detail };
    }
  }

  /** The alert row follows every attempt (applied only while the job is still pending). */
  private bookkeeping(planned: PlannedSettlement): Bookkeeping {
    const { job, outcome } = planned;
    const detail = outcome.detail as SendDetail | undefined;
    const alertId = (job.payload as JobPayload | null)?.alert_id;
    if (!alertId || !detail) return {};
    const result = detail.result;
    let state: EmailAlertState;
    let lastError: string | null = null;
    if (result.status === "sent") state = "sent";
    else if (result.status === "not_sent") {
      state = "not_sent";
      lastError = result.reason;
    } else if (planned.status === "pending") {
      state = "pending";
      lastError = result.error;
    } else {
      state = "failed";
      lastError = result.permanent ? `rejected (not retried): ${result.error}` : `gave up after ${planned.attempt} attempts: ${result.error}`;
    }
    return {
      emailAlert: { alertId, state, attempts: planned.attempt, lastError, nextAttemptAt: planned.nextRunAt, sentAt: state === "sent" ? planned.now : null },
    };
  }
}

function toView(row: EmailAlertRecord): EmailAlertView {
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
