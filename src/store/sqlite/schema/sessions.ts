import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { accounts, apiKeys } from "./accounts.ts";

/**
 * Dashboard sessions: the API key typed into the sign-in form is exchanged for one
 * of these, and the browser keeps only the random session token in an HttpOnly cookie.
 */
export const dashboardSessions = sqliteTable(
  "dashboard_sessions",
  {
    /**
     * Lowercase hex SHA-256 of the token in the cookie. The token itself is never stored, so a
     * copy of the database cannot be replayed as a cookie.
     */
    tokenHash: text("token_hash").primaryKey(),
    /** `ses_` + random id: safe to log, names the session without revealing the token. */
    id: text("id").notNull().unique(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    /**
     * The key the session was opened with. Replacing the key ends its sessions (the lookup
     * requires the key to be unrevoked), and previews share that key's rate-limit window.
     */
    keyId: text("key_id")
      .notNull()
      .references(() => apiKeys.id, { onDelete: "cascade" }),
    createdAt: integer("created_at").notNull(),
    /** Service-clock ms after which the session is refused (and may be swept). */
    expiresAt: integer("expires_at").notNull(),
  },
  (table) => [index("dashboard_sessions_account_idx").on(table.accountId), index("dashboard_sessions_expires_idx").on(table.expiresAt)],
);
