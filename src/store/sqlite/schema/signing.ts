import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { accounts } from "./accounts.ts";

/**
 * Signing keys for public image URLs. At most 5 per account. HMAC verification needs the secret
 * itself, so it is stored as issued; it is never returned after creation and never logged.
 */
export const signingKeys = sqliteTable(
  "signing_keys",
  {
    /** `sk_` + 20 alphanumerics; public, part of every URL. */
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    secret: text("secret").notNull(),
    createdAt: integer("created_at").notNull(),
    /** Clock time of the last accepted URL (written at most once a minute per key). */
    lastUsedAt: integer("last_used_at"),
  },
  (table) => [index("signing_keys_account_idx").on(table.accountId)],
);

/**
 * Images counted through public URLs: one row per account, month and content address. Inserted
 * in the transaction that confirms the unit, so a distinct image counts once a month however
 * many requests (or instances) race for it.
 */
export const countedImages = sqliteTable(
  "counted_images",
  {
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    /** `YYYY-MM` (UTC). */
    period: text("period").notNull(),
    /** The render cache key (SHA-256 hex). */
    contentAddress: text("content_address").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.accountId, table.period, table.contentAddress] })],
);
