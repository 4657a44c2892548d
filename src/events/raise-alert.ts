/**
 * Raising an email alert, written once for both stores: the alert row unless its dedupe key
 * exists already, and the job that sends it, in the transaction of the change that causes it
 * (an event's recording, a webhook's disabling). It sits with the outbox rather than with the
 * email sender (../email), which builds on the job table: what goes into the transaction is the
 * outbox's, what the job does is the sender's. See ../store/tx-steps.ts for how a store runs it.
 */
import type { AlertDraft } from "../store/ports/email-alerts.ts";
import { EMAIL_JOB, EMAIL_LANE } from "../store/ports/jobs.ts";
import type { AlertTx, PlannedAlert } from "../store/ports/tx.ts";
import { step, type TxRoutine } from "../store/tx-steps.ts";
import { newId } from "../ids.ts";

/** An alert to the account's owner (an event's, or a webhook's disabling); none when the account is gone. */
export function planAlert(accountId: string, alert: AlertDraft, ownerEmail: string | null, now: number): PlannedAlert | undefined {
  if (ownerEmail === null) return undefined;
  const id = newId("eml");
  return {
    row: { id, accountId, kind: alert.kind, recipient: ownerEmail, subject: alert.subject, facts: alert.facts, dedupeKey: alert.dedupeKey, createdAt: now },
    job: { kind: EMAIL_JOB, lane: EMAIL_LANE, accountId, payload: { alert_id: id }, runAt: now, now },
  };
}

/** Writes a planned alert; true when it was new and its email job queued. */
export function* raiseAlert(tx: AlertTx, { row, job }: PlannedAlert): TxRoutine<boolean> {
  if (!(yield* step(tx.insertAlert(row)))) return false; // raised already (same dedupe key)
  const jobId = yield* step(tx.insertJob(job));
  yield* step(tx.setAlertJob(row.id, jobId));
  return true;
}
