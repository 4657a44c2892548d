/**
 * What recording an event writes, decided once for both stores: whether the event row is kept,
 * one delivery job per webhook that subscribes to it, and the email alert it raises. Pure and
 * synchronous, so a store calls it inside its own transaction (SQLite's stay synchronous) after
 * reading the subscriptions and the owner's address, then writes exactly the rows planned here.
 */
import type { AlertDraft, EmailAlertKind } from "../store/ports/email-alerts.ts";
import { EMAIL_JOB, EMAIL_LANE, type EventDraft, type EventRecord, type NewJob, WEBHOOK_DELIVERY_JOB } from "../store/ports/jobs.ts";
import { newId } from "../ids.ts";

/** An enabled webhook of the account, as its row stores it. */
export interface Subscription {
  id: string;
  /** JSON text of the event types it takes, as stored. */
  events: string;
  createdAt: number;
  /** Insertion order (SQLite's rowid, PostgreSQL's seq): breaks ties of `createdAt`. */
  seq: number;
}

/** The alert row to insert unless its dedupe key exists already, and the job that sends it if inserted. */
export interface PlannedAlert {
  row: { id: string; accountId: string; kind: EmailAlertKind; recipient: string; subject: string; facts: Record<string, unknown>; dedupeKey: string | null; createdAt: number };
  /** Queued only when the row was inserted; its id then goes into the row's `job_id`. */
  job: NewJob;
}

export interface FanOut {
  event: EventRecord;
  /** False when no webhook takes the event: nobody will ever read it, so it is not stored. */
  storeEvent: boolean;
  /** One delivery job per subscribed webhook, in the webhooks' creation order. */
  deliveries: NewJob[];
  alert?: PlannedAlert;
}

/**
 * `subscriptions`: the account's enabled webhooks, in any order (sorting here is cheaper on
 * SQLite than an ORDER BY, which builds a temporary b-tree on every event). `ownerEmail`: the
 * account's address, read only when the draft has an alert (null: the account is gone, so no
 * alert).
 */
export function fanOut(accountId: string, draft: EventDraft, subscriptions: readonly Subscription[], ownerEmail: string | null, now: number): FanOut {
  const event: EventRecord = { id: newId("evt"), accountId, type: draft.type, data: draft.data, createdAt: now };
  const deliveries = subscriptions
    .filter((webhook) => (JSON.parse(webhook.events) as string[]).includes(event.type))
    .sort((a, b) => a.createdAt - b.createdAt || a.seq - b.seq)
    .map((webhook): NewJob => ({ kind: WEBHOOK_DELIVERY_JOB, lane: webhook.id, accountId, webhookId: webhook.id, eventId: event.id, runAt: now, now }));
  const alert = draft.alert ? planAlert(accountId, draft.alert, ownerEmail, now) : undefined;
  return alert ? { event, storeEvent: deliveries.length > 0, deliveries, alert } : { event, storeEvent: deliveries.length > 0, deliveries };
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
