/**
 * Whether instances on this database keep API keys and signing keys in memory (they do with
 * Redis: src/accounts/versions.ts). Such a cache sees a change of an account only when the
 * change is announced in Redis, so a process on the same database without Redis (the CLI run
 * from a shell without OG_REDIS_URL, say) must not change keys or limits behind its back: it
 * reads this mark first and refuses. The mark stays once set (`cluster_state.account_caches`);
 * a cluster that drops Redis for good removes the row by hand.
 */
import type { PostgresStore } from "./store.ts";

/** Records that an instance with caches runs on this database (idempotent). */
export async function markAccountCaches(store: PostgresStore): Promise<void> {
  await store.connection.run((sql) => sql`insert into cluster_state (key, value) values ('account_caches', ${Date.now()}) on conflict do nothing`);
}

/** Whether any instance with caches has run on this database. */
export async function accountCachesMarked(store: PostgresStore): Promise<boolean> {
  return store.connection.run(async (sql) => (await sql`select 1 from cluster_state where key = 'account_caches'`).length > 0);
}
