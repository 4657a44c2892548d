/**
 * The PostgreSQL schema: the same tables and columns as the SQLite schema (src/store/sqlite/
 * schema/), kept deliberately parallel so the two read the same. Differences, each for a reason:
 * - times are `bigint` epoch milliseconds (mode "number"), like SQLite's integers;
 * - `seq` (identity) gives insertion order where SQLite uses `rowid`;
 * - JSON stays `text`: event data must be stored and sent back byte for byte (jsonb reorders keys);
 * - `cluster_state` holds what every instance must agree on (the test clock's offset).
 * Generate a migration with `bun run db:generate:postgres` and add it to ./migrations.ts.
 */
import { bigint, bigserial, boolean, customType, foreignKey, index, integer, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import type { EmailAlertKind, EmailAlertState, JobStatus } from "../types.ts";

const ms = (name: string) => bigint(name, { mode: "number" });
const seq = () => bigserial("seq", { mode: "number" }).notNull();

export const accounts = pgTable("accounts", {
  id: text("id").primaryKey(),
  seq: seq(),
  email: text("email").notNull(),
  plan: text("plan").notNull(),
  status: text("status").notNull().default("active"),
  customQuota: integer("custom_quota"),
  customRequestsPerSecond: integer("custom_requests_per_second"),
  createdAt: ms("created_at").notNull(),
  updatedAt: ms("updated_at").notNull(),
});

export const apiKeys = pgTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    seq: seq(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    keyHash: text("key_hash").notNull().unique(),
    keyPrefix: text("key_prefix").notNull(),
    createdAt: ms("created_at").notNull(),
    revokedAt: ms("revoked_at"),
  },
  (table) => [index("api_keys_account_idx").on(table.accountId)],
);

export const usagePeriods = pgTable(
  "usage_periods",
  {
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    period: text("period").notNull(),
    used: integer("used").notNull().default(0),
    reserved: integer("reserved").notNull().default(0),
    /** Units held by batches for their items not yet drawn (they outlive a restart). */
    batchReserved: integer("batch_reserved").notNull().default(0),
    warned80At: ms("warned_80_at"),
    warned90At: ms("warned_90_at"),
    warned95At: ms("warned_95_at"),
    limitReachedAt: ms("limit_reached_at"),
    resetEmittedAt: ms("reset_emitted_at"),
  },
  (table) => [primaryKey({ columns: [table.accountId, table.period] })],
);

/**
 * The reservations each instance holds (`reserved` in usage_periods is their sum over
 * instances). When an instance dies with renders in flight (kill -9), a live instance sees its
 * liveness lock gone and gives its units back, so a crash never costs an account quota.
 */
export const unitReservations = pgTable(
  "unit_reservations",
  {
    /** The holding instance's liveness key (the second key of its advisory lock). */
    instanceKey: integer("instance_key").notNull(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    period: text("period").notNull(),
    /** Units this instance holds reserved for renders in flight. */
    count: integer("count").notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.instanceKey, table.accountId, table.period] })],
);

export const usageDays = pgTable(
  "usage_days",
  {
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    day: text("day").notNull(),
    count: integer("count").notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.accountId, table.day] })],
);

export const events = pgTable(
  "events",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    type: text("type").notNull(),
    data: text("data").notNull(),
    createdAt: ms("created_at").notNull(),
  },
  (table) => [index("events_account_idx").on(table.accountId, table.createdAt)],
);

