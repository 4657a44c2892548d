/**
 * Raising an email alert, written once for both stores: the alert row unless its dedupe key
 * exists already, and the job that sends it, in the transaction of the change that causes it
 * (an event's recording, a webhook's disabling). See ../store/tx-steps.ts for how a store runs it.
 */
import type { AlertDraft, EmailAlertKind } from "../store/ports/email-alerts.ts";
import { EMAIL_JOB, EMAIL_LANE, type NewJob } from "../store/ports/jobs.ts";
import { type Step, step, type TxRoutine } from "../store/tx-steps.ts";
import { newId } from "../ids.ts";

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

/** What raising an alert reads and writes, inside the store's transaction. */
export interface AlertTx {
  /** The account's address; null when the account is gone. */
  ownerEmail(accountId: string): Step<string | null>;
  /** Inserts the row unless its dedupe key exists; false when it did. */
  insertAlert(row: PlannedAlert["row"]): Step<boolean>;
  /** Inserts a pending job; returns its id. */
  insertJob(job: NewJob): Step<string>;
  setAlertJob(alertId: string, jobId: string): Step<void>;
}

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
