import { integer, sqliteTable } from "drizzle-orm/sqlite-core";

/**
 * One row that the readiness probe rewrites: a real write, so a full disk or a write lock
 * held elsewhere shows as "not ready" rather than only an unreachable file.
 */
export const storeProbe = sqliteTable("store_probe", {
  id: integer("id").primaryKey(),
  at: integer("at").notNull(),
});
