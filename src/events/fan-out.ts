/**
 * Recording an event, decided and written once for both stores: whether the event row is kept,
 * one delivery job per webhook that subscribes to it, and the email alert it raises. `fanOut`
 * is the pure decision; `recordEvent` runs it inside the store's transaction (see
 * ../store/tx-steps.ts), so the event exists if and only if the change that causes it committed.
 *
 * An event is stored only when at least one enabled webhook of the account takes its type:
 * nothing reads an event except its deliveries, and storing every `image.generated` made the
 * events table the largest part of counting an image (three more b-tree pages in each commit)
 * and grow by one row per image. Its email alert, if any, is raised either way.
 */
import type { EventDraft, EventRecord, NewJob } from "../store/ports/jobs.ts";
import { WEBHOOK_DELIVERY_JOB } from "../store/ports/jobs.ts";
import type { OutboxTx, PlannedAlert, Subscription } from "../store/ports/tx.ts";
import { step, type TxRoutine } from "../store/tx-steps.ts";
import { newId } from "../ids.ts";
import { planAlert, raiseAlert } from "./raise-alert.ts";

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

/** Records one event with its fan-out; returns the event (with its id even when not stored). */
export function* recordEvent(tx: OutboxTx, accountId: string, draft: EventDraft, now: number): TxRoutine<EventRecord> {
  const subscriptions = yield* step(tx.enabledSubscriptions(accountId));
  const ownerEmail = draft.alert ? yield* step(tx.ownerEmail(accountId)) : null;
  const plan = fanOut(accountId, draft, subscriptions, ownerEmail, now);
  if (plan.storeEvent) yield* step(tx.insertEvent(plan.event));
  for (const job of plan.deliveries) yield* step(tx.insertJob(job));
  const alerted = plan.alert !== undefined && (yield* raiseAlert(tx, plan.alert));
  if (plan.deliveries.length > 0 || alerted) yield* step(tx.jobsQueued());
  return plan.event;
}

/**
 * Records several events in order, outside any other change (`store.transact((tx) =>
 * recordEvents(tx, …))`). The returned records carry ids even when not stored.
 */
export function* recordEvents(tx: OutboxTx, accountId: string, drafts: readonly EventDraft[], now: number): TxRoutine<EventRecord[]> {
  const recorded: EventRecord[] = [];
  for (const draft of drafts) recorded.push(yield* recordEvent(tx, accountId, draft, now));
  return recorded;
}
