/**
 * At-least-once across `kill -9` (docs/events.md): the real server as a child process
 * (`bun src/main.ts serve`), killed while deliveries are committed but not yet acknowledged,
 * then restarted on the same database: every event still arrives.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eventBody, storeEnv } from "../support/harness.ts";
import { spawnServe } from "../support/process.ts";
import { startReceiver, type TestReceiver } from "../support/receiver.ts";

const ADMIN = "crash-test-admin-token-0123456789";
const SECRET = "crash-secret-0123456789abcdef";

let r: TestReceiver;
let dir: string;
const children: Subprocess[] = [];
beforeAll(async () => {
  r = await startReceiver();
  dir = mkdtempSync(join(tmpdir(), "ogsmith-crash-"));
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  await r.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function spawnServer() {
  return spawnServe({ adminToken: ADMIN, env: await storeEnv(join(dir, "ogsmith.db")), children });
}

const post = (url: string, json: unknown, headers: Record<string, string>) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(json) });

test("kill -9 with deliveries in flight, restart: every event is delivered", async () => {
  const first = await spawnServer();
  const created = await (await post(`${first.url}/admin/accounts`, { email: "crash@example.com", plan: "pro" }, { authorization: `Bearer ${ADMIN}` })).json();
  const key = { "x-api-key": created.api_key as string };
  r.respond({ hang: true }, "/crash");
  const hook = await post(`${first.url}/api/webhooks`, { url: r.url("/crash"), events: ["image.generated"], secret: SECRET }, key);
  expect(hook.status).toBe(201);

  const requestIds: string[] = [];
  for (let i = 0; i < 3; i++) {
    const res = await post(`${first.url}/api/generate`, eventBody({ title: `Crash ${i}` }), key);
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    requestIds.push(res.headers.get("x-request-id")!);
  }
  // All three attempts are on the wire and unanswered: committed, not acknowledged.
  await r.waitFor(() => r.pending === 3, "3 deliveries in flight");
  first.proc.kill("SIGKILL");
  await first.proc.exited;
  r.releaseHung();
  r.respond({ status: 200 }, "/crash");
  const beforeRestart = r.at("/crash").length;

  // Right after the restart, before it, generate two more and kill at once: committed, maybe not attempted.
  const second = await spawnServer();
  await r.waitFor(() => r.at("/crash").length >= beforeRestart + 3, "the 3 interrupted events redelivered", 10_000);
  for (let i = 0; i < 2; i++) {
    const res = await post(`${second.url}/api/generate`, eventBody({ title: `Then ${i}` }), key);
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    requestIds.push(res.headers.get("x-request-id")!);
  }
  second.proc.kill("SIGKILL");
  await second.proc.exited;

  const third = await spawnServer();
  const delivered = () => new Set(r.events("/crash").map((e) => e.data.request_id));
  await r.waitFor(() => requestIds.every((id) => delivered().has(id)), "every event delivered", 10_000);
  expect([...delivered()].sort()).toEqual([...requestIds].sort());
  // Redeliveries carry the same event id; receivers deduplicate on it.
  const idsByRequest = new Map<string, Set<string>>();
  for (const e of r.events("/crash")) idsByRequest.set(e.data.request_id, (idsByRequest.get(e.data.request_id) ?? new Set()).add(e.id));
  for (const ids of idsByRequest.values()) expect(ids.size).toBe(1);
  third.proc.kill("SIGTERM");
  expect(await third.proc.exited).toBe(0);
}, 60_000);
