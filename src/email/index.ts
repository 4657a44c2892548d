/** Wires email alerts into the core: the mailer from config, the job kind, the outbox fan-out and the webhook-disabled hook. */
import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import type { Db } from "../db/client.ts";
import type { JobQueue } from "../events/jobs.ts";
import type { Outbox } from "../events/outbox.ts";
import type { Logger } from "../logger.ts";
import type { WebhookService } from "../webhooks/index.ts";
import { EmailAlerts } from "./alerts.ts";
import { NotConfiguredMailer, SmtpMailer, type Mailer } from "./mailer.ts";

export function createMailer(config: Config, logger: Logger): Mailer {
  if (!config.smtpUrl) return new NotConfiguredMailer(logger);
  return new SmtpMailer({ url: config.smtpUrl, from: config.emailFrom, caFile: config.smtpCaFile });
}

export function createEmailAlerts(deps: { db: Db; clock: Clock; config: Config; outbox: Outbox; jobs: JobQueue; webhooks: WebhookService; logger: Logger; mailer?: Mailer }): {
  alerts: EmailAlerts;
  mailer: Mailer;
} {
  const mailer = deps.mailer ?? createMailer(deps.config, deps.logger);
  const alerts = new EmailAlerts(deps.db, deps.clock, deps.jobs, mailer, deps.logger, { baseUrl: deps.config.baseUrl });
  deps.jobs.register(alerts.jobKind());
  deps.outbox.addFanOut((tx, event, data) => alerts.fanOut(tx, event, data));
  deps.webhooks.onDisabled((tx, webhook, reason) => alerts.webhookDisabled(tx, webhook, reason));
  return { alerts, mailer };
}

export { EmailAlerts, EMAIL_JOB, EMAIL_RETRY_SCHEDULE, type EmailAlertView } from "./alerts.ts";
export { NotConfiguredMailer, SmtpMailer, type Mailer, type SendResult } from "./mailer.ts";
export { buildAlertEmail, escapeHtml, displayUrl, type EmailMessage } from "./messages.ts";
