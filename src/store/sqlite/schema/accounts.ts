import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const accounts = sqliteTable("accounts", {
  /** `acc_` + random id. */
  id: text("id").primaryKey(),
  email: text("email").notNull(),
  /** One of the plan ids in src/accounts/plans.ts. */
  plan: text("plan").notNull(),
  /** Subscription state: active | canceled | past_due. */
  status: text("status").notNull().default("active"),
  /** Monthly quota for the `custom` plan; null means "the plan's quota". */
  customQuota: integer("custom_quota"),
  /** Requests per second for the `custom` plan; null means "the plan's rate". */
  customRequestsPerSecond: integer("custom_requests_per_second"),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

export const apiKeys = sqliteTable(
  "api_keys",
  {
    /** `key_` + random id; safe to log. */
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    /** Lowercase hex SHA-256 of the full key. The key itself is never stored. */
    keyHash: text("key_hash").notNull().unique(),
    /** `og_` plus the first 4 characters: enough to tell keys apart in logs, useless to an attacker. */
    keyPrefix: text("key_prefix").notNull(),
    createdAt: integer("created_at").notNull(),
    /** Set when the key was replaced; a revoked key answers INVALID_API_KEY at once. */
    revokedAt: integer("revoked_at"),
  },
  (table) => [index("api_keys_account_idx").on(table.accountId)],
);
