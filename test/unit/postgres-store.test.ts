/**
 * PostgreSQL-only behaviour of the store, against a throwaway server (test/support/postgres.ts):
 * embedded migrations, concurrent migration under the advisory lock, the schema kept in step
 * with SQLite's, exact reservations and SKIP LOCKED claims from several connections (as several
 * instances would be), and leases of a dead instance released while live ones are left alone.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import postgres from "postgres";

import { loadConfig } from "../../src/config.ts";
import { migratePostgres, openPostgresStore } from "../../src/store/postgres/index.ts";
import { migrationJournal, migrationSql } from "../../src/store/postgres/migrations.ts";
import type { PostgresStore } from "../../src/store/postgres/store.ts";
import type { Store } from "../../src/store/types.ts";
import { postgresAvailable, testDatabaseUrl } from "../support/postgres.ts";
import { REPO_ROOT } from "../support/process.ts";
import { waitFor } from "../support/wait.ts";

const maybe = postgresAvailable() || process.env.CI === "true" ? describe : describe.skip;

test("every migration file under migrations/postgres/ is in the journal and embedded", () => {
  const files = readdirSync(`${REPO_ROOT}/migrations/postgres`).filter((f) => f.endsWith(".sql")).map((f) => f.replace(/\.sql$/, "")).sort();
  expect(migrationJournal.entries.map((e) => e.tag).sort()).toEqual(files);
  expect(Object.keys(migrationSql).sort()).toEqual(files);
});

test("config: OG_REDIS_URL must be redis(s)://, OG_ROLE one of all|api|worker", () => {
  expect(loadConfig({}).redisUrl).toBeUndefined();
  expect(loadConfig({}).role).toBe("all");
  expect(loadConfig({ OG_REDIS_URL: "redis://127.0.0.1:6379", OG_ROLE: "worker" })).toMatchObject({ redisUrl: "redis://127.0.0.1:6379", role: "worker" });
  expect(() => loadConfig({ OG_REDIS_URL: "http://x" })).toThrow(/OG_REDIS_URL/);
  expect(() => loadConfig({ OG_ROLE: "both" })).toThrow(/OG_ROLE/);
});

maybe("PostgreSQL store", () => {
  let url: string;
  const stores: Store[] = [];
  const open = async () => {
    const store = await openPostgresStore(url);
    stores.push(store);
    return store as PostgresStore;
  };

  beforeAll(async () => {
    url = await testDatabaseUrl();
  });
  afterAll(async () => {
    for (const store of stores) await store.close();
  });

  test("three migrations at once on a fresh database: applied once, every table there", async () => {
    await Promise.all([migratePostgres(url), migratePostgres(url), migratePostgres(url)]);
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    try {
      expect((await sql`select count(*)::int as n from drizzle.__drizzle_migrations`)[0]!.n).toBe(migrationJournal.entries.length);
      const tables = (await sql`select table_name from information_schema.tables where table_schema = 'public'`).map((r) => r.table_name);
      expect(tables).toEqual(
        expect.arrayContaining(["accounts", "api_keys", "usage_periods", "usage_days", "events", "webhooks", "delivery_attempts", "jobs", "email_alerts", "dashboard_sessions", "store_probe", "cluster_state"]),
      );
    } finally {
      await sql.end();
    }
  });

  test("reservations from three connections against 10 units: exactly 10", async () => {
    const [a, b, c] = [await open(), await open(), await open()];
    const now = Date.now();
    await a.createAccount(
      { id: "acc_res", email: "r@example.com", plan: "custom", status: "active", customQuota: 10, customRequestsPerSecond: 100, createdAt: now, updatedAt: now },
      { id: "key_res", accountId: "acc_res", keyHash: "h_res", keyPrefix: "og_abcd", createdAt: now, revokedAt: null },
    );
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => [a, b, c][i % 3]!.reserveUnit({ accountId: "acc_res", period: "2026-11", quota: 10 })));
    expect(results.filter(Boolean).length).toBe(10);
    expect((await a.usage("acc_res", "2026-11"))!.reserved).toBe(10);
  });

  test("claims from two instances never share a job; a dead instance's leases are released, a live one's kept", async () => {
    const [a, b] = [await open(), await open()];
    const now = Date.now();
    for (let i = 0; i < 20; i++) await a.enqueueJob({ kind: "bench_kind", lane: `lane${i}`, runAt: now, now });
    const claim = (s: PostgresStore) => s.claimJobs({ kinds: ["bench_kind"], limit: 20, laneRoom: () => 8, now, realNow: Date.now(), leaseMs: 60_000 });
    const [fromA, fromB] = await Promise.all([claim(a), claim(b)]);
    const ids = [...fromA.jobs, ...fromB.jobs].map((j) => j.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBe(20);
    // `a` dies (its connections close): its leases go, `b`'s stay.
    const c = await open();
    await a.close();
    expect(await c.releaseLeases()).toBe(fromA.jobs.length);
    const again = await claim(c);
    expect(again.jobs.map((j) => j.id).sort()).toEqual(fromA.jobs.map((j) => j.id).sort());
  });

  test("deleting a webhook while a delivery of it is being settled: both finish, no deadlock to break", async () => {
    const store = await open();
    const now = Date.now();
    await store.createAccount(
      { id: "acc_del", email: "d@example.com", plan: "starter", status: "active", customQuota: null, customRequestsPerSecond: null, createdAt: now, updatedAt: now },
      { id: "key_del", accountId: "acc_del", keyHash: "h_del", keyPrefix: "og_dele", createdAt: now, revokedAt: null },
    );
    const hook = { id: "wh_del", accountId: "acc_del", url: "https://example.com/h", events: ["image.generated"], secret: "s", status: "enabled" as const, disabledReason: null, createdAt: now, updatedAt: now };
    expect(await store.createWebhook(hook, 20)).toMatchObject({ id: "wh_del" });
    const jobId = await store.enqueueJob({ kind: "webhook_delivery", lane: "wh_del", accountId: "acc_del", webhookId: "wh_del", runAt: now, now });

    // Another instance settling that delivery: it holds the job, then logs the attempt (whose
    // foreign key needs the webhook row).
    const settler = postgres(url, { max: 1, onnotice: () => {} });
    const watcher = postgres(url, { max: 1, onnotice: () => {} });
    try {
      let deleting: Promise<boolean> | undefined;
      await settler.begin(async (tx) => {
        await tx`select id from jobs where id = ${jobId} for update`;
        deleting = store.deleteWebhook("acc_del", "wh_del");
        await waitFor(async () => (await watcher`select count(*)::int as n from pg_locks where not granted`)[0]!.n > 0, "the delete to wait for the job");
        await tx`insert into delivery_attempts (id, webhook_id, account_id, job_id, event_id, event_type, attempt, status_code, error, delivered, duration_ms, next_attempt_at, created_at)
          values ('dlv_del', 'wh_del', 'acc_del', ${jobId}, 'evt_del', 'image.generated', 1, 500, null, false, 3, null, ${now})`;
      });
      expect(await deleting!).toBe(true);
      // The lock order, not a retry, let both through.
      expect(store.conflictRetries).toBe(0);
      expect(await store.getWebhookById("wh_del")).toBeUndefined();
    } finally {
      await settler.end();
      await watcher.end();
    }
  });

  test("a transaction PostgreSQL aborts to break a deadlock is run again: disabling a webhook while its delivery settles", async () => {
    const store = await open();
    const now = Date.now();
    await store.createAccount(
      { id: "acc_dl", email: "l@example.com", plan: "starter", status: "active", customQuota: null, customRequestsPerSecond: null, createdAt: now, updatedAt: now },
      { id: "key_dl", accountId: "acc_dl", keyHash: "h_dl", keyPrefix: "og_dlxx", createdAt: now, revokedAt: null },
    );
    const hook = { id: "wh_dl", accountId: "acc_dl", url: "https://example.com/h", events: ["image.generated"], secret: "s", status: "enabled" as const, disabledReason: null, createdAt: now, updatedAt: now };
    await store.createWebhook(hook, 20);
    const jobId = await store.enqueueJob({ kind: "webhook_delivery", lane: "wh_dl", accountId: "acc_dl", webhookId: "wh_dl", runAt: now + 60_000, now });
    const before = store.conflictRetries;

    // Disabling locks the webhook, then its pending jobs; the settlement holds the job, then
    // needs the webhook for its attempt's foreign key: a real deadlock, which PostgreSQL breaks
    // by aborting the disabling (it waited first).
    const settler = postgres(url, { max: 1, onnotice: () => {} });
    const watcher = postgres(url, { max: 1, onnotice: () => {} });
    try {
      let disabling: Promise<unknown> | undefined;
      await settler.begin(async (tx) => {
        await tx`select id from jobs where id = ${jobId} for update`;
        disabling = store.updateWebhook("acc_dl", "wh_dl", { url: hook.url, events: hook.events, enabled: false, disableReason: "by the test", now });
        await waitFor(async () => (await watcher`select count(*)::int as n from pg_locks where not granted`)[0]!.n > 0, "the disabling to wait for the job");
        await tx`insert into delivery_attempts (id, webhook_id, account_id, job_id, event_id, event_type, attempt, status_code, error, delivered, duration_ms, next_attempt_at, created_at)
          values ('dlv_dl', 'wh_dl', 'acc_dl', ${jobId}, 'evt_dl', 'image.generated', 1, 500, null, false, 3, null, ${now})`;
      });
      expect(await disabling!).toMatchObject({ id: "wh_dl", status: "disabled", disabledReason: "by the test" });
      expect(store.conflictRetries).toBe(before + 1);
      expect((await store.getJob(jobId))!.status).toBe("canceled");
      expect((await store.listDeliveryAttempts("wh_dl", 10)).map((a) => a.id)).toEqual(["dlv_dl"]);
    } finally {
      await settler.end();
      await watcher.end();
    }
  });
});
