/**
 * Chooses the store from the configuration: `OG_DATABASE_URL` (postgres://…) selects
 * PostgreSQL, otherwise the embedded SQLite file at `OG_DB_PATH`. The PostgreSQL module is
 * imported only when asked for, so the embedded default loads no PostgreSQL driver.
 */
import type { Config } from "../config.ts";
import type { Store } from "./types.ts";

export interface StoreOptions {
  /**
   * How long one call may keep retrying a database locked by another connection before it
   * gives up with StoreUnavailableError (ms; default 3000). The event loop is never blocked for
   * this long: the waits between attempts are asynchronous.
   */
  lockWaitMs?: number;
  /**
   * SQLite: where this connection counts its commits for the server's background checkpoint
   * thread (`CommitSignal.create()`, store/sqlite/checkpointer.ts); it then leaves checkpoints
   * to that thread. PostgreSQL ignores it.
   */
  commits?: SharedArrayBuffer;
}

export async function createStore(config: Pick<Config, "dbPath" | "databaseUrl">, options: StoreOptions = {}): Promise<Store> {
  if (config.databaseUrl) {
    const { openPostgresStore } = await import("./postgres/index.ts");
    return openPostgresStore(config.databaseUrl, options);
  }
  const { openSqliteStore } = await import("./sqlite/index.ts");
  return openSqliteStore(config.dbPath, options);
}
