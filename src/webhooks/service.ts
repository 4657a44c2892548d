/**
 * Webhook endpoints, shared by the API and the dashboard: CRUD with validation (./input.ts),
 * the delivery log and the test send (./test-send.ts). Delivery itself is a job kind
 * (./delivery-job.ts). None of it knows about HTTP requests.
 */
import type { Clock } from "../clock.ts";
import { ApiError, validationError, type FieldProblem } from "../errors.ts";
import { newId } from "../ids.ts";
import { checkUrl, type Resolver } from "../net/resolve.ts";
import { OutboundError } from "../net/outbound-error.ts";
import type { DeliveryAttemptRecord, Store, WebhookChanges, WebhookRecord } from "../store/types.ts";
import type { WebhookSender } from "./delivery.ts";
import type { DeliveryLog } from "./delivery-log.ts";
import { checkWebhookInput, MAX_WEBHOOKS_PER_ACCOUNT, webhookFields } from "./input.ts";
import { updateWebhook } from "./status-change.ts";
import { sendTestEvents, type TestResult } from "./test-send.ts";

/** Attempts shown per webhook in the delivery log. */
export const DELIVERY_LOG_SIZE = 100;

export interface WebhookView {
  id: string;
  url: string;
  events: string[];
  status: "enabled" | "disabled";
  disabled_reason: string | null;
  created_at: string;
  updated_at: string;
}

export interface DeliveryView {
  id: string;
  event_id: string;
  event_type: string;
  attempt: number;
  delivered: boolean;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  next_attempt_at: string | null;
  created_at: string;
}

const iso = (ms: number) => new Date(ms).toISOString();

function toWebhookView(row: WebhookRecord): WebhookView {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    status: row.status,
    disabled_reason: row.disabledReason,
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  };
}

function toDeliveryView(a: DeliveryAttemptRecord): DeliveryView {
  return {
    id: a.id,
    event_id: a.eventId,
    event_type: a.eventType,
    attempt: a.attempt,
    delivered: a.delivered,
    status_code: a.statusCode,
    error: a.error,
    duration_ms: a.durationMs,
    next_attempt_at: a.nextAttemptAt === null ? null : iso(a.nextAttemptAt),
    created_at: iso(a.createdAt),
  };
}

export interface WebhookServiceOptions {
  /** OG_ALLOW_PRIVATE_NETWORKS. */
  allowPrivate: boolean;
  resolver?: Resolver;
}

export class WebhookService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly sender: WebhookSender,
    private readonly log: DeliveryLog,
    private readonly options: WebhookServiceOptions,
  ) {}

  async list(accountId: string): Promise<WebhookView[]> {
    return (await this.store.listWebhooks(accountId)).map(toWebhookView);
  }

  async get(accountId: string, id: string): Promise<WebhookView> {
    return toWebhookView(await this.row(accountId, id));
  }

  /** `body`: the request body as sent; checked here, every bad field in one answer. */
  async create(accountId: string, body: unknown): Promise<WebhookView> {
    const problems = checkWebhookInput(body, "create");
    const input = webhookFields(body);
    problems.push(...(await this.checkAddress(input.url, problems)));
    if (problems.length > 0) throw validationError(problems);
    const now = this.clock.now();
    const created = await this.store.createWebhook(
      {
        id: newId("wh"),
        accountId,
        url: input.url as string,
        events: input.events as string[],
        secret: input.secret as string,
        status: "enabled",
        disabledReason: null,
        createdAt: now,
        updatedAt: now,
      },
      MAX_WEBHOOKS_PER_ACCOUNT,
    );
    if (created === "limit_reached") throw new ApiError("CONFLICT", `An account can have at most ${MAX_WEBHOOKS_PER_ACCOUNT} webhooks. Delete one first.`);
    return toWebhookView(created);
  }

  async update(accountId: string, id: string, body: unknown): Promise<WebhookView> {
    await this.row(accountId, id); // 404 before validation details about a webhook the caller cannot see
    const problems = checkWebhookInput(body, "update");
    const input = webhookFields(body);
    problems.push(...(await this.checkAddress(input.url, problems)));
    if (problems.length > 0) throw validationError(problems);
    const changes: WebhookChanges = {
      url: input.url as string,
      events: input.events as string[],
      secret: input.secret as string | undefined,
      enabled: input.enabled as boolean | undefined,
      disableReason: "Disabled through the API.",
      now: this.clock.now(),
    };
    const updated = await this.store.transact((tx) => updateWebhook(tx, accountId, id, changes));
    if (!updated) throw notFound(id);
    return toWebhookView(updated);
  }

  /** Deletes the webhook; its pending deliveries and its log go with it. */
  async delete(accountId: string, id: string): Promise<{ id: string; deleted: true }> {
    if (!(await this.store.deleteWebhook(accountId, id))) throw notFound(id);
    this.log.forget(id);
    return { id, deleted: true };
  }

  /** The last 100 attempts, newest first. */
  async deliveries(accountId: string, id: string): Promise<DeliveryView[]> {
    await this.row(accountId, id);
    return (await this.store.listDeliveryAttempts(id, DELIVERY_LOG_SIZE)).map(toDeliveryView);
  }

  /** One test attempt to every enabled webhook of the account, or to the one named (see ./test-send.ts). */
  async sendTest(accountId: string, webhookId?: string): Promise<TestResult[]> {
    const targets = webhookId !== undefined ? [await this.row(accountId, webhookId)] : await this.store.listWebhooks(accountId, { enabledOnly: true });
    return sendTestEvents({ store: this.store, clock: this.clock, sender: this.sender, log: this.log }, targets);
  }

  private async row(accountId: string, id: string): Promise<WebhookRecord> {
    const row = await this.store.getWebhook(accountId, id);
    if (!row) throw notFound(id);
    return row;
  }

  /** The address guard at registration: a URL whose host resolves into a blocked range is refused. */
  private async checkAddress(url: unknown, problems: FieldProblem[]): Promise<FieldProblem[]> {
    if (typeof url !== "string" || problems.some((p) => p.field === "url")) return [];
    try {
      await checkUrl(url, { allowPrivate: this.options.allowPrivate, resolver: this.options.resolver, signal: AbortSignal.timeout(5_000) });
      return [];
    } catch (error) {
      if (error instanceof OutboundError && (error.reason === "blocked_address" || error.reason === "invalid_url")) {
        return [{ field: "url", message: `${error.message}; webhook URLs must reach a public address` }];
      }
      // A name that does not resolve today may tomorrow; it is checked again at every delivery.
      return [];
    }
  }
}

const notFound = (id: string) => new ApiError("WEBHOOK_NOT_FOUND", `No webhook ${id} on this account.`);
