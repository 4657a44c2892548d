/**
 * The select lists and row mapping both stores share: each record's columns are named once here,
 * aliased to the record's field names (`custom_quota AS "customQuota"`, the same text in SQLite
 * and PostgreSQL), so a row comes back nearly as the record; what is left — JSON text, SQLite's
 * 0/1 booleans — is mapped here too. What differs between the dialects (placeholders, insertion
 * order: SQLite's rowid, PostgreSQL's seq) stays in each adapter's SQL.
 */
import type { AccountRecord, ApiKeyRecord } from "./ports/accounts.ts";
import type { BatchItemRecord, BatchRecord } from "./ports/batches.ts";
import type { EmailAlertRecord } from "./ports/email-alerts.ts";
import type { JobRecord } from "./ports/jobs.ts";
import type { SessionRecord } from "./ports/sessions.ts";
import type { SigningKeyRecord } from "./ports/signing-keys.ts";
import type { UsageCounters } from "./ports/usage.ts";
import type { DeliveryAttemptRecord, WebhookRecord } from "./ports/webhooks.ts";

/** Field name → column name, in the table's column order. */
type Fields<R> = { readonly [K in keyof R]-?: string };

export const ACCOUNT: Fields<AccountRecord> = {
  id: "id",
  email: "email",
  plan: "plan",
  status: "status",
  customQuota: "custom_quota",
  customRequestsPerSecond: "custom_requests_per_second",
  createdAt: "created_at",
  updatedAt: "updated_at",
};
export const API_KEY: Fields<ApiKeyRecord> = {
  id: "id",
  accountId: "account_id",
  keyHash: "key_hash",
  keyPrefix: "key_prefix",
  createdAt: "created_at",
  revokedAt: "revoked_at",
};
export const SIGNING_KEY: Fields<SigningKeyRecord> = {
  id: "id",
  accountId: "account_id",
  secret: "secret",
  createdAt: "created_at",
  lastUsedAt: "last_used_at",
};
export const SESSION: Fields<SessionRecord> = {
  tokenHash: "token_hash",
  id: "id",
  accountId: "account_id",
  keyId: "key_id",
  createdAt: "created_at",
  expiresAt: "expires_at",
};
export const USAGE: Fields<UsageCounters> = {
  accountId: "account_id",
  period: "period",
  used: "used",
  reserved: "reserved",
  warned80At: "warned_80_at",
  warned90At: "warned_90_at",
  warned95At: "warned_95_at",
  limitReachedAt: "limit_reached_at",
  resetEmittedAt: "reset_emitted_at",
};
export const WEBHOOK: Fields<WebhookRecord> = {
  id: "id",
  accountId: "account_id",
  url: "url",
  events: "events",
  secret: "secret",
  status: "status",
  disabledReason: "disabled_reason",
  createdAt: "created_at",
  updatedAt: "updated_at",
};
export const JOB: Fields<JobRecord> = {
  id: "id",
  kind: "kind",
  lane: "lane",
  accountId: "account_id",
  webhookId: "webhook_id",
  eventId: "event_id",
  payload: "payload",
  status: "status",
  runAt: "run_at",
  attempts: "attempts",
  claimedUntil: "claimed_until",
  lastError: "last_error",
  createdAt: "created_at",
  updatedAt: "updated_at",
  finishedAt: "finished_at",
};
export const BATCH: Fields<BatchRecord> = {
  id: "id",
  accountId: "account_id",
  signingKeyId: "signing_key_id",
  requestId: "request_id",
  period: "period",
  status: "status",
  total: "total",
  done: "done",
  failed: "failed",
  createdAt: "created_at",
  finishedAt: "finished_at",
};
export const BATCH_ITEM: Fields<BatchItemRecord> = { batchId: "batch_id", index: "idx", status: "status", url: "url", error: "error" };
export const DELIVERY_ATTEMPT: Fields<DeliveryAttemptRecord> = {
  id: "id",
  webhookId: "webhook_id",
  accountId: "account_id",
  jobId: "job_id",
  eventId: "event_id",
  eventType: "event_type",
  attempt: "attempt",
  statusCode: "status_code",
  error: "error",
  delivered: "delivered",
  durationMs: "duration_ms",
  nextAttemptAt: "next_attempt_at",
  createdAt: "created_at",
};
export const EMAIL_ALERT: Fields<EmailAlertRecord> = {
  id: "id",
  accountId: "account_id",
  kind: "kind",
  recipient: "recipient",
  subject: "subject",
  facts: "facts",
  state: "state",
  attempts: "attempts",
  lastError: "last_error",
  nextAttemptAt: "next_attempt_at",
  dedupeKey: "dedupe_key",
  jobId: "job_id",
  createdAt: "created_at",
  updatedAt: "updated_at",
  sentAt: "sent_at",
};

/**
 * A select list: `custom_quota AS "customQuota", …`. With `table`, each column is qualified
 * (`a.custom_quota`); with `prefix`, each alias is prefixed (`"a_customQuota"`), for joins that
 * return two records in one row (read back with `unprefixed`).
 */
export function columns<R>(fields: Fields<R>, options: { table?: string; prefix?: string } = {}): string {
  const table = options.table ? `${options.table}.` : "";
  const prefix = options.prefix ?? "";
  return Object.entries(fields as Record<string, string>)
    .map(([field, column]) => `${table}${column} AS "${prefix}${field}"`)
    .join(", ");
}

/** The record a `prefix`ed select list put into a row. */
export function unprefixed<R>(row: Record<string, unknown>, fields: Fields<R>, prefix: string): R {
  const record: Record<string, unknown> = {};
  for (const field of Object.keys(fields)) record[field] = row[`${prefix}${field}`];
  return record as R;
}

type Row = Record<string, unknown>;

/* The records whose rows need more than aliases. */

export const toWebhook = (row: Row): WebhookRecord => ({ ...(row as unknown as WebhookRecord), events: JSON.parse(row.events as string) });
export const toJob = (row: Row): JobRecord => ({ ...(row as unknown as JobRecord), payload: row.payload === null ? null : JSON.parse(row.payload as string) });
/** SQLite keeps the flag as 0/1, PostgreSQL as a boolean. */
export const toDeliveryAttempt = (row: Row): DeliveryAttemptRecord => ({ ...(row as unknown as DeliveryAttemptRecord), delivered: Boolean(row.delivered) });
export const toEmailAlert = (row: Row): EmailAlertRecord => ({ ...(row as unknown as EmailAlertRecord), facts: JSON.parse(row.facts as string) });
