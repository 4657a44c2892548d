/**
 * Email alerts: the rows the email jobs send, and the drafts other writes raise them from.
 * The rules of the Store (../types.ts) hold for every method: each is atomic, operational faults
 * are thrown as StoreUnavailableError, times are epoch ms, records are plain objects.
 */

export type EmailAlertKind = "usage_warning" | "usage_critical" | "quota_exceeded" | "webhook_disabled";

/** pending (queued or retrying) → sent | failed | not_sent (no SMTP_URL). */
export type EmailAlertState = "pending" | "sent" | "failed" | "not_sent";

export interface EmailAlertRecord {
  /** `eml_` + random id. */
  id: string;
  accountId: string;
  kind: EmailAlertKind;
  /** The account's email address when the alert was raised. */
  recipient: string;
  subject: string;
  /** The numbers the message shows. */
  facts: Record<string, unknown>;
  state: EmailAlertState;
  attempts: number;
  lastError: string | null;
  nextAttemptAt: number | null;
  /** Unique when set: `<account>:<YYYY-MM>:<kind>` makes a usage alert once a month. */
  dedupeKey: string | null;
  /** The `job_…` that sends it. */
  jobId: string | null;
  createdAt: number;
  updatedAt: number;
  sentAt: number | null;
}

/** An email alert to raise in the same transaction as the event (or disabling) that causes it. */
export interface AlertDraft {
  kind: EmailAlertKind;
  subject: string;
  facts: Record<string, unknown>;
  /** See `EmailAlertRecord.dedupeKey`; null for alerts that may repeat. */
  dedupeKey: string | null;
}

/** Reading email alerts (the core's routines raise and settle them, through `Store.transact`). */
export interface EmailAlertsPort {
  getEmailAlert(id: string): Promise<EmailAlertRecord | undefined>;
  /** Newest first. */
  recentEmailAlerts(accountId: string, limit: number): Promise<EmailAlertRecord[]>;
}
