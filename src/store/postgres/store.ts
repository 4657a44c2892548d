/**
 * The PostgreSQL store, put together: the connections and their plumbing (./connection.ts)
 * shared by one adapter per aggregate, side by side with SQLite's (accounts.ts, usage.ts,
 * jobs.ts, webhooks.ts, signing-keys.ts, sessions.ts, email-alerts.ts, templates.ts), and the
 * transaction handle (./tx.ts) the core's routines run on through `transact`. Every method is one
 * transaction (or one statement); nothing is cached: keys, subscriptions and webhooks are read on
 * every request, so several instances on one database stay exact (each adapter says how).
 */
import { composeStore } from "../compose.ts";
import type { StoreTx } from "../ports/tx.ts";
import { runAwaiting, type TxRoutine } from "../tx-steps.ts";
import type { Store, TransactOptions } from "../types.ts";
import { PostgresBatches } from "./batches.ts";
import { PostgresAccounts } from "./accounts.ts";
import { PostgresConnection, type Sql, type Tx } from "./connection.ts";
import { PostgresEmailAlerts } from "./email-alerts.ts";
import { PostgresJobs } from "./jobs.ts";
import { PostgresSessions } from "./sessions.ts";
import { PostgresSigningKeys } from "./signing-keys.ts";
import { PostgresFontStore } from "./fonts.ts";
import { PostgresTemplateStore } from "./templates.ts";
import { PostgresTx } from "./tx.ts";
import { PostgresUsage } from "./usage.ts";
import { PostgresWebhooks } from "./webhooks.ts";

/** The PostgreSQL store with what the cluster clock, tests and benchmarks look into. */
export type PostgresStore = Store & {
  readonly kind: "postgres";
  readonly connection: PostgresConnection;
  readonly sql: Sql;
  /** Transactions run again after PostgreSQL aborted them for a deadlock or a serialization conflict. */
  readonly conflictRetries: number;
};

/** `liveness`: a one-connection client that holds this instance's liveness lock. */
export function postgresStore(sql: Sql, liveness: Sql): PostgresStore {
  const c = new PostgresConnection(sql, liveness);
  const base = {
    kind: "postgres" as const,
    connection: c,
    sql,
    get conflictRetries() {
      return c.conflictRetries;
    },
    templates: new PostgresTemplateStore(c),
    fonts: new PostgresFontStore(c),
    transact<T>(routine: (tx: StoreTx) => TxRoutine<T>, options?: TransactOptions): Promise<T> {
      // A new handle and a new run of the routine for each try: a transaction PostgreSQL aborted
      // for a deadlock is run again, whole (./connection.ts).
      const body = (sql: Tx) => runAwaiting(routine(new PostgresTx(c, sql)));
      return options?.pipelined ? c.writePipelined(body) : c.write(body);
    },
    async probe(): Promise<void> {
      await c.run(async (sql) => {
        await Promise.race([
          sql`insert into store_probe (id, at) values (1, ${Date.now()}) on conflict (id) do update set at = excluded.at`,
          new Promise((_, reject) => setTimeout(() => reject(Object.assign(new Error("probe timed out after 2 s"), { code: "CONNECT_TIMEOUT" })), 2000)),
        ]);
      });
    },
    close: () => c.close(),
  };
  return composeStore(
    base,
    new PostgresAccounts(c),
    new PostgresUsage(c),
    new PostgresBatches(c),
    new PostgresJobs(c),
    new PostgresWebhooks(c),
    new PostgresSigningKeys(c),
    new PostgresEmailAlerts(c),
    new PostgresSessions(c),
  );
}
