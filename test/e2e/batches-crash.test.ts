/**
 * A batch survives `kill -9` (docs/api.md, "Batches"): the real server as a child process, killed
 * while the batch is part drawn, then started again on the same store (SQLite file, or PostgreSQL
 * with OG_TEST_STORE=postgres). The batch finishes: every item drawn exactly once as far as the
 * quota and the events can tell — `used` equals the items, each item has one `image.generated`
 * event id (redelivery keeps the id), and `batch.completed` has one.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { storeEnv } from "../support/harness.ts";
import { spawnServe } from "../support/process.ts";
import { startReceiver, type TestReceiver } from "../support/receiver.ts";
import { waitFor } from "../support/wait.ts";

const ADMIN = "batch-crash-admin-token-0123456789";
const SECRET = "batch-crash-secret-0123456789abc";
const ITEMS = 40;

let r: TestReceiver;
let dir: string;
const children: Subprocess[] = [];
beforeAll(async () => {
  r = await startReceiver();
  dir = mkdtempSync(join(tmpdir(), "ogsmith-batch-crash-"));
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  await r.stop();
  rmSync(dir, { recursive: true, force: true });
});

const spawnServer = async () => spawnServe({ adminToken: ADMIN, env: { ...(await storeEnv(join(dir, "ogsmith.db"))), OG_RENDER_WORKERS: "3" }, children });
const call = (url: string, path: string, headers: Record<string, string>, json?: unknown) =>
  fetch(url + path, {
    method: json === undefined ? "GET" : "POST",
    headers: { "content-type": "application/json", ...headers },
    body: json === undefined ? undefined : JSON.stringify(json),
  });

test("kill -9 mid-batch, restart: the batch finishes, each item counted and announced once", async () => {
  const first = await spawnServer();
  const created = await (
    await call(
      first.url,
      "/admin/accounts",
      { authorization: `Bearer ${ADMIN}` },
      { email: "crash@example.com", plan: "custom", quota: 1000, requests_per_second: 10_000 },
    )
  ).json();
  const key = { "x-api-key": created.api_key as string };
  expect((await call(first.url, "/api/signing-keys", key, {})).status).toBe(201);
  expect((await call(first.url, "/api/webhooks", key, { url: r.url("/crash"), events: ["image.generated", "batch.completed"], secret: SECRET })).status).toBe(
    201,
  );

  const items = Array.from({ length: ITEMS }, (_, i) => ({ title: `Crash item ${i}`, subtitle: "drawn once, whatever happens", width: 600, height: 315 }));
  const res = await call(first.url, "/api/batches", key, { items });
  expect(res.status).toBe(202);
  const { id } = await res.json();
  const progress = async (url: string) => (await call(url, `/api/batches/${id}`, key)).json();

  // Part drawn: some items done, some not.
  let atKill = 0;
  await waitFor(async () => (atKill = (await progress(first.url)).done) >= 3, "a few items drawn", { timeoutMs: 20_000, intervalMs: 20 });
  first.proc.kill("SIGKILL");
  expect(atKill).toBeLessThan(ITEMS);
  await first.proc.exited;

  const second = await spawnServer();
  await waitFor(async () => (await progress(second.url)).status === "done", "the batch done after the restart", { timeoutMs: 25_000, intervalMs: 20 });
  const batch = await progress(second.url);
  expect({ done: batch.done, failed: batch.failed, total: batch.total }).toEqual({ done: ITEMS, failed: 0, total: ITEMS });
  const usage = await (await call(second.url, "/api/user/usage", key)).json();
  expect(usage.used).toBe(ITEMS);

  await r.waitFor(
    () =>
      new Set(
        r
          .events("/crash")
          .filter((e) => e.event === "image.generated")
          .map((e) => e.data.batch_index),
      ).size === ITEMS && r.events("/crash").some((e) => e.event === "batch.completed"),
    "every event",
    15_000,
  );
  const idsByIndex = new Map<number, Set<string>>();
  for (const e of r.events("/crash").filter((e) => e.event === "image.generated"))
    idsByIndex.set(e.data.batch_index, (idsByIndex.get(e.data.batch_index) ?? new Set()).add(e.id));
  expect([...idsByIndex.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: ITEMS }, (_, i) => i));
  for (const ids of idsByIndex.values()) expect(ids.size).toBe(1);
  const completed = r.events("/crash").filter((e) => e.event === "batch.completed");
  expect(new Set(completed.map((e) => e.id)).size).toBe(1);
  expect(completed[0]!.data).toEqual({ batch_id: id, total: ITEMS, done: ITEMS, failed: 0 });
  second.proc.kill("SIGTERM");
  expect(await second.proc.exited).toBe(0);
}, 90_000);
