/**
 * `POST /api/webhooks/test`: one synchronous attempt of a `webhook.test` event to every enabled
 * webhook of the account, or to the one named (even if disabled: checking an endpoint before
 * re-enabling it is the point). Logged, never retried, never counted toward disabling.
 *
 * A webhook deleted while its attempt is in flight still gets its result reported; only the log
 * entry is skipped (the log went with the webhook), so the other webhooks' results come back.
 */
import type { Clock } from "../clock.ts";
import { envelopeBody } from "../events/envelope.ts";
import { newId } from "../ids.ts";
import type { DeliveryAttemptRecord, Store, WebhookRecord } from "../store/types.ts";
import type { WebhookSender } from "./delivery.ts";
import type { DeliveryLog } from "./delivery-log.ts";

const TEST_EVENT = "webhook.test";

export interface TestResult {
  webhook_id: string;
  delivered: boolean;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

export async function sendTestEvents(
  deps: { store: Store; clock: Clock; sender: WebhookSender; log: DeliveryLog },
  targets: WebhookRecord[],
): Promise<TestResult[]> {
  return Promise.all(
    targets.map(async (webhook) => {
      const now = deps.clock.now();
      const eventId = newId("evt");
      const deliveryId = newId("dlv");
      const body = envelopeBody({
        id: eventId,
        type: TEST_EVENT,
        data: JSON.stringify({ webhook_id: webhook.id, message: "This is a test event sent from ogsmith." }),
        createdAt: now,
      });
      const result = await deps.sender.send(webhook, { eventId, eventType: TEST_EVENT, body }, deliveryId, now);
      const attempt: DeliveryAttemptRecord = {
        id: deliveryId,
        webhookId: webhook.id,
        accountId: webhook.accountId,
        jobId: null,
        eventId,
        eventType: TEST_EVENT,
        attempt: 1,
        statusCode: result.statusCode,
        error: result.error,
        delivered: result.delivered,
        durationMs: result.durationMs,
        nextAttemptAt: null,
        createdAt: deps.clock.now(),
      };
      // Logged outside the job table; nothing is written when the webhook was deleted meanwhile.
      await deps.store.transact((tx) => deps.log.write(tx, attempt));
      return { webhook_id: webhook.id, delivered: result.delivered, status_code: result.statusCode, error: result.error, duration_ms: result.durationMs };
    }),
  );
}
