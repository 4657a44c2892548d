import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { accounts } from "./accounts.ts";

/**
 * Batches (POST /api/batches): many images in one call, drawn in the background. The batch's
 * units are reserved when it is created (`usage_periods.batch_reserved`) and each settles with
 * its item: counted when drawn, given back when it fails or the batch is canceled.
 */
export const batches = sqliteTable(
  "batches",
  {
    /** `bat_` + random id. */
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    /** The signing key the items' URLs are signed with. */
    signingKeyId: text("signing_key_id").notNull(),
    /** The request that created it (`request_id` of each item's `image.generated`). */
    requestId: text("request_id").notNull(),
    /** The month (`YYYY-MM`) whose quota holds the batch's units. */
    period: text("period").notNull(),
    /** queued → running → done, or canceled. */
    status: text("status").notNull(),
    total: integer("total").notNull(),
    done: integer("done").notNull().default(0),
    failed: integer("failed").notNull().default(0),
    createdAt: integer("created_at").notNull(),
    finishedAt: integer("finished_at"),
  },
  (table) => [index("batches_account_idx").on(table.accountId, table.createdAt)],
);

/** One image of a batch; claimed with a lease (real time) like a job, settled once. */
export const batchItems = sqliteTable(
  "batch_items",
  {
    batchId: text("batch_id")
      .notNull()
      .references(() => batches.id, { onDelete: "cascade" }),
    idx: integer("idx").notNull(),
    /** queued → done | failed. */
    status: text("status").notNull(),
    /** The generate body, validated at creation (an account template's version pinned), as JSON. */
    body: text("body").notNull(),
    /** The signed URL (with `v` for an account template), once drawn. */
    url: text("url"),
    error: text("error"),
    /** Claims so far: an item whose drawing kills its process again and again is given up. */
    attempts: integer("attempts").notNull().default(0),
    claimedUntil: integer("claimed_until"),
  },
  (table) => [primaryKey({ columns: [table.batchId, table.idx] }), index("batch_items_status_idx").on(table.status)],
);
