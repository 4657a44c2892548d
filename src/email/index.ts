/** Wires email alerts into the core: the mailer from config, the job kind, the outbox alert rule and the webhook-disabled alert. */
import type { Config } from "../config.ts";
import type { JobQueue } from "../events/jobs.ts";
import type { Outbox } from "../events/outbox.ts";
import type { Logger } from "../logger.ts";
import type { Store } from "../store/types.ts";
import type { DeliveryJob } from "../webhooks/delivery-job.ts";
import { EmailAlerts } from "./alerts.ts";
import { NotConfiguredMailer, SmtpMailer, type Mailer } from "./mailer.ts";

function createMailer(config: Config, logger: Logger): Mailer {
  if (!config.smtpUrl) return new NotConfiguredMailer(logger);
  return new SmtpMailer({ url: config.smtpUrl, from: config.emailFrom, caFile: config.smtpCaFile });
}

export function createEmailAlerts(deps: {
  store: Store;
  config: Config;
  outbox: Outbox;
  jobs: JobQueue;
  delivery: DeliveryJob;
  logger: Logger;
  mailer?: Mailer;
}): { alerts: EmailAlerts; mailer: Mailer } {
  const mailer = deps.mailer ?? createMailer(deps.config, deps.logger);
  const alerts = new EmailAlerts(deps.store, mailer, deps.logger, { baseUrl: deps.config.baseUrl });
  deps.jobs.register(alerts.jobKind());
  deps.outbox.addAlertRule((event) => alerts.alertFor(event));
  deps.delivery.onDisabled((webhook, reason) => alerts.webhookDisabled(webhook, reason));
  return { alerts, mailer };
}
