/**
 * Webhook endpoints and their delivery pipeline, shared by the API and the
 * dashboard: CRUD with validation, the outbox fan-out (one delivery job per subscribed enabled
 * webhook, in the event's transaction), the delivery job kind (attempt log, retries, disabling)
 * and the synchronous test send. None of it knows about HTTP requests.
 */
import { and, count, desc, eq, sql } from "drizzle-orm";
import type { Clock } from "../clock.ts";
import type { Db, Tx } from "../db/client.ts";
import { deliveryAttempts, webhooks, type JobRow, type WebhookRow } from "../db/schema/index.ts";
import { ApiError, validationError, type FieldProblem } from "../errors.ts";
import { envelopeBody } from "../events/envelope.ts";
import type { JobKind, JobOutcome, JobQueue, SettledJob } from "../events/jobs.ts";
import type { RecordedEvent } from "../events/outbox.ts";
import { EVENT_TYPES, isEventType } from "../events/types.ts";
import { newId } from "../ids.ts";
import { checkUrl, parseOutboundUrl, type Resolver } from "../net/resolve.ts";
import { OutboundError } from "../net/outbound-error.ts";
import type { SendResult, WebhookSender } from "./delivery.ts";

export const WEBHOOK_DELIVERY = "webhook_delivery";
import { MAX_URL_LENGTH, MAX_WEBHOOKS_PER_ACCOUNT, SECRET_MAX, SECRET_MIN } from "./rules.ts";
export { MAX_URL_LENGTH, MAX_WEBHOOKS_PER_ACCOUNT, SECRET_MAX, SECRET_MIN };
/** Seconds after the 1st…5th failure. The failure after the last step disables. */
export const RETRY_SCHEDULE = [60, 300, 1800, 7200, 86400] as const;
/** Attempts kept per webhook for the delivery log. */
export const DELIVERY_LOG_SIZE = 100;
export const TEST_EVENT = "webhook.test";

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

