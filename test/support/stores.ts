/**
 * A fresh store for unit tests, of the kind OG_TEST_STORE names (default SQLite in memory;
 * `postgres`: a fresh database from test/support/postgres.ts), so tests written against the
 * Store interface run against either implementation.
 */
import type { Store } from "../../src/store/types.ts";
import { createStore } from "../../src/store/index.ts";
import { TEST_STORE } from "./harness.ts";

// Imported by a computed path: the module exists only where PostgreSQL support is built.
const POSTGRES_SUPPORT = "./postgres.ts";

export async function openTestStore(options: { lockWaitMs?: number } = {}): Promise<Store> {
  if (TEST_STORE === "postgres") {
    const { testDatabaseUrl } = (await import(POSTGRES_SUPPORT)) as { testDatabaseUrl(): Promise<string> };
    return createStore({ dbPath: ":memory:", databaseUrl: await testDatabaseUrl() }, options);
  }
  return createStore({ dbPath: ":memory:", databaseUrl: undefined }, options);
}
