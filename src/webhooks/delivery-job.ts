/**
 * The job kind that delivers one event to one webhook: one signed attempt, logged; failures
 * retried on RETRY_SCHEDULE, jittered and stretched by the receiver's Retry-After
 * (retry-policy.ts); the failure after the last step disables the webhook, drops its queued
 * deliveries and tells the owner (an alert raised in that same transaction).
 */
import type { Clock } from "../clock.ts";
import { envelopeBody } from "../events/envelope.ts";
import type { Bookkeeping, JobKind, JobOutcome, PlannedSettlement } from "../events/jobs.ts";
import { newId } from "../ids.ts";
import { WEBHOOK_DELIVERY_JOB, type AlertDraft, type JobRecord, type Store, type WebhookRecord } from "../store/types.ts";
import type { SendResult, WebhookSender } from "./delivery.ts";
import type { DeliveryLog } from "./delivery-log.ts";
import { NOMINAL_RETRY_DELAYS_S, nextRetryDelayMs } from "./retry-policy.ts";

/**
 * Nominal seconds after the 1st…5th failure; the failure after the last step disables. Each
 * actual delay is jittered ±20 % and may be stretched by Retry-After: see retry-policy.ts.
 */
export const RETRY_SCHEDULE = NOMINAL_RETRY_DELAYS_S;

/** Uniform in [0, 1): the jitter's source (Math.random; tests pin it, 0.5 = exactly nominal). */
export type RetryRandom = () => number;

/** Builds the owner's alert when a webhook is disabled (the email module provides it). */
export type DisabledAlert = (webhook: Pick<WebhookRecord, "id" | "url" | "accountId">, reason: string) => AlertDraft;

interface DeliveryDetail {
  deliveryId: string;
  eventId: string;
  eventType: string;
  webhook: Pick<WebhookRecord, "id" | "url" | "accountId">;
  result: SendResult;
}

export class DeliveryJob {
  private disabledAlert: DisabledAlert | undefined;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly sender: WebhookSender,
    private readonly log: DeliveryLog,
    private readonly random: RetryRandom = Math.random,
  ) {}

  /** The alert raised (in the disabling transaction) when the retry schedule is used up. */
  onDisabled(alert: DisabledAlert): void {
    this.disabledAlert = alert;
  }

  kind(): JobKind {
    return {
      kind: WEBHOOK_DELIVERY_JOB,
      retrySchedule: RETRY_SCHEDULE,
      retryDelayMs: (job, outcome, attemptStartedAt) =>
        nextRetryDelayMs({
          failures: job.attempts,
          retryAfter: (outcome.detail as DeliveryDetail | undefined)?.result.retryAfter,
          // An HTTP-date Retry-After is a point in time: counted from the attempt's start, the retry lands on it.
          now: attemptStartedAt,
          random: this.random,
          schedule: RETRY_SCHEDULE,
        }),
      perform: (job, signal) => this.perform(job, signal),
      bookkeeping: (planned) => this.bookkeeping(planned),
      attemptLog: this.log,
    };
  }

  private async perform(job: JobRecord, signal: AbortSignal): Promise<JobOutcome> {
    const [webhook, event] = await Promise.all([
      job.webhookId ? this.store.getWebhookById(job.webhookId) : undefined,
      job.eventId ? this.store.getEvent(job.eventId) : undefined,
    ]);
    if (webhook?.status !== "enabled" || !event) return { ok: false, canceled: true, error: "webhook or event no longer exists or is disabled" };
    const deliveryId = newId("dlv");
    const result = await this.sender.send(
      webhook,
      { eventId: event.id, eventType: event.type, body: envelopeBody(event) },
      deliveryId,
      this.clock.now(),
      signal,
    );
    const detail: DeliveryDetail = {
      deliveryId,
      eventId: event.id,
      eventType: event.type,
      webhook: { id: webhook.id, url: webhook.url, accountId: webhook.accountId },
      result,
    };
    return { ok: result.delivered, error: result.error ?? undefined, detail };
  }

  private bookkeeping(planned: PlannedSettlement): Bookkeeping {
    const { job, outcome } = planned;
    const detail = outcome.detail as DeliveryDetail | undefined;
    if (outcome.canceled || !detail || !job.webhookId) return {};
    const records: Bookkeeping = {
      deliveryAttempt: {
        id: detail.deliveryId,
        webhookId: job.webhookId,
        accountId: job.accountId!,
        jobId: job.id,
        eventId: detail.eventId,
        eventType: detail.eventType,
        attempt: planned.attempt,
        statusCode: detail.result.statusCode,
        error: detail.result.error,
        delivered: detail.result.delivered,
        durationMs: detail.result.durationMs,
        nextAttemptAt: planned.nextRunAt,
        createdAt: planned.now,
      },
    };
    if (planned.gaveUp) {
      const reason = `Disabled after ${planned.attempt} failed attempts to deliver event ${detail.eventId} (${detail.eventType}); last error: ${detail.result.error ?? "unknown"}. Fix the endpoint, then re-enable it with PUT /api/webhooks/${job.webhookId} and "enabled": true.`;
      records.disableWebhook = { webhookId: job.webhookId, reason, alert: this.disabledAlert?.(detail.webhook, reason) };
    }
    return records;
  }
}