export interface TestResult {
  webhook_id: string;
  delivered: boolean;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

export interface WebhookInput {
  url?: unknown;
  events?: unknown;
  secret?: unknown;
  /** Update only: true re-enables a disabled webhook, false disables it. */
  enabled?: unknown;
}

/** Called in the transaction that disables a webhook (e.g. to queue an email to its owner). */
export type WebhookDisabledHook = (tx: Tx, webhook: WebhookRow, reason: string) => void;

const iso = (ms: number) => new Date(ms).toISOString();

export function toWebhookView(row: WebhookRow): WebhookView {
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

const CREATE_FIELDS = ["url", "events", "secret"];
const UPDATE_FIELDS = ["url", "events", "secret", "enabled"];

/** Shape checks every face shares (the API's TypeBox schema says the same, for the docs). */
export function checkWebhookInput(input: WebhookInput, mode: "create" | "update"): FieldProblem[] {
  if (typeof input !== "object" || input === null || Array.isArray(input)) return [{ field: "body", message: "must be a JSON object" }];
  const problems: FieldProblem[] = [];
  const known = mode === "create" ? CREATE_FIELDS : UPDATE_FIELDS;
  for (const [name, value] of Object.entries(input)) {
    if (value !== undefined && !known.includes(name)) problems.push({ field: name, message: "is not a known field" });
  }
  if (typeof input.url !== "string" || input.url.length === 0) problems.push({ field: "url", message: "is required" });
  else if (input.url.length > MAX_URL_LENGTH) problems.push({ field: "url", message: `must be at most ${MAX_URL_LENGTH} characters` });
  else {
    try {
      parseOutboundUrl(input.url);
    } catch (error) {
      problems.push({ field: "url", message: `must be an absolute http or https URL (${(error as Error).message})` });
    }
  }
  if (!Array.isArray(input.events) || input.events.length === 0) {
    problems.push({ field: "events", message: `must be a non-empty array of: ${EVENT_TYPES.join(", ")}` });
  } else {
    const seen = new Set<string>();
    input.events.forEach((name, index) => {
      if (typeof name !== "string" || !isEventType(name)) problems.push({ field: `events.${index}`, message: `must be one of ${EVENT_TYPES.join(", ")}` });
      else if (seen.has(name)) problems.push({ field: `events.${index}`, message: `duplicates ${name}` });
      else seen.add(name);
    });
  }
  if (mode === "create" || input.secret !== undefined) {
    if (typeof input.secret !== "string") problems.push({ field: "secret", message: "is required" });
    else if (input.secret.length < SECRET_MIN || input.secret.length > SECRET_MAX) {
      problems.push({ field: "secret", message: `must be ${SECRET_MIN} to ${SECRET_MAX} characters` });
    }
  }
  if (mode === "update" && input.enabled !== undefined && typeof input.enabled !== "boolean") problems.push({ field: "enabled", message: "must be a boolean" });
  return problems;
}

export interface WebhookServiceOptions {
  /** OG_ALLOW_PRIVATE_NETWORKS. */
  allowPrivate: boolean;
  resolver?: Resolver;
}

export class WebhookService {
  private readonly disabledHooks: WebhookDisabledHook[] = [];
  private readonly attemptsSincePrune = new Map<string, number>();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly jobs: JobQueue,
    private readonly sender: WebhookSender,
    private readonly options: WebhookServiceOptions,
  ) {}

  /** The email alerts hook in here to tell the owner; runs in the disabling transaction. */
  onDisabled(hook: WebhookDisabledHook): void {
    this.disabledHooks.push(hook);
  }

  list(accountId: string): WebhookView[] {
    return this.db.select().from(webhooks).where(eq(webhooks.accountId, accountId)).orderBy(webhooks.createdAt, sql`rowid`).all().map(toWebhookView);
  }

  get(accountId: string, id: string): WebhookView {
    return toWebhookView(this.row(accountId, id));
  }

  async create(accountId: string, input: WebhookInput): Promise<WebhookView> {
    const problems = checkWebhookInput(input, "create");
    problems.push(...(await this.checkAddress(input.url, problems)));
    if (problems.length > 0) throw validationError(problems);
    const now = this.clock.now();
    const row = this.db.transaction((tx) => {
      const existing = tx.select({ n: count() }).from(webhooks).where(eq(webhooks.accountId, accountId)).get()!.n;
      if (existing >= MAX_WEBHOOKS_PER_ACCOUNT) {
        throw new ApiError("CONFLICT", `An account can have at most ${MAX_WEBHOOKS_PER_ACCOUNT} webhooks. Delete one first.`);
      }
      return tx
        .insert(webhooks)
        .values({
          id: newId("wh"),
          accountId,
          url: input.url as string,
          events: input.events as string[],
          secret: input.secret as string,
          status: "enabled",
          createdAt: now,
          updatedAt: now,
        })
        .returning()
        .get();
    });
    return toWebhookView(row);
  }

  async update(accountId: string, id: string, input: WebhookInput): Promise<WebhookView> {
    this.row(accountId, id); // 404 before validation details about a webhook the caller cannot see
    const problems = checkWebhookInput(input, "update");
    problems.push(...(await this.checkAddress(input.url, problems)));
    if (problems.length > 0) throw validationError(problems);
    const now = this.clock.now();
    const row = this.db.transaction((tx) => {
      const current = tx.select().from(webhooks).where(and(eq(webhooks.id, id), eq(webhooks.accountId, accountId))).get();
      if (!current) throw notFound(id);
      const changes: Partial<WebhookRow> = { url: input.url as string, events: input.events as string[], updatedAt: now };
      if (input.secret !== undefined) changes.secret = input.secret as string;
      if (input.enabled === true && current.status === "disabled") {
        // Starts fresh: the dropped deliveries stay dropped, new events are queued again.
        changes.status = "enabled";
        changes.disabledReason = null;
      } else if (input.enabled === false && current.status === "enabled") {
        changes.status = "disabled";
        changes.disabledReason = "Disabled through the API.";
        this.jobs.cancelPending(tx, { webhookId: id });
      }
      return tx.update(webhooks).set(changes).where(eq(webhooks.id, id)).returning().get();
    });
    return toWebhookView(row);
  }

  /** Deletes the webhook; its pending deliveries and its log go with it. */
  delete(accountId: string, id: string): { id: string; deleted: true } {
    // Its jobs (pending ones included) and its log go by foreign-key cascade, in this statement.
    const deleted = this.db.delete(webhooks).where(and(eq(webhooks.id, id), eq(webhooks.accountId, accountId))).returning({ id: webhooks.id }).all().length;
    if (deleted === 0) throw notFound(id);
    this.attemptsSincePrune.delete(id);
    return { id, deleted: true };
  }

  /** The last 100 attempts, newest first. */
  deliveries(accountId: string, id: string): DeliveryView[] {
    this.row(accountId, id);
    return this.db
      .select()
      .from(deliveryAttempts)
      .where(eq(deliveryAttempts.webhookId, id))
      .orderBy(desc(deliveryAttempts.createdAt), desc(sql`rowid`))
      .limit(DELIVERY_LOG_SIZE)
      .all()
      .map((a) => ({
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
      }));
  }

  /**
   * `POST /api/webhooks/test`: one synchronous attempt of a `webhook.test` event to every enabled
   * webhook of the account, or to the one named (even if disabled: checking an endpoint before
   * re-enabling it is the point). Logged, never retried, never counted toward disabling.
   */
  async sendTest(accountId: string, webhookId?: string): Promise<TestResult[]> {
    const targets = webhookId !== undefined
      ? [this.row(accountId, webhookId)]
      : this.db.select().from(webhooks).where(and(eq(webhooks.accountId, accountId), eq(webhooks.status, "enabled"))).orderBy(webhooks.createdAt, sql`rowid`).all();
    return Promise.all(
      targets.map(async (webhook) => {
        const now = this.clock.now();
        const eventId = newId("evt");
        const deliveryId = newId("dlv");
        const body = envelopeBody({
          id: eventId,
          type: TEST_EVENT,
          data: JSON.stringify({ webhook_id: webhook.id, message: "This is a test event sent from ogsmith." }),
          createdAt: now,
        });
        const result = await this.sender.send(webhook, { eventId, eventType: TEST_EVENT, body }, deliveryId, now);
        this.db.transaction((tx) => {
          this.recordAttempt(tx, { webhookId: webhook.id, accountId, jobId: null, eventId, eventType: TEST_EVENT, attempt: 1, deliveryId, result, nextAttemptAt: null });
        });
        return { webhook_id: webhook.id, delivered: result.delivered, status_code: result.statusCode, error: result.error, duration_ms: result.durationMs };
      }),
    );
  }

  /** Outbox fan-out: one delivery job per enabled webhook of the account subscribed to the event. */
  fanOut(tx: Tx, event: RecordedEvent): void {
    // Runs in every generation's transaction: a cached statement, not a drizzle query (see JobQueue.sql).
    const targets = this.sql("SELECT id, events FROM webhooks WHERE account_id = ? AND status = 'enabled'").all(event.accountId) as { id: string; events: string }[];
    for (const target of targets) {
      if (!(JSON.parse(target.events) as string[]).includes(event.type)) continue;
      this.jobs.enqueue(tx, { kind: WEBHOOK_DELIVERY, lane: target.id, accountId: event.accountId, webhookId: target.id, eventId: event.id, runAt: event.createdAt });
    }
  }

  /** The job kind that delivers one event to one webhook. */
  deliveryKind(): JobKind {
    return {
      kind: WEBHOOK_DELIVERY,
      retrySchedule: RETRY_SCHEDULE,
      perform: (job, signal) => this.performDelivery(job, signal),
      settled: (tx, settled) => this.settleDelivery(tx, settled),
    };
  }

  private async performDelivery(job: JobRow, signal: AbortSignal): Promise<JobOutcome> {
    const webhook = this.sql("SELECT url, secret, status FROM webhooks WHERE id = ?").get(job.webhookId) as Pick<WebhookRow, "url" | "secret" | "status"> | null;
    const event = this.sql("SELECT id, type, data, created_at AS createdAt FROM events WHERE id = ?").get(job.eventId) as { id: string; type: string; data: string; createdAt: number } | null;
    if (!webhook || webhook.status !== "enabled" || !event) return { ok: false, canceled: true, error: "webhook or event no longer exists or is disabled" };
    const deliveryId = newId("dlv");
    const result = await this.sender.send(webhook, { eventId: event.id, eventType: event.type, body: envelopeBody(event) }, deliveryId, this.clock.now(), signal);
    const detail: DeliveryDetail = { deliveryId, eventId: event.id, eventType: event.type, result };
    return { ok: result.delivered, error: result.error ?? undefined, detail };
  }

  private settleDelivery(tx: Tx, settled: SettledJob): void {
    const { job, outcome } = settled;
    const detail = outcome.detail as DeliveryDetail | undefined;
    if (outcome.canceled || !detail || !job.webhookId) return;
    const found = this.sql("SELECT id FROM webhooks WHERE id = ?").get(job.webhookId);
    if (!found) return; // deleted while the attempt was in flight
    const webhook = settled.gaveUp ? tx.select().from(webhooks).where(eq(webhooks.id, job.webhookId)).get()! : undefined;
    this.recordAttempt(tx, {
      webhookId: job.webhookId,
      accountId: job.accountId!,
      jobId: job.id,
      eventId: detail.eventId,
      eventType: detail.eventType,
      attempt: settled.attempt,
      deliveryId: detail.deliveryId,
      result: detail.result,
      nextAttemptAt: settled.nextRunAt,
    });
    if (webhook && webhook.status === "enabled") {
      const reason = `Disabled after ${settled.attempt} failed attempts to deliver event ${detail.eventId} (${detail.eventType}); last error: ${detail.result.error ?? "unknown"}. Fix the endpoint, then re-enable it with PUT /api/webhooks/${webhook.id} and "enabled": true.`;
      this.disable(tx, webhook, reason);
    }
  }

  /** Disables a webhook, drops its queued deliveries and tells the hooks, in the caller's transaction. */
  disable(tx: Tx, webhook: WebhookRow, reason: string): void {
    const now = this.clock.now();
    tx.update(webhooks).set({ status: "disabled", disabledReason: reason, updatedAt: now }).where(eq(webhooks.id, webhook.id)).run();
    this.jobs.cancelPending(tx, { webhookId: webhook.id });
    const updated = { ...webhook, status: "disabled" as const, disabledReason: reason, updatedAt: now };
    for (const hook of this.disabledHooks) hook(tx, updated, reason);
  }

  private recordAttempt(
    tx: Tx,
    a: { webhookId: string; accountId: string; jobId: string | null; eventId: string; eventType: string; attempt: number; deliveryId: string; result: SendResult; nextAttemptAt: number | null },
  ): void {
    this.sql(
      `INSERT INTO delivery_attempts (id, webhook_id, account_id, job_id, event_id, event_type, attempt, status_code, error, delivered, duration_ms, next_attempt_at, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      a.deliveryId,
      a.webhookId,
      a.accountId,
      a.jobId,
      a.eventId,
      a.eventType,
      a.attempt,
      a.result.statusCode,
      a.result.error,
      a.result.delivered ? 1 : 0,
      a.result.durationMs,
      a.nextAttemptAt,
      this.clock.now(),
    );
    // Keep the log bounded without a DELETE per attempt: trim once every 50 attempts per webhook.
    const since = (this.attemptsSincePrune.get(a.webhookId) ?? 0) + 1;
    if (since < 50) {
      this.attemptsSincePrune.set(a.webhookId, since);
      return;
    }
    this.attemptsSincePrune.set(a.webhookId, 0);
    tx.run(
      sql`DELETE FROM delivery_attempts WHERE webhook_id = ${a.webhookId} AND rowid NOT IN (SELECT rowid FROM delivery_attempts WHERE webhook_id = ${a.webhookId} ORDER BY created_at DESC, rowid DESC LIMIT ${DELIVERY_LOG_SIZE})`,
    );
  }

  /** A cached prepared statement on the same connection (inside the caller's transaction, if any). */
  private sql(text: string) {
    return this.db.$client.query(text);
  }

  private row(accountId: string, id: string): WebhookRow {
    const row = this.db.select().from(webhooks).where(and(eq(webhooks.id, id), eq(webhooks.accountId, accountId))).get();
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

interface DeliveryDetail {
  deliveryId: string;
  eventId: string;
  eventType: string;
  result: SendResult;
}

const notFound = (id: string) => new ApiError("WEBHOOK_NOT_FOUND", `No webhook ${id} on this account.`);
