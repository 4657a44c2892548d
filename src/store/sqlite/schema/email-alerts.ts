import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { EmailAlertKind, EmailAlertState } from "../../types.ts";
import { accounts } from "./accounts.ts";

/**
 * The email log: one row per alert an account was sent (or should have been). The sending itself
 * is an `email` job in the shared job table; this row is what operators see (`accounts show`)
 * and outlives the job, which is pruned a week after it finishes.
 */
export const emailAlerts = sqliteTable(
  "email_alerts",
  {
    /** `eml_` + random id. */
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    kind: text("kind").$type<EmailAlertKind>().notNull(),
    /** The account's email address when the alert was raised. */
    recipient: text("recipient").notNull(),
    subject: text("subject").notNull(),
    /** The numbers the message shows, as JSON (used, quota, plan, reset date; or the webhook's URL and reason). */
    facts: text("facts", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    state: text("state").$type<EmailAlertState>().notNull().default("pending"),
    /** Sending attempts so far. */
    attempts: integer("attempts").notNull().default(0),
    /** The SMTP error of the last failed attempt, or why it was not sent. */
    lastError: text("last_error"),
    /** When the next attempt is due (clock time); null unless retrying. */
    nextAttemptAt: integer("next_attempt_at"),
    /**
     * Guards "once per account per month" for usage alerts (`<account>:<YYYY-MM>:<kind>`); the
     * thresholds are already evaluated once per month, this makes a duplicate alert impossible.
     * Null for alerts that may repeat (a webhook disabled again).
     */
    dedupeKey: text("dedupe_key"),
    /** The `job_…` that sends it (the job row itself may be pruned later). */
    jobId: text("job_id"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    sentAt: integer("sent_at"),
  },
  (table) => [index("email_alerts_account_idx").on(table.accountId, table.createdAt), uniqueIndex("email_alerts_dedupe_idx").on(table.dedupeKey)],
);
