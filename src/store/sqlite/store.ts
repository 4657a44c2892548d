/**
 * The SQLite store, put together: one connection (./connection.ts) shared by one adapter per
 * aggregate, side by side with PostgreSQL's (accounts.ts, usage.ts, jobs.ts, webhooks.ts,
 * signing-keys.ts, sessions.ts, email-alerts.ts, templates.ts), and the transaction handle
 * (./tx.ts) the core's routines run on through `transact`. See ./index.ts for the locking rules.
 */
import { composeStore } from "../compose.ts";
import type { StoreTx } from "../ports/tx.ts";
import { runNow, type TxRoutine } from "../tx-steps.ts";
import type { Store } from "../types.ts";
import { SqliteBatches } from "./batches.ts";
import { SqliteAccounts } from "./accounts.ts";
import type { CommitSignal } from "./checkpointer.ts";
import { LEAVES_KEYS, SqliteConnection } from "./connection.ts";
import type { Db } from "./database.ts";
import { SqliteEmailAlerts } from "./email-alerts.ts";
import { SqliteJobs } from "./jobs.ts";
import { SqliteSessions } from "./sessions.ts";
import { SqliteSigningKeys } from "./signing-keys.ts";
import { SqliteFontStore } from "./fonts.ts";
import { SqliteTemplateStore } from "./templates.ts";
import { SqliteTx } from "./tx.ts";
import { SqliteUsage } from "./usage.ts";
import { SqliteWebhooks } from "./webhooks.ts";

/** The SQLite store with what tests and benchmarks look into. */
export type SqliteStore = Store & {
  readonly kind: "sqlite";
  readonly db: Db;
  /** Times a call found the database locked by another connection and waited to try again. */
  readonly lockRetries: number;
};

export function sqliteStore(db: Db, options: { lockWaitMs: number; path?: string; commits?: CommitSignal }): SqliteStore {
  const c = new SqliteConnection(db, options);
  const tx = new SqliteTx(c);
  const base = {
    kind: "sqlite" as const,
    db,
    get lockRetries() {
      return c.lockRetries;
    },
    templates: new SqliteTemplateStore(c),
    fonts: new SqliteFontStore(c),
    transact<T>(routine: (tx: StoreTx) => TxRoutine<T>): Promise<T> {
      // Synchronous to the end: bun:sqlite commits when the body returns. No routine writes
      // accounts or keys, so their remembered owners stay.
      return c.write(() => runNow(routine(tx)), LEAVES_KEYS);
    },
    async probe(): Promise<void> {
      // A real write that reaches the WAL: a read alone succeeds on a full disk.
      await c.write(() => {
        c.sql("INSERT INTO store_probe (id, at) VALUES (1, ?1) ON CONFLICT (id) DO UPDATE SET at = ?1").run(Date.now());
      }, LEAVES_KEYS);
    },
    async close(): Promise<void> {
      c.close();
    },
  };
  return composeStore(
    base,
    new SqliteAccounts(c),
    new SqliteUsage(c),
    new SqliteBatches(c),
    new SqliteJobs(c, tx),
    new SqliteWebhooks(c),
    new SqliteSigningKeys(c),
    new SqliteEmailAlerts(c),
    new SqliteSessions(c),
  );
}
