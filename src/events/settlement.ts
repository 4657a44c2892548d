/**
 * What settling one attempt of a job writes, decided once for both stores: the job's new state,
 * the delivery log row, and — when a webhook's final attempt failed while it was still enabled —
 * its disabling, the cancelling of its queued deliveries and the alert to its owner. Pure and
 * synchronous, so a store calls it inside its own transaction (SQLite's stay synchronous) after
 * reading the job's status and, when `webhookToRead` names one, that webhook, then writes exactly
 * what is planned here, in the order of the fields below.
 */
import type { EmailAlertState } from "../store/ports/email-alerts.ts";
import type { JobSettlement, JobStatus, SettleResult } from "../store/ports/jobs.ts";
import type { DeliveryAttemptRecord } from "../store/ports/webhooks.ts";
import { type PlannedAlert, planAlert } from "./fan-out.ts";

/** The webhook a failed delivery gives up on, as read in the settling transaction. */
export interface WebhookState {
  accountId: string;
  status: string;
  /** The account's address (null: the account is gone, so no alert). */
  ownerEmail: string | null;
}

export interface SettlementPlan {
  result: SettleResult;
  /** Only while the job was pending: it may have been canceled or deleted while the attempt ran. */
  job?: { id: string; status: JobStatus; runAt: number; lastError: string | null; updatedAt: number; finishedAt: number | null };
  /** Logged whether or not the job was pending; the store drops it when the webhook is gone. */
  deliveryAttempt?: DeliveryAttemptRecord;
  /** Disable the webhook and cancel its pending jobs (`lastError = 'dropped'`). */
  disableWebhook?: { webhookId: string; reason: string; updatedAt: number };
  alert?: PlannedAlert;
  emailAlert?: { alertId: string; state: EmailAlertState; attempts: number; lastError: string | null; nextAttemptAt: number | null; sentAt: number | null; updatedAt: number };
}

/** The webhook a store must read (locked, on PostgreSQL) before planning; none for most settles. */
export function webhookToRead(s: JobSettlement, currentStatus: JobStatus | null): string | undefined {
  return s.disableWebhook && currentStatus === "pending" ? s.disableWebhook.webhookId : undefined;
}

/**
 * `currentStatus`: the job's status read in the transaction (null: deleted). `webhook`: the
 * webhook `webhookToRead` named, null when it did not name one or the webhook is gone.
 */
export function planSettlement(s: JobSettlement, currentStatus: JobStatus | null, webhook: WebhookState | null): SettlementPlan {
  const wasPending = currentStatus === "pending";
  const plan: SettlementPlan = { result: { wasPending, status: wasPending ? s.status : (currentStatus ?? "canceled") } };
  if (wasPending) {
    plan.job = { id: s.jobId, status: s.status, runAt: s.runAt, lastError: s.lastError, updatedAt: s.now, finishedAt: s.status === "pending" ? null : s.now };
  }
  if (s.deliveryAttempt) plan.deliveryAttempt = s.deliveryAttempt;
  if (s.disableWebhook && wasPending && webhook?.status === "enabled") {
    plan.disableWebhook = { webhookId: s.disableWebhook.webhookId, reason: s.disableWebhook.reason, updatedAt: s.now };
    const alert = s.disableWebhook.alert && planAlert(webhook.accountId, s.disableWebhook.alert, webhook.ownerEmail, s.now);
    if (alert) plan.alert = alert;
  }
  if (s.emailAlert && wasPending) plan.emailAlert = { ...s.emailAlert, updatedAt: s.now };
  return plan;
}
