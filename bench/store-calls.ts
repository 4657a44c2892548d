/**
 * Store calls on the hot paths, timed one by one (µs per call, median of rounds), against a real
 * SQLite file and — with `--postgres` — a throwaway PostgreSQL server (test/support/postgres.ts).
 * It uses only the Store interface, so the same file measures two trees (copy it into the other
 * checkout): how the store is built inside cannot hide.
 *
 *   bun bench/store-calls.ts [--rounds 9] [--calls 2000] [--postgres]
 *
 * First the query-style baseline on one primary-key read: a compiled bun:sqlite statement run
 * again, the same read through drizzle's builder per call and through a drizzle prepared query;
 * on PostgreSQL, postgres.js tagged templates against `unsafe()` text, prepared and not.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { eq, sql as drizzleSql } from "drizzle-orm";
import { claimJobs } from "../src/events/lane-claim.ts";
import { settleJob } from "../src/events/settlement.ts";
import { confirmImage } from "../src/metering/counting.ts";
import { createStore } from "../src/store/index.ts";
import { openDatabase } from "../src/store/sqlite/database.ts";
import { accounts } from "../src/store/sqlite/schema/index.ts";
import type { JobSettlement, Store } from "../src/store/types.ts";
import { DeliveryLog } from "../src/webhooks/delivery-log.ts";
import { markdownTable, median } from "./lib/load.ts";

const { values: args } = parseArgs({
  options: { rounds: { type: "string", default: "9" }, calls: { type: "string", default: "2000" }, postgres: { type: "boolean", default: false } },
});
const ROUNDS = Number(args.rounds);
const CALLS = Number(args.calls);
const NOW = Date.UTC(2030, 0, 1);
const PERIOD = "2030-01";

/** µs per call: the median over rounds of `calls` sequential calls. */
async function time(calls: number, call: (i: number) => unknown): Promise<number> {
  const rounds: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const start = performance.now();
    for (let i = 0; i < calls; i++) await call(r * calls + i);
    rounds.push(((performance.now() - start) * 1000) / calls);
  }
  return median(rounds);
}

async function seed(store: Store) {
  const accountId = "acc_bench";
  await store.createAccount(
    {
      id: accountId,
      email: "bench@example.com",
      plan: "enterprise",
      status: "active",
      customQuota: null,
      customRequestsPerSecond: null,
      createdAt: NOW,
      updatedAt: NOW,
    },
    { id: "key_bench", accountId, keyHash: "hash_bench", keyPrefix: "og_benc", createdAt: NOW, revokedAt: null },
  );
  await store.createWebhook(
    {
      id: "wh_bench",
      accountId,
      url: "https://example.com/h",
      events: ["image.generated"],
      secret: "s",
      status: "enabled",
      disabledReason: null,
      createdAt: NOW,
      updatedAt: NOW,
    },
    20,
  );
  await store.createSession({ tokenHash: "tok_bench", id: "ses_bench", accountId, keyId: "key_bench", createdAt: NOW, expiresAt: NOW + 86_400_000 }, NOW, 10);
  return accountId;
}

const noDecision = () => ({ marks: [], events: [{ type: "image.generated", data: '{"n":1}' }] });

async function storeCalls(store: Store): Promise<[string, number][]> {
  const accountId = await seed(store);
  const rows: [string, number][] = [];
  const add = async (name: string, calls: number, call: (i: number) => unknown) => rows.push([name, await time(calls, call)]);
  await add("findAccountByKeyHash (every /api request)", CALLS, () => store.findAccountByKeyHash("hash_bench"));
  await add("usage (GET /api/user/usage)", CALLS, () => store.usage(accountId, PERIOD));
  await add("findSession (every dashboard request)", CALLS, () => store.findSession("tok_bench"));
  await add("findSigningKey miss (a signed URL)", CALLS, () => store.findSigningKey("sk_missing"));
  await add("reserveUnit + confirmImage, 1 webhook (a counted image)", CALLS / 4, async (i) => {
    await store.reserveUnit({ accountId, period: PERIOD, quota: 1e9 });
    const unit = { accountId, period: PERIOD, day: `${PERIOD}-01`, now: NOW, contentAddress: `ca_${i}`, decide: noDecision };
    await store.transact((tx) => confirmImage(tx, unit));
  });
  const log = new DeliveryLog();
  await add("claimJobs + settleJob, 1 delivery (a webhook delivery)", CALLS / 4, async (i) => {
    const request = { kinds: ["webhook_delivery"], limit: 1, laneRoom: () => 8, now: NOW + 1, realNow: Date.now(), leaseMs: 30_000 };
    const { jobs } = await store.transact((tx) => claimJobs(tx, request));
    const job = jobs[0];
    if (!job) return;
    const settlement: JobSettlement = {
      jobId: job.id,
      now: NOW + 1,
      status: "succeeded",
      runAt: NOW,
      lastError: null,
      deliveryAttempt: {
        id: `dlv_${i}`,
        webhookId: "wh_bench",
        accountId,
        jobId: job.id,
        eventId: job.eventId!,
        eventType: "image.generated",
        attempt: 1,
        statusCode: 204,
        error: null,
        delivered: true,
        durationMs: 1,
        nextAttemptAt: null,
        createdAt: NOW,
      },
    };
    await store.transact((tx) => settleJob(tx, settlement, log));
  });
  await add("listWebhooks (dashboard)", CALLS, () => store.listWebhooks(accountId));
  return rows;
}

