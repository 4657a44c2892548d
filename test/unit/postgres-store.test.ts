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
import { claimJobs } from "../../src/events/lane-claim.ts";
import { migratePostgres, openPostgresStore } from "../../src/store/postgres/index.ts";
import { migrationJournal, migrationSql } from "../../src/store/postgres/migrations.ts";
import type { PostgresStore } from "../../src/store/postgres/store.ts";
import type { Store } from "../../src/store/types.ts";
import { updateWebhook } from "../../src/webhooks/status-change.ts";
import { postgresAvailable, testDatabaseUrl } from "../support/postgres.ts";
import { REPO_ROOT } from "../support/process.ts";
import { waitFor } from "../support/wait.ts";

const maybe = postgresAvailable() || process.env.CI === "true" ? describe : describe.skip;

test("every migration file under migrations/postgres/ is in the journal and embedded", () => {
  const files = readdirSync(`${REPO_ROOT}/migrations/postgres`)
    .filter((f) => f.endsWith(".sql"))
    .map((f) => f.replace(/\.sql$/, ""))
    .sort();
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
        expect.arrayContaining([
          "accounts",
          "api_keys",
          "usage_periods",
          "usage_days",
          "events",
          "webhooks",
          "delivery_attempts",
          "jobs",
          "email_alerts",
          "dashboard_sessions",
          "store_probe",
          "cluster_state",
        ]),
      );
    } finally {
      await sql.end();
    }
  });

  test("reservations from three connections against 10 units: exactly 10", async () => {
    const [a, b, c] = [await open(), await open(), await open()];
    const now = Date.now();
    await a.createAccount(
      {
        id: "acc_res",
        email: "r@example.com",
        plan: "custom",
        status: "active",
        customQuota: 10,
        customRequestsPerSecond: 100,
        createdAt: now,
        updatedAt: now,
      },
      { id: "key_res", accountId: "acc_res", keyHash: "h_res", keyPrefix: "og_abcd", createdAt: now, revokedAt: null },
    );
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => [a, b, c][i % 3]!.reserveUnit({ accountId: "acc_res", period: "2026-11", quota: 10 })),
    );
    expect(results.filter(Boolean).length).toBe(10);
    expect((await a.usage("acc_res", "2026-11"))!.reserved).toBe(10);
  });

  test("claims from two instances never share a job; a dead instance's leases are released, a live one's kept", async () => {
    const [a, b] = [await open(), await open()];
    const now = Date.now();
    for (let i = 0; i < 20; i++) await a.enqueueJob({ kind: "bench_kind", lane: `lane${i}`, runAt: now, now });
    const claim = (s: PostgresStore) =>
      s.transact((tx) => claimJobs(tx, { kinds: ["bench_kind"], limit: 20, laneRoom: () => 8, now, realNow: Date.now(), leaseMs: 60_000 }));
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

  /** An account with one webhook and one pending delivery job of it. */
  async function webhookWithDelivery(store: PostgresStore, tag: string, runAt: number) {
    const now = Date.now();
    const accountId = `acc_${tag}`;
    await store.createAccount(
      {
        id: accountId,
        email: `${tag}@example.com`,
        plan: "starter",
        status: "active",
        customQuota: null,
        customRequestsPerSecond: null,
        createdAt: now,
        updatedAt: now,
      },
      { id: `key_${tag}`, accountId, keyHash: `h_${tag}`, keyPrefix: "og_abcd", createdAt: now, revokedAt: null },
    );
    const hook = {
      id: `wh_${tag}`,
      accountId,
      url: "https://example.com/h",
      events: ["image.generated"],
      secret: "s",
      status: "enabled" as const,
      disabledReason: null,
      createdAt: now,
      updatedAt: now,
    };
    expect(await store.createWebhook(hook, 20)).toMatchObject({ id: hook.id });
    const jobId = await store.enqueueJob({ kind: "webhook_delivery", lane: hook.id, accountId, webhookId: hook.id, runAt, now });
    return { accountId, hook, jobId, now };
  }

  /**
   * Another instance settling that delivery, from its own connection: it holds the job, lets
   * `act` start and come to wait for a lock, then logs the attempt, whose foreign key needs the
   * webhook row, and commits. Resolves with what `act` resolved with.
   */
  async function whileSettling<T>(delivery: { accountId: string; hook: { id: string }; jobId: string; now: number }, act: () => Promise<T>): Promise<T> {
    const settler = postgres(url, { max: 1, onnotice: () => {} });
    const watcher = postgres(url, { max: 1, onnotice: () => {} });
    try {
      let acting: Promise<T> | undefined;
      await settler.begin(async (tx) => {
        await tx`select id from jobs where id = ${delivery.jobId} for update`;
        acting = act();
        await waitFor(
          async () => (await watcher`select count(*)::int as n from pg_locks where not granted`)[0]!.n > 0,
          "the store's transaction to wait for a lock",
        );
        await tx`insert into delivery_attempts (id, webhook_id, account_id, job_id, event_id, event_type, attempt, status_code, error, delivered, duration_ms, next_attempt_at, created_at)
          values (${`dlv_${delivery.hook.id}`}, ${delivery.hook.id}, ${delivery.accountId}, ${delivery.jobId}, 'evt_x', 'image.generated', 1, 500, null, false, 3, null, ${delivery.now})`;
      });
      return await acting!;
    } finally {
      await settler.end();
      await watcher.end();
    }
  }

  test("deleting a webhook while a delivery of it is being settled: both finish, no deadlock to break", async () => {
    const store = await open();
    const delivery = await webhookWithDelivery(store, "del", Date.now());
    expect(await whileSettling(delivery, () => store.deleteWebhook(delivery.accountId, delivery.hook.id))).toBe(true);
    // The lock order (the webhook's jobs first), not a retry, let both through.
    expect(store.conflictRetries).toBe(0);
    expect(await store.getWebhookById(delivery.hook.id)).toBeUndefined();
  });

  test("a transaction PostgreSQL aborts to break a deadlock is run again: disabling a webhook while its delivery settles", async () => {
    const store = await open();
    const delivery = await webhookWithDelivery(store, "dl", Date.now() + 60_000);
    const { hook } = delivery;
    // Disabling locks the webhook, then its pending jobs; the settlement holds the job, then
    // needs the webhook: a real deadlock, which PostgreSQL breaks by aborting the disabling (it
    // waited first).
    const disabled = await whileSettling(delivery, () =>
      store.transact((tx) =>
        updateWebhook(tx, delivery.accountId, hook.id, { url: hook.url, events: hook.events, enabled: false, disableReason: "by the test", now: delivery.now }),
      ),
    );
    expect(disabled).toMatchObject({ id: hook.id, status: "disabled", disabledReason: "by the test" });
    expect(store.conflictRetries).toBe(1);
    expect((await store.getJob(delivery.jobId))!.status).toBe("canceled");
    expect((await store.listDeliveryAttempts(hook.id, 10)).map((a) => a.id)).toEqual([`dlv_${hook.id}`]);
  });
});
