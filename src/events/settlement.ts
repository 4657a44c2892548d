/**
 * What settling one attempt of a job writes, decided once for both stores: the job's new state,
 * the delivery log row, and — when a webhook's final attempt failed while it was still enabled —
 * its disabling, the cancelling of its queued deliveries and the alert to its owner.
 * `planSettlement` is the pure decision; `settleJob` reads what it needs and writes exactly what
 * it plans, in the order of the plan's fields, inside the store's transaction (see
 * ../store/tx-steps.ts).
 */
import type { JobSettlement, JobStatus, SettleResult } from "../store/ports/jobs.ts";
import type { DeliveryLogTx, EmailAlertUpdate, JobUpdate, PlannedAlert, SettleTx, WebhookDisabling } from "../store/ports/tx.ts";
import type { DeliveryAttemptRecord } from "../store/ports/webhooks.ts";
import { step, type TxRoutine } from "../store/tx-steps.ts";
import { planAlert, raiseAlert } from "./raise-alert.ts";

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
  job?: JobUpdate;
  /** Logged whether or not the job was pending; the store drops it when the webhook is gone. */
  deliveryAttempt?: DeliveryAttemptRecord;
  /** Disable the webhook and cancel its pending jobs (`lastError = 'dropped'`). */
  disableWebhook?: WebhookDisabling;
  alert?: PlannedAlert;
  emailAlert?: EmailAlertUpdate;
}

/**
 * The delivery log an attempt is written to (a webhook's, src/webhooks/delivery-log.ts, which
 * keeps it trimmed): handed over by the job kind whose bookkeeping logs attempts.
 */
export interface AttemptLog {
  /** Logs the attempt; false when its webhook is gone. */
  write(tx: DeliveryLogTx, attempt: DeliveryAttemptRecord): TxRoutine<boolean>;
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

/** Settles one attempt (see JobSettlement); `log` is where its `deliveryAttempt` goes, when it has one. */
export function* settleJob(tx: SettleTx, s: JobSettlement, log?: AttemptLog): TxRoutine<SettleResult> {
  const status = yield* step(tx.jobStatus(s.jobId));
  const webhookId = webhookToRead(s, status);
  const found = webhookId ? yield* step(tx.webhookState(webhookId)) : null;
  const webhook = found && { ...found, ownerEmail: s.disableWebhook?.alert ? yield* step(tx.ownerEmail(found.accountId)) : null };
  const plan = planSettlement(s, status, webhook);
  if (plan.job) yield* step(tx.updateJob(plan.job));
  if (plan.deliveryAttempt) {
    if (!log) throw new Error(`job ${s.jobId}: a delivery attempt to log, but its kind gave no delivery log`);
    yield* log.write(tx, plan.deliveryAttempt);
  }
  if (plan.disableWebhook) {
    yield* step(tx.disableWebhook(plan.disableWebhook));
    yield* step(tx.cancelPendingJobs(plan.disableWebhook.webhookId, plan.disableWebhook.updatedAt));
  }
  if (plan.alert && (yield* raiseAlert(tx, plan.alert))) yield* step(tx.jobsQueued());
  if (plan.emailAlert) yield* step(tx.updateEmailAlert(plan.emailAlert));
  return plan.result;
}
