import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { accounts } from "./accounts.ts";

/** Registered webhook endpoints. At most 20 per account. */
export const webhooks = sqliteTable(
  "webhooks",
  {
    /** `wh_` + random id. */
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    url: text("url").notNull(),
    /** JSON array of the subscribed event names (a non-empty subset of the four usage and image events). */
    events: text("events", { mode: "json" }).$type<string[]>().notNull(),
    /**
     * The signing secret as the user gave it. HMAC needs the raw value, so it cannot be stored
     * hashed; it is never returned by the API and never logged.
     */
    secret: text("secret").notNull(),
    /** enabled | disabled. Only enabled webhooks get new delivery jobs. */
    status: text("status").$type<"enabled" | "disabled">().notNull().default("enabled"),
    /** Why the webhook was disabled (null while enabled). */
    disabledReason: text("disabled_reason"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (table) => [index("webhooks_account_idx").on(table.accountId)],
);

/**
 * The delivery log: one row per HTTP attempt (retries and `POST /api/webhooks/test` sends),
 * shown by `GET /api/webhooks/{id}/deliveries`. The id is the `X-OG-Delivery` header value.
 */
export const deliveryAttempts = sqliteTable(
  "delivery_attempts",
  {
    /** `dlv_` + random id, sent as `X-OG-Delivery`. */
    id: text("id").primaryKey(),
    webhookId: text("webhook_id")
      .notNull()
      .references(() => webhooks.id, { onDelete: "cascade" }),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    /** The job this attempt ran for; null for test sends. No foreign key: finished jobs are pruned. */
    jobId: text("job_id"),
    /** The envelope's `id`. No foreign key: test events are never stored in `events`. */
    eventId: text("event_id").notNull(),
    /** image.generated | usage.warning | usage.limit_reached | usage.reset | webhook.test */
    eventType: text("event_type").notNull(),
    /** 1 for the first attempt of an event, 6 for its 5th retry. */
    attempt: integer("attempt").notNull(),
    /** The receiver's HTTP status; null when no response came (timeout, refused, blocked). */
    statusCode: integer("status_code"),
    /** Why the attempt failed; null when it was delivered. */
    error: text("error"),
    delivered: integer("delivered", { mode: "boolean" }).notNull(),
    /** Real time the attempt took, in milliseconds. */
    durationMs: integer("duration_ms").notNull(),
    /** When the next retry of this event is due (clock time); null when none will follow. */
    nextAttemptAt: integer("next_attempt_at"),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [index("delivery_attempts_webhook_idx").on(table.webhookId, table.createdAt)],
);