async function sqliteStyles(path: string): Promise<[string, number][]> {
  const db = openDatabase(path);
  const compiled = db.$client.prepare("SELECT id, email, plan, status, custom_quota AS customQuota, created_at AS createdAt FROM accounts WHERE id = ?");
  const prepared = db
    .select()
    .from(accounts)
    .where(eq(accounts.id, drizzleSql.placeholder("id")))
    .prepare();
  const rows: [string, number][] = [
    ["compiled statement, run again (the store's style)", await time(CALLS * 5, () => compiled.get("acc_bench"))],
    ["drizzle prepared query", await time(CALLS * 5, () => prepared.get({ id: "acc_bench" }))],
    ["drizzle builder per call", await time(CALLS * 5, () => db.select().from(accounts).where(eq(accounts.id, "acc_bench")).get())],
  ];
  db.$client.close(true);
  return rows;
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), "ogsmith-store-calls-"));
  const out: string[] = [
    `bench:store-calls — ${new Date().toISOString().slice(0, 10)}, ${availableParallelism()} cores (${cpus()[0]?.model ?? "?"}), bun ${Bun.version}; µs per call, median of ${ROUNDS} rounds`,
  ];
  try {
    const path = join(dir, "bench.db");
    const sqlite = await createStore({ dbPath: path, databaseUrl: undefined });
    const sqliteRows = await storeCalls(sqlite);
    await sqlite.close();
    const styles = await sqliteStyles(path);
    out.push(
      "",
      "SQLite, one primary-key read three ways",
      "",
      markdownTable(
        ["style", "µs per call"],
        styles.map(([n, v]) => [n, v.toFixed(2)]),
      ),
    );
    let pgRows: [string, number][] | undefined;
    if (args.postgres) {
      const { startPostgres, testDatabaseUrl } = await import("../test/support/postgres.ts");
      const server = await startPostgres();
      try {
        const pg = await createStore({ dbPath: ":memory:", databaseUrl: await testDatabaseUrl(server) });
        pgRows = await storeCalls(pg);
        const client = (pg as unknown as { sql: import("postgres").Sql }).sql;
        const pgStyles: [string, number][] = [
          ["tagged template (the store's style)", await time(CALLS, () => client`select id, email, plan from accounts where id = ${"acc_bench"}`)],
          [
            "unsafe() text, prepared",
            await time(CALLS, () => client.unsafe("select id, email, plan from accounts where id = $1", ["acc_bench"], { prepare: true })),
          ],
          ["unsafe() text, not prepared", await time(CALLS, () => client.unsafe("select id, email, plan from accounts where id = $1", ["acc_bench"]))],
        ];
        await pg.close();
        out.push(
          "",
          "PostgreSQL, one primary-key read three ways",
          "",
          markdownTable(
            ["style", "µs per call"],
            pgStyles.map(([n, v]) => [n, v.toFixed(1)]),
          ),
        );
      } finally {
        await server.stop();
      }
    }
    const header = pgRows ? ["store call", "SQLite µs", "PostgreSQL µs"] : ["store call", "SQLite µs"];
    out.push(
      "",
      "Store calls",
      "",
      markdownTable(
        header,
        sqliteRows.map(([name, v], i) => (pgRows ? [name, v.toFixed(1), pgRows[i]![1].toFixed(1)] : [name, v.toFixed(1)])),
      ),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(out.join("\n"));
}

await main();
