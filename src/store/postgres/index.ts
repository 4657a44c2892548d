/**
 * Placeholder for the PostgreSQL store (`OG_DATABASE_URL`). The real implementation replaces
 * this file; until then selecting PostgreSQL stops start-up with a clear message.
 */
import type { StoreOptions } from "../index.ts";
import type { Store } from "../types.ts";

export async function openPostgresStore(_url: string, _options: StoreOptions = {}): Promise<Store> {
  throw new Error("OG_DATABASE_URL is set, but this build has no PostgreSQL store");
}