export const webhooks = pgTable(
  "webhooks",
  {
    id: text("id").primaryKey(),
    seq: seq(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    url: text("url").notNull(),
    /** JSON array text, as in SQLite. */
    events: text("events").notNull(),
    secret: text("secret").notNull(),
    status: text("status").$type<"enabled" | "disabled">().notNull().default("enabled"),
    disabledReason: text("disabled_reason"),
    createdAt: ms("created_at").notNull(),
    updatedAt: ms("updated_at").notNull(),
  },
  (table) => [index("webhooks_account_idx").on(table.accountId)],
);

export const deliveryAttempts = pgTable(
  "delivery_attempts",
  {
    id: text("id").primaryKey(),
    seq: seq(),
    webhookId: text("webhook_id")
      .notNull()
      .references(() => webhooks.id, { onDelete: "cascade" }),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    jobId: text("job_id"),
    eventId: text("event_id").notNull(),
    eventType: text("event_type").notNull(),
    attempt: integer("attempt").notNull(),
    statusCode: integer("status_code"),
    error: text("error"),
    delivered: boolean("delivered").notNull(),
    durationMs: integer("duration_ms").notNull(),
    nextAttemptAt: ms("next_attempt_at"),
    createdAt: ms("created_at").notNull(),
  },
  (table) => [index("delivery_attempts_webhook_idx").on(table.webhookId, table.createdAt)],
);

export const jobs = pgTable(
  "jobs",
  {
    id: text("id").primaryKey(),
    seq: seq(),
    kind: text("kind").notNull(),
    lane: text("lane").notNull(),
    accountId: text("account_id").references(() => accounts.id, { onDelete: "cascade" }),
    webhookId: text("webhook_id").references(() => webhooks.id, { onDelete: "cascade" }),
    eventId: text("event_id").references(() => events.id, { onDelete: "cascade" }),
    /** JSON text. */
    payload: text("payload"),
    status: text("status").$type<JobStatus>().notNull().default("pending"),
    runAt: ms("run_at").notNull(),
    attempts: integer("attempts").notNull().default(0),
    claimedUntil: ms("claimed_until"),
    /**
     * The instance holding the lease (its liveness advisory lock's key). PostgreSQL only: with
     * several instances, a lease of an instance whose database session is gone is released at
     * once instead of waiting for `claimed_until`.
     */
    claimedBy: integer("claimed_by"),
    lastError: text("last_error"),
    createdAt: ms("created_at").notNull(),
    updatedAt: ms("updated_at").notNull(),
    finishedAt: ms("finished_at"),
  },
  (table) => [
    index("jobs_due_idx").on(table.status, table.runAt),
    index("jobs_webhook_idx").on(table.webhookId, table.status),
    index("jobs_account_kind_idx").on(table.accountId, table.kind),
  ],
);

export const emailAlerts = pgTable(
  "email_alerts",
  {
    id: text("id").primaryKey(),
    seq: seq(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    kind: text("kind").$type<EmailAlertKind>().notNull(),
    recipient: text("recipient").notNull(),
    subject: text("subject").notNull(),
    /** JSON text. */
    facts: text("facts").notNull(),
    state: text("state").$type<EmailAlertState>().notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    lastError: text("last_error"),
    nextAttemptAt: ms("next_attempt_at"),
    dedupeKey: text("dedupe_key"),
    jobId: text("job_id"),
    createdAt: ms("created_at").notNull(),
    updatedAt: ms("updated_at").notNull(),
    sentAt: ms("sent_at"),
  },
  (table) => [index("email_alerts_account_idx").on(table.accountId, table.createdAt), uniqueIndex("email_alerts_dedupe_idx").on(table.dedupeKey)],
);

export const dashboardSessions = pgTable(
  "dashboard_sessions",
  {
    tokenHash: text("token_hash").primaryKey(),
    id: text("id").notNull().unique(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    keyId: text("key_id")
      .notNull()
      .references(() => apiKeys.id, { onDelete: "cascade" }),
    createdAt: ms("created_at").notNull(),
    expiresAt: ms("expires_at").notNull(),
  },
  (table) => [index("dashboard_sessions_account_idx").on(table.accountId), index("dashboard_sessions_expires_idx").on(table.expiresAt)],
);

export const storeProbe = pgTable("store_probe", {
  id: integer("id").primaryKey(),
  at: ms("at").notNull(),
});

/** Cluster-wide settings every instance reads: `test_clock_offset_ms` (test clock only). */
export const clusterState = pgTable("cluster_state", {
  key: text("key").primaryKey(),
  value: bigint("value", { mode: "number" }).notNull(),
});

/** Signing keys of public image URLs (at most 5 per account); the secret as issued (HMAC needs it), never returned after creation. */
export const signingKeys = pgTable(
  "signing_keys",
  {
    id: text("id").primaryKey(),
    seq: seq(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    secret: text("secret").notNull(),
    createdAt: ms("created_at").notNull(),
    lastUsedAt: ms("last_used_at"),
  },
  (table) => [index("signing_keys_account_idx").on(table.accountId)],
);

/** Images counted through public URLs: one row per account, month and content address, inserted with the unit's confirmation. */
export const countedImages = pgTable(
  "counted_images",
  {
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    period: text("period").notNull(),
    contentAddress: text("content_address").notNull(),
    createdAt: ms("created_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.accountId, table.period, table.contentAddress] })],
);

/** Account templates: one row per template of an account; `latest_version` is locked and bumped by an update. */
export const accountTemplates = pgTable(
  "account_templates",
  {
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    id: text("id").notNull(),
    latestVersion: integer("latest_version").notNull(),
    createdAt: ms("created_at").notNull(),
    updatedAt: ms("updated_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.accountId, table.id] })],
);

/** The versions kept of each template (the newest 100); deleting the template deletes them. */
export const accountTemplateVersions = pgTable(
  "account_template_versions",
  {
    accountId: text("account_id").notNull(),
    templateId: text("template_id").notNull(),
    version: integer("version").notNull(),
    definition: text("definition").notNull(),
    digest: text("digest").notNull(),
    createdAt: ms("created_at").notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.accountId, table.templateId, table.version] }),
    foreignKey({ columns: [table.accountId, table.templateId], foreignColumns: [accountTemplates.accountId, accountTemplates.id] }).onDelete("cascade"),
  ],
);

const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({ dataType: () => "bytea" });

/** Account fonts (as SQLite's `account_fonts`): the uploaded file with what was read from it. */
export const accountFonts = pgTable(
  "account_fonts",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    family: text("family").notNull(),
    familyKey: text("family_key").notNull(),
    weight: integer("weight").notNull(),
    style: text("style").notNull(),
    format: text("format").notNull(),
    bytes: integer("bytes").notNull(),
    glyphs: integer("glyphs").notNull(),
    variable: boolean("variable").notNull(),
    digest: text("digest").notNull(),
    data: bytea("data").notNull(),
    createdAt: ms("created_at").notNull(),
  },
  (table) => [
    uniqueIndex("account_fonts_face").on(table.accountId, table.familyKey, table.weight, table.style),
    index("account_fonts_digest").on(table.digest),
  ],
);

/** Batches: see the SQLite schema (src/store/sqlite/schema/batches.ts). */
export const batches = pgTable(
  "batches",
  {
    id: text("id").primaryKey(),
    seq: seq(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    signingKeyId: text("signing_key_id").notNull(),
    requestId: text("request_id").notNull(),
    period: text("period").notNull(),
    status: text("status").notNull(),
    total: integer("total").notNull(),
    done: integer("done").notNull().default(0),
    failed: integer("failed").notNull().default(0),
    createdAt: ms("created_at").notNull(),
    finishedAt: ms("finished_at"),
  },
  (table) => [index("batches_account_idx").on(table.accountId, table.createdAt)],
);

export const batchItems = pgTable(
  "batch_items",
  {
    batchId: text("batch_id")
      .notNull()
      .references(() => batches.id, { onDelete: "cascade" }),
    idx: integer("idx").notNull(),
    seq: seq(),
    status: text("status").notNull(),
    body: text("body").notNull(),
    url: text("url"),
    error: text("error"),
    attempts: integer("attempts").notNull().default(0),
    claimedUntil: ms("claimed_until"),
    /** The instance holding the lease (its liveness key): a dead instance's claims are released at once. */
    claimedBy: integer("claimed_by"),
  },
  (table) => [primaryKey({ columns: [table.batchId, table.idx] }), index("batch_items_status_idx").on(table.status, table.seq)],
);
