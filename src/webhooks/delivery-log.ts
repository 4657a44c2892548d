/**
 * A webhook's delivery log, written once for both stores: an attempt is logged while its webhook
 * exists (a deleted webhook's log is gone with it), and the log is trimmed to its newest
 * `LOG_KEEP` attempts now and then — once every `TRIM_EVERY` attempts, not a DELETE per attempt.
 * See ../store/tx-steps.ts for how a store runs `write`.
 */
import type { DeliveryLogTx } from "../store/ports/tx.ts";
import type { DeliveryAttemptRecord } from "../store/ports/webhooks.ts";
import { step, type TxRoutine } from "../store/tx-steps.ts";

/** Attempts kept per webhook. */
export const LOG_KEEP = 100;
/** Attempts logged between two trims of one webhook's log. */
const TRIM_EVERY = 50;

/**
 * One per store (built with the webhooks, ./index.ts): counts attempts per webhook since its log
 * was last trimmed. Settling a delivery job and a test send write through it.
 */
export class DeliveryLog {
  readonly #sinceTrim = new Map<string, number>();

  /** Logs the attempt; false when its webhook is gone. */
  *write(tx: DeliveryLogTx, attempt: DeliveryAttemptRecord): TxRoutine<boolean> {
    if (!(yield* step(tx.insertAttempt(attempt)))) return false;
    const since = (this.#sinceTrim.get(attempt.webhookId) ?? 0) + 1;
    if (since < TRIM_EVERY) {
      this.#sinceTrim.set(attempt.webhookId, since);
      return true;
    }
    this.#sinceTrim.set(attempt.webhookId, 0);
    yield* step(tx.trimAttempts(attempt.webhookId, LOG_KEEP));
    return true;
  }

  /** The webhook was deleted: its count goes with it. */
  forget(webhookId: string): void {
    this.#sinceTrim.delete(webhookId);
  }
}
