/**
 * The PostgreSQL store (`OG_DATABASE_URL`): several ogsmith instances on one database.
 *
 * Driver: `postgres` (porsager) 3.4.9, with drizzle's migrator on top (drizzle-orm/postgres-js).
 * Chosen over Bun's built-in SQL for its record under failure: Bun's SQL pool has open stall
 * bugs (oven-sh/bun#32004, #30947) and drizzle's bun-sql adapter mis-maps timestamps and jsonb
 * (drizzle-orm#5062, #6132). Measured here with the server stopped, crashed and restarted:
 * porsager recovers on the next query, but its default reconnect backoff grows to ~20 s, so
 * queries issued just after an outage waited up to 19 s; a fixed 100 ms backoff (connection.ts)
 * makes them fail fast while the server is down (→ 503) and succeed as soon as it is back.
 */
import type postgres from "postgres";
import { drizzle } from "drizzle-orm/postgres-js";

import type { StoreOptions } from "../options.ts";
import { StoreUnavailableError } from "../errors.ts";
import type { Store } from "../types.ts";
import { runDrizzleMigrations } from "../embedded-migrations.ts";
import { embeddedMigrations } from "./migrations.ts";
import { postgresStore } from "./store.ts";
import { classifyPostgresError, connect } from "./connection.ts";

export { connect, type Sql } from "./connection.ts";

/** Key of the advisory lock held while migrating (any constant; "ogsmith" in ASCII). */
const MIGRATION_LOCK = 0x6f67736d697468;

/**
 * Applies the embedded migrations under an advisory lock; safe when several instances start at
 * once (the first migrates, the others wait for the lock and then find nothing to do). A
 * dedicated one-connection client: the session-level lock and drizzle's migrator (which opens
 * its own transaction) share that one connection, and the lock goes with it if we die mid-way.
 */
export async function migratePostgres(url: string): Promise<void> {
  const sql = connect(url, { max: 1 });
  try {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK})`;
    const db = drizzle(sql as unknown as postgres.Sql);
    await runDrizzleMigrations(db, embeddedMigrations(), { migrationsSchema: "drizzle", migrationsTable: "__drizzle_migrations" });
    await sql`select pg_advisory_unlock(${MIGRATION_LOCK})`;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

export async function openPostgresStore(url: string, _options: StoreOptions = {}): Promise<Store> {
  try {
    await migratePostgres(url);
  } catch (error) {
    const fault = openFault(error);
    if (fault) throw new StoreUnavailableError(`cannot migrate the PostgreSQL database: ${(error as Error).message}`, fault, 1, { cause: error });
    throw error;
  }
  const sql = connect(url);
  const store = postgresStore(sql, connect(url, { max: 1, idleTimeout: 0 }));
  try {
    await store.connection.holdLiveness();
    await store.connection.startListening();
  } catch (error) {
    await store.close().catch(() => {});
    const fault = openFault(error);
    if (fault) throw new StoreUnavailableError(`cannot reach PostgreSQL: ${(error as Error).message}`, fault, 1, { cause: error });
    throw error;
  }
  return store;
}

/** At startup a timeout is not told apart: a store that cannot be opened in time is unreachable. */
function openFault(error: unknown) {
  const fault = classifyPostgresError(error);
  return fault === "timeout" ? "unreachable" : fault;
}
