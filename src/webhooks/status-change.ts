/**
 * What an update does to a webhook, decided once for both stores: enabling a disabled webhook
 * clears its reason; disabling an enabled one records the reason and cancels its queued
 * deliveries (nothing would ever send them); asking for the status it has changes nothing.
 * `statusAfter` is the pure decision; `updateWebhook` runs it inside the store's transaction
 * (see ../store/tx-steps.ts), the webhook's row locked on PostgreSQL.
 */
import type { WebhookTx } from "../store/ports/tx.ts";
import type { WebhookChanges, WebhookRecord, WebhookStatus } from "../store/ports/webhooks.ts";
import { step, type TxRoutine } from "../store/tx-steps.ts";

export interface StatusChange {
  status: WebhookStatus;
  disabledReason: string | null;
  /** Cancel the webhook's pending jobs in the same transaction. */
  cancelPending: boolean;
}

export function statusAfter(
  current: { status: WebhookStatus; disabledReason: string | null },
  changes: Pick<WebhookChanges, "enabled" | "disableReason">,
): StatusChange {
  if (changes.enabled === true && current.status === "disabled") return { status: "enabled", disabledReason: null, cancelPending: false };
  if (changes.enabled === false && current.status === "enabled") return { status: "disabled", disabledReason: changes.disableReason, cancelPending: true };
  return { status: current.status, disabledReason: current.disabledReason, cancelPending: false };
}

/** Applies `changes` to the account's webhook (see WebhookChanges); undefined when the account has no such webhook. */
export function* updateWebhook(tx: WebhookTx, accountId: string, id: string, changes: WebhookChanges): TxRoutine<WebhookRecord | undefined> {
  const current = yield* step(tx.lockWebhook(accountId, id));
  if (!current) return undefined;
  const next = statusAfter(current, changes);
  if (next.cancelPending) yield* step(tx.cancelPendingJobs(id, changes.now));
  return yield* step(
    tx.writeWebhook(id, {
      url: changes.url,
      events: changes.events,
      secret: changes.secret ?? current.secret,
      status: next.status,
      disabledReason: next.disabledReason,
      updatedAt: changes.now,
    }),
  );
}
