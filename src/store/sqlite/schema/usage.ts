import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { accounts } from "./accounts.ts";

/**
 * Usage per account per calendar month (UTC). Keying by period means the reset at 00:00 UTC on
 * the 1st needs no job: a new month simply has no row yet.
 */
export const usagePeriods = sqliteTable(
  "usage_periods",
  {
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    /** `YYYY-MM` in UTC. */
    period: text("period").notNull(),
    /** Successful generations answered this month. */
    used: integer("used").notNull().default(0),
    /**
     * Units reserved by renders in flight. A generation reserves before rendering (so concurrent
     * requests never exceed the quota) and either confirms (reserved→used) or releases.
     * Reset to 0 at start-up: no render survives a restart.
     */
    reserved: integer("reserved").notNull().default(0),
    /**
     * Units held by batches for their items not yet drawn (reserved at once when a batch is
     * created, settled per item). Kept apart from `reserved`: they outlive a restart.
     */
    batchReserved: integer("batch_reserved").notNull().default(0),
    /** When the 80/90/95 % warnings and the limit event were emitted this month (null = not yet). */
    warned80At: integer("warned_80_at"),
    warned90At: integer("warned_90_at"),
    warned95At: integer("warned_95_at"),
    limitReachedAt: integer("limit_reached_at"),
    /** When `usage.reset` was emitted for the start of this period (null = not yet). */
    resetEmittedAt: integer("reset_emitted_at"),
  },
  (table) => [primaryKey({ columns: [table.accountId, table.period] })],
);

/** Successful generations per UTC day, for the dashboard's daily chart. */
export const usageDays = sqliteTable(
  "usage_days",
  {
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    /** `YYYY-MM-DD` in UTC. */
    day: text("day").notNull(),
    count: integer("count").notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.accountId, table.day] })],
);
