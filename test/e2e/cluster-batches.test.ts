/**
 * A batch on three instances (docs/cluster.md): three `ogsmith serve` processes on one throwaway
 * PostgreSQL. Any instance works on any batch — items are claimed with leases, FOR UPDATE SKIP
 * LOCKED — and none is drawn into the quota twice: `used` is exactly the batch's total, every item
 * is done once, and more than one instance drew.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { postgresAvailable, startPostgres, testDatabaseUrl, type PostgresServer } from "../support/postgres.ts";
import { spawnServe } from "../support/process.ts";
import { startReceiver, type TestReceiver } from "../support/receiver.ts";
import { waitFor } from "../support/wait.ts";

const ADMIN = "cluster-batch-admin-token-0123456789";
const SECRET = "cluster-batch-secret-0123456789ab";
const ITEMS = 60;
const available = postgresAvailable();
if (!available) console.warn("PostgreSQL is not installed: the cluster batch test skips (apt-get install postgresql)");
const maybe = available || process.env.CI === "true" ? describe : describe.skip;

maybe("a batch on three instances", () => {
  let pg: PostgresServer;
  let receiver: TestReceiver;
  const urls: string[] = [];
  const children: Subprocess[] = [];

  beforeAll(async () => {
    [pg, receiver] = await Promise.all([startPostgres(), startReceiver()]);
    const databaseUrl = await testDatabaseUrl(pg);
    const spawn = () => spawnServe({ adminToken: ADMIN, env: { OG_DATABASE_URL: databaseUrl, OG_TEST_CLOCK: "0" }, children, timeoutMs: 60_000 });
    urls.push(...(await Promise.all([spawn(), spawn(), spawn()])).map((instance) => instance.url));
  }, 120_000);

  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
    await Promise.all(children.map((c) => c.exited));
    await receiver?.stop();
    await pg?.stop();
  });

  const call = (url: string, path: string, headers: Record<string, string>, json?: unknown) =>
    fetch(url + path, {
      method: json === undefined ? "GET" : "POST",
      headers: { "content-type": "application/json", ...headers },
      body: json === undefined ? undefined : JSON.stringify(json),
    });
  const drawnBy = async (url: string) => {
    const text = await (await call(url, "/metrics", { authorization: `Bearer ${ADMIN}` })).text();
    return Number(/ogsmith_batch_items\{state="drawn"\} (\d+)/.exec(text)?.[1] ?? "0");
  };

  test("created on one, drawn by all, counted once: used is the total, every item done once", async () => {
    const created = await (
      await call(
        urls[0]!,
        "/admin/accounts",
        { authorization: `Bearer ${ADMIN}` },
        { email: "cluster@example.com", plan: "custom", quota: 1000, requests_per_second: 10_000 },
      )
    ).json();
    const key = { "x-api-key": created.api_key as string };
    expect((await call(urls[1]!, "/api/signing-keys", key, {})).status).toBe(201);
    expect((await call(urls[2]!, "/api/webhooks", key, { url: receiver.url("/cluster"), events: ["batch.completed"], secret: SECRET })).status).toBe(201);

    const items = Array.from({ length: ITEMS }, (_, i) => ({ title: `Cluster item ${i}`, width: 600, height: 315 }));
    const res = await call(urls[0]!, "/api/batches", key, { items });
    expect(res.status).toBe(202);
    const { id } = await res.json();

    await waitFor(async () => (await (await call(urls[1]!, `/api/batches/${id}`, key)).json()).status === "done", "the batch done", {
      timeoutMs: 28_000,
      intervalMs: 50,
    });
    const pages = [await (await call(urls[2]!, `/api/batches/${id}`, key)).json()];
    pages.push(await (await call(urls[0]!, `/api/batches/${id}?cursor=${pages[0].next_cursor ?? ""}`, key)).json());
    const batch = pages[0];
    expect({ done: batch.done, failed: batch.failed }).toEqual({ done: ITEMS, failed: 0 });
    const items0 = pages[0].next_cursor === null ? pages[0].items : [...pages[0].items, ...pages[1].items];
    expect(items0.map((i: { index: number; status: string }) => `${i.index}:${i.status}`)).toEqual(Array.from({ length: ITEMS }, (_, i) => `${i}:done`));
    for (const url of urls) expect((await (await call(url, "/api/user/usage", key)).json()).used).toBe(ITEMS);

    const perInstance = await Promise.all(urls.map(drawnBy));
    expect(perInstance.reduce((a, b) => a + b, 0)).toBe(ITEMS);
    expect(perInstance.filter((n) => n > 0).length).toBeGreaterThan(1);

    await receiver.waitFor(() => receiver.events("/cluster").length >= 1, "batch.completed");
    expect(receiver.events("/cluster").map((e) => e.data)).toEqual([{ batch_id: id, total: ITEMS, done: ITEMS, failed: 0 }]);
  }, 60_000);
});
