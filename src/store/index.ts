/**
 * Chooses the store from the configuration: `OG_DATABASE_URL` (postgres://…) selects
 * PostgreSQL, otherwise the embedded SQLite file at `OG_DB_PATH`. The PostgreSQL module is
 * imported only when asked for, so the embedded default loads no PostgreSQL driver.
 */
import type { Config } from "../config.ts";
import type { StoreOptions } from "./options.ts";
import type { Store } from "./types.ts";

export type { StoreOptions };

export async function createStore(config: Pick<Config, "dbPath" | "databaseUrl">, options: StoreOptions = {}): Promise<Store> {
  if (config.databaseUrl) {
    const { openPostgresStore } = await import("./postgres/index.ts");
    return openPostgresStore(config.databaseUrl, options);
  }
  const { openSqliteStore } = await import("./sqlite/index.ts");
  return openSqliteStore(config.dbPath, options);
}
