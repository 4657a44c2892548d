import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { accounts } from "./accounts.ts";
import { events } from "./events.ts";
import { webhooks } from "./webhooks.ts";
import type { JobStatus } from "../../types.ts";

/**
 * The one job table behind every background side effect (webhook deliveries, emails, …).
 * A job is inserted in the same transaction as the change that causes it, so it exists if and
 * only if the change committed. The worker claims due jobs with a lease; a process that dies
 * mid-job leaves the lease behind and the job runs again (at least once, never lost).
 */
export const jobs = sqliteTable(
  "jobs",
  {
    /** `job_` + random id. */
    id: text("id").primaryKey(),
    /** Which handler runs it: `webhook_delivery`, `email`, … (see src/events/jobs.ts). */
    kind: text("kind").notNull(),
    /**
     * Fairness key: jobs with the same lane share a concurrency cap, so one slow endpoint
     * cannot take every worker slot (a webhook id, or e.g. `smtp`).
     */
    lane: text("lane").notNull(),
    accountId: text("account_id").references(() => accounts.id, { onDelete: "cascade" }),
    /** Set for webhook deliveries; deleting the webhook deletes its jobs. */
    webhookId: text("webhook_id").references(() => webhooks.id, { onDelete: "cascade" }),
    /** The outbox event the job reports, when there is one. */
    eventId: text("event_id").references(() => events.id, { onDelete: "cascade" }),
    /** Kind-specific input as JSON (null when the columns above say everything). */
    payload: text("payload", { mode: "json" }).$type<unknown>(),
    /** pending → succeeded | failed (retries exhausted or not retryable) | canceled (dropped). */
    status: text("status").$type<JobStatus>().notNull().default("pending"),
    /** When the job is due next (clock time, ms). */
    runAt: integer("run_at").notNull(),
    /** Attempts started so far; incremented when a worker claims the job. */
    attempts: integer("attempts").notNull().default(0),
    /**
     * Lease: a worker that claimed the job owns it until then (real time, ms — a lease protects
     * the process, so it does not follow the test clock). Null when nobody holds it.
     */
    claimedUntil: integer("claimed_until"),
    lastError: text("last_error"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    /** When the job left `pending` (clock time); finished jobs are pruned after a while. */
    finishedAt: integer("finished_at"),
  },
  (table) => [
    index("jobs_due_idx").on(table.status, table.runAt),
    index("jobs_webhook_idx").on(table.webhookId, table.status),
    index("jobs_account_kind_idx").on(table.accountId, table.kind),
  ],
);
