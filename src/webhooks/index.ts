/**
 * Wires webhooks into the core: the sender, the service, the delivery job kind and the delivery
 * log they share (one per store: it counts each webhook's attempts since its log was last trimmed).
 */
import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import type { JobQueue } from "../events/jobs.ts";
import type { Store } from "../store/types.ts";
import { WebhookSender, type SenderOptions } from "./delivery.ts";
import { DeliveryJob, type RetryRandom } from "./delivery-job.ts";
import { DeliveryLog } from "./delivery-log.ts";
import { WebhookService } from "./service.ts";

export function createWebhooks(
  deps: {
    store: Store;
    clock: Clock;
    config: Pick<Config, "allowPrivateNetworks">;
    jobs: JobQueue;
    /** The retry jitter's random source (default Math.random); tests pin it. */
    retryRandom?: RetryRandom;
  },
  overrides: Partial<SenderOptions> = {},
): { webhooks: WebhookService; delivery: DeliveryJob } {
  const sender = new WebhookSender({ allowPrivate: deps.config.allowPrivateNetworks, ...overrides });
  const log = new DeliveryLog();
  const webhooks = new WebhookService(deps.store, deps.clock, sender, log, { allowPrivate: deps.config.allowPrivateNetworks, resolver: overrides.resolver });
  const delivery = new DeliveryJob(deps.store, deps.clock, sender, log, deps.retryRandom);
  deps.jobs.register(delivery.kind());
  return { webhooks, delivery };
}
