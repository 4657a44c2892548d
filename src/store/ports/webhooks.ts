/**
 * Webhooks and their delivery log: the store port of src/webhooks.
 * The rules of the Store (../types.ts) hold for every method: each is atomic, operational faults
 * are thrown as StoreUnavailableError, times are epoch ms, records are plain objects.
 */

export type WebhookStatus = "enabled" | "disabled";

export interface WebhookRecord {
  /** `wh_` + random id. */
  id: string;
  accountId: string;
  url: string;
  /** Subscribed event names, in the order given. */
  events: string[];
  /** The signing secret as given (HMAC needs the raw value). Never returned by the API, never logged. */
  secret: string;
  status: WebhookStatus;
  /** Why it was disabled (null while enabled). */
  disabledReason: string | null;
  createdAt: number;
  updatedAt: number;
}

/** One HTTP attempt in a webhook's delivery log. */
export interface DeliveryAttemptRecord {
  /** `dlv_` + random id, sent as `X-OG-Delivery`. */
  id: string;
  webhookId: string;
  accountId: string;
  /** The job this attempt ran for; null for test sends. */
  jobId: string | null;
  /** The envelope's `id` (test events are not stored as events). */
  eventId: string;
  eventType: string;
  /** 1 for the first attempt of an event. */
  attempt: number;
  /** The receiver's HTTP status; null when no response came. */
  statusCode: number | null;
  /** Why it failed; null when delivered. */
  error: string | null;
  delivered: boolean;
  /** Real time the attempt took, ms. */
  durationMs: number;
  /** When the next retry is due (clock time); null when none follows. */
  nextAttemptAt: number | null;
  createdAt: number;
}

export interface WebhookChanges {
  url: string;
  events: string[];
  /** Rotates the secret when given. */
  secret?: string;
  /**
   * true: a disabled webhook becomes enabled (reason cleared; its dropped deliveries stay
   * dropped). false: an enabled webhook becomes disabled with `disableReason` and its pending
   * jobs are canceled. Either is a no-op when the webhook is already in that state.
   */
  enabled?: boolean;
  disableReason: string;
  now: number;
}

/** Webhooks and deliveries. */
export interface WebhooksPort {
  /** Inserts the webhook unless the account already has `maxPerAccount` (checked in the same transaction). */
  createWebhook(webhook: WebhookRecord, maxPerAccount: number): Promise<WebhookRecord | "limit_reached">;
  /**
   * Deletes it with its jobs (pending ones included) and its log; false when the account has no
   * such webhook. (Its update and its log's writes are the core's routines, src/webhooks, run through
   * `Store.transact`.)
   */
  deleteWebhook(accountId: string, id: string): Promise<boolean>;
  /** Scoped to the account: another account's webhook is undefined. */
  getWebhook(accountId: string, id: string): Promise<WebhookRecord | undefined>;
  /** By id alone (the delivery job). */
  getWebhookById(id: string): Promise<WebhookRecord | undefined>;
  /** The account's webhooks in creation order; `enabledOnly` for the test send. */
  listWebhooks(accountId: string, options?: { enabledOnly?: boolean }): Promise<WebhookRecord[]>;
  /** The webhook's newest attempts first, at most `limit` (src/webhooks/delivery-log.ts keeps the newest 100 per webhook). */
  listDeliveryAttempts(webhookId: string, limit: number): Promise<DeliveryAttemptRecord[]>;
}
