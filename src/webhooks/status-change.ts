/**
 * What an update does to a webhook's status, decided once for both stores: enabling a disabled
 * webhook clears its reason; disabling an enabled one records the reason and cancels its queued
 * deliveries (nothing would ever send them); asking for the status it has changes nothing.
 */
import type { WebhookChanges, WebhookStatus } from "../store/ports/webhooks.ts";

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
