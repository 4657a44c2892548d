/** Wires webhooks into the core: the sender, the service, the delivery job kind and the outbox fan-out. */
import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import type { Db } from "../db/client.ts";
import type { JobQueue } from "../events/jobs.ts";
import type { Outbox } from "../events/outbox.ts";
import { WebhookSender, type SenderOptions } from "./delivery.ts";
import { WebhookService } from "./service.ts";

export function createWebhooks(deps: { db: Db; clock: Clock; config: Config; outbox: Outbox; jobs: JobQueue }, overrides: Partial<SenderOptions> = {}): WebhookService {
  const sender = new WebhookSender({ allowPrivate: deps.config.allowPrivateNetworks, ...overrides });
  const service = new WebhookService(deps.db, deps.clock, deps.jobs, sender, { allowPrivate: deps.config.allowPrivateNetworks, resolver: overrides.resolver });
  deps.jobs.register(service.deliveryKind());
  deps.outbox.addFanOut((tx, event) => service.fanOut(tx, event));
  return service;
}

export { WebhookService } from "./service.ts";
export { WebhookSender } from "./delivery.ts";
