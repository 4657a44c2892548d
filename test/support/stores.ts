/**
 * The stores a contract test runs against. `describeEachStore` runs a file's tests once on
 * SQLite (in memory) and once on PostgreSQL (a fresh database per `openTestStore()` on the one
 * throwaway server test/support/postgres.ts starts on first use), in the same `bun test` run.
 * Without PostgreSQL installed its half is skipped with a note, and fails under CI=true, as the
 * cluster tests do.
 */
import { beforeAll, describe, test } from "bun:test";
import { createStore } from "../../src/store/index.ts";
import type { Store } from "../../src/store/types.ts";
import { TEST_STORE, type TestStoreKind } from "./harness.ts";
import { postgresAvailable, testDatabaseUrl } from "./postgres.ts";

export const STORE_KINDS: readonly TestStoreKind[] = ["sqlite", "postgres"];

const mustRun = process.env.CI === "true";

// The store of the `describeEachStore` block whose tests run now (bun runs blocks one after
// another); outside one, the store OG_TEST_STORE names.
let running: TestStoreKind = TEST_STORE;

/**
 * `describe.each` over both stores: `body` registers the tests (and their hooks) once per store,
 * and `openTestStore()` in them opens that store.
 */
export function describeEachStore(body: (kind: TestStoreKind) => void): void {
  describe.each(STORE_KINDS as TestStoreKind[])("on %s", (kind) => {
    if (kind === "postgres" && !postgresAvailable() && !mustRun) {
      test.skip("skipped: PostgreSQL is not installed (apt-get install postgresql)", () => {});
      return;
    }
    beforeAll(() => {
      running = kind;
    });
    body(kind);
  });
}

/** A fresh, empty store: of the running `describeEachStore` block, or of the kind asked for. */
export async function openTestStore(options: { kind?: TestStoreKind; lockWaitMs?: number } = {}): Promise<Store> {
  const { kind = running, ...storeOptions } = options;
  if (kind === "postgres") return createStore({ dbPath: ":memory:", databaseUrl: await testDatabaseUrl() }, storeOptions);
  return createStore({ dbPath: ":memory:", databaseUrl: undefined }, storeOptions);
}
