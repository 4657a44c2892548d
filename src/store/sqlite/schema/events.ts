import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { accounts } from "./accounts.ts";

/**
 * The outbox: every event is written in the same transaction as the change that causes it
 * (the usage increment, the month rollover), so a committed change always has its event.
 * Delivery jobs fan out from here.
 */
export const events = sqliteTable(
  "events",
  {
    /** `evt_` + random id; the same on every delivery attempt of this event. */
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    /** image.generated | usage.warning | usage.limit_reached | usage.reset */
    type: text("type").notNull(),
    /** JSON of the envelope's `data` object. */
    data: text("data").notNull(),
    /** Clock time of the change, used as the envelope's `timestamp`. */
    createdAt: integer("created_at").notNull(),
  },
  (table) => [index("events_account_idx").on(table.accountId, table.createdAt)],
);
