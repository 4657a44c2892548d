/**
 * The render sandbox from outside: the real server (`bun src/main.ts serve`) as a child of this
 * test, its render processes as its children, measured through /proc. Hostile cards that pass
 * every check at write time are answered within the deadline on both engines; afterwards nothing
 * of them runs; the whole tree stays under idle + the memory bound + 10 %; /healthz and another
 * account's renders are served throughout. A render process killed (SIGKILL) in the middle of
 * 20 renders costs only what it held, and one stopped (SIGSTOP) is killed at the deadline.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { storeEnv } from "../support/harness.ts";
import { decodePng } from "../support/png.ts";
import { spawnServe } from "../support/process.ts";
import { childrenOf, processExists, treeCpuShare, treeResidentBytes, watchTreeMemory } from "../support/process-tree.ts";
import { waitFor } from "../support/wait.ts";
import { HUGE_ARC_DATA_URI, HUGE_ARC_TEMPLATE, NESTED_CLIPS_TEMPLATE } from "./fixtures/hostile-cards.ts";

const ADMIN = "sandbox-admin-token-0123456789";
const DEADLINE_MS = 2_000;
const MEMORY_MB = 512;
const MiB = 1024 * 1024;

interface Server {
  proc: Subprocess;
  url: string;
  children: Subprocess[];
  dir: string;
}

async function startServer(engine: "satori" | "takumi", extra: Record<string, string> = {}): Promise<Server> {
  const dir = mkdtempSync(join(tmpdir(), "ogsmith-sandbox-"));
  const children: Subprocess[] = [];
  const { proc, url } = await spawnServe({
    adminToken: ADMIN,
    children,
    timeoutMs: 60_000,
    env: {
      ...(await storeEnv(join(dir, "ogsmith.db"))),
      OG_RENDER_ENGINE: engine,
      OG_RENDER_WORKERS: "2",
      OG_RENDER_TIMEOUT_MS: String(DEADLINE_MS),
      OG_RENDER_MEMORY_MB: String(MEMORY_MB),
      OG_METRICS_PUBLIC: "true",
      RUST_BACKTRACE: "0",
      ...extra,
    },
  });
  const server = { proc, url, children, dir };
  await waitFor(async () => (await metric(server, "ogsmith_render_pool", "ready")) === 2, "both render processes to be ready", { timeoutMs: 30_000 });
  return server;
}

async function stopServer(server: Server | undefined): Promise<void> {
  if (!server) return;
  for (const child of server.children) if (child.exitCode === null) child.kill("SIGKILL");
  await Promise.all(server.children.map((child) => child.exited));
  rmSync(server.dir, { recursive: true, force: true });
}

async function metric(server: Server, name: string, label?: string): Promise<number | undefined> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  for (const line of text.split("\n")) {
    if (!line.startsWith(name)) continue;
    const [key, value] = line.split(" ");
    if (key === name || (label !== undefined && key!.endsWith(`="${label}"}`))) return Number(value);
  }
  return undefined;
}

async function createAccount(server: Server, email: string): Promise<string> {
  const res = await fetch(`${server.url}/admin/accounts`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
    body: JSON.stringify({ email, plan: "custom", quota: 10_000, requests_per_second: 1_000 }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { api_key: string }).api_key;
}

const post = (server: Server, key: string, path: string, json: unknown) =>
  fetch(`${server.url}${path}`, { method: "POST", headers: { "x-api-key": key, "content-type": "application/json" }, body: JSON.stringify(json) });

const used = async (server: Server, key: string) =>
  ((await (await fetch(`${server.url}/api/user/usage`, { headers: { "x-api-key": key } })).json()) as { used: number }).used;

/** An ordinary card of another account's, drawn while the hostile one runs: it must not wait on it. */
async function bystanderCard(server: Server, key: string, title: string): Promise<number> {
  const res = await post(server, key, "/api/generate", { template: "blog", title, width: 600, height: 315 });
  if (res.status === 200) expect(decodePng(new Uint8Array(await res.arrayBuffer())).width).toBe(600);
  else await res.arrayBuffer();
  return res.status;
}

for (const engine of ["satori", "takumi"] as const) {
  describe(`hostile cards on ${engine}`, () => {
    let server: Server;
    let hostile: string;
    let bystander: string;
    beforeAll(async () => {
      server = await startServer(engine);
      hostile = await createAccount(server, `hostile-${engine}@example.com`);
      bystander = await createAccount(server, `bystander-${engine}@example.com`);
      // It passes every check a definition gets when it is written: only the sandbox stops it.
      const res = await post(server, hostile, "/api/templates", HUGE_ARC_TEMPLATE);
      expect({ id: HUGE_ARC_TEMPLATE.id, status: res.status }).toEqual({ id: HUGE_ARC_TEMPLATE.id, status: 201 });
      // The nested rounded clips once passed too; the paint estimate now counts each clip's layer.
      const clips = await post(server, hostile, "/api/templates", NESTED_CLIPS_TEMPLATE);
      expect(clips.status).toBe(400);
      expect(JSON.stringify(await clips.json())).toContain("mostly its rounded clip");
    }, 90_000);
    afterAll(() => stopServer(server));

    const cases = [
      { name: "an account template with a 1e38 SVG arc", body: { template: "huge-arc", title: "arc" } },
      { name: "a built-in template whose logo is the 1e38 arc", body: { template: "event", title: "Arc logo", logo_url: HUGE_ARC_DATA_URI } },
    ];
    for (const { name, body } of cases) {
      test(`${name}: answered by the deadline, nothing of it runs on, memory bounded, others served`, async () => {
        const pid = server.proc.pid;
        await waitFor(async () => (await treeCpuShare(pid)) < 0.15, "the server to be idle before the card", { timeoutMs: 20_000 });
        const idle = treeResidentBytes(pid);
        const renderersBefore = childrenOf(pid);
        const before = await used(server, hostile);
        const memory = watchTreeMemory(pid);
        const started = performance.now();
        const answer = post(server, hostile, "/api/generate", body);
        // While it draws: the server answers, and another account's card is drawn.
        const health = await fetch(`${server.url}/healthz`);
        expect(health.status).toBe(200);
        const other = bystanderCard(server, bystander, `${engine} bystander ${name}`);
        const res = await answer;
        const elapsedMs = performance.now() - started;
        expect(await other).toBe(200);
        // The deadline plus what a loaded machine adds to kill, reap and answer.
        expect(elapsedMs).toBeLessThan(DEADLINE_MS + 4_000);
        if (res.status === 200) {
          // takumi draws some of these quickly: then the card is an ordinary, counted success.
          await res.arrayBuffer();
          expect(await used(server, hostile)).toBe(before + 1);
        } else {
          expect(res.status).toBe(422);
          expect(await res.json()).toMatchObject({ error: true, code: "RENDER_FAILED" });
          expect(await used(server, hostile)).toBe(before);
          // The process that held it is gone (it would have spun on; the deadline leaves room for a busy machine).
          const killed = renderersBefore.filter((p) => !childrenOf(pid).includes(p) || !processExists(p));
          await waitFor(() => renderersBefore.some((p) => !processExists(p)), "the killed render process to be gone", { timeoutMs: 10_000 });
          expect(killed.length + renderersBefore.filter((p) => !processExists(p)).length).toBeGreaterThan(0);
          // Asked again, it is refused at once, without a render process.
          const restarts = (await metric(server, "ogsmith_render_restarts", "deadline"))! + (await metric(server, "ogsmith_render_restarts", "memory"))!;
          const again = await post(server, hostile, "/api/generate", body);
          expect(again.status).toBe(422);
          expect(((await again.json()) as { message: string }).message).toContain("refused");
          expect((await metric(server, "ogsmith_render_restarts", "deadline"))! + (await metric(server, "ogsmith_render_restarts", "memory"))!).toBe(restarts);
        }
        const peak = memory.stop();
        expect(peak).toBeLessThan((idle + MEMORY_MB * MiB) * 1.1);
        // Afterwards the tree goes quiet: nothing of the render runs on (a replacement's start-up ends too).
        await waitFor(async () => (await treeCpuShare(pid)) < 0.15, "the process tree to stop using CPU", { timeoutMs: 15_000 });
        await waitFor(async () => (await metric(server, "ogsmith_render_pool", "ready")) === 2, "two ready render processes", { timeoutMs: 20_000 });
        expect(server.proc.exitCode).toBeNull();
      }, 60_000);
    }
  });
}

describe("render processes that die or stop", () => {
  let server: Server;
  let key: string;
  beforeAll(async () => {
    server = await startServer("satori");
    key = await createAccount(server, "crash@example.com");
  }, 90_000);
  afterAll(() => stopServer(server));

  test("a render process killed (SIGKILL) during 20 concurrent renders: every request answered, usage equals the 200s, a replacement starts", async () => {
    const before = await used(server, key);
    const victim = childrenOf(server.proc.pid)[0]!;
    const requests = Array.from({ length: 20 }, (_, i) =>
      post(server, key, "/api/generate", { template: "event", title: `Concurrent ${i}`, width: 1600, height: 840 }),
    );
    // Once renders are under way (the pool counts one rendered or busy), kill one process.
    await waitFor(async () => ((await metric(server, "ogsmith_render_pool", "busy")) ?? 0) > 0, "renders to be under way");
    process.kill(victim, "SIGKILL");
    const responses = await Promise.all(requests);
    let ok = 0;
    for (const res of responses) {
      if (res.status === 200) {
        ok++;
        expect(decodePng(new Uint8Array(await res.arrayBuffer())).width).toBe(1600);
      } else {
        expect([422, 503]).toContain(res.status);
        expect(await res.json()).toMatchObject({ error: true, code: res.status === 422 ? "RENDER_FAILED" : "SERVER_BUSY" });
      }
    }
    expect(ok).toBeGreaterThanOrEqual(18);
    expect(await used(server, key)).toBe(before + ok);
    await waitFor(async () => (await metric(server, "ogsmith_render_pool", "ready")) === 2, "a replacement render process", { timeoutMs: 20_000 });
    expect(childrenOf(server.proc.pid)).not.toContain(victim);
    expect(server.proc.exitCode).toBeNull();
  }, 60_000);

  test("render processes stopped (SIGSTOP) are killed at the deadline and replaced", async () => {
    const stopped = childrenOf(server.proc.pid);
    expect(stopped.length).toBe(2);
    for (const pid of stopped) process.kill(pid, "SIGSTOP");
    try {
      const before = await used(server, key);
      const res = await post(server, key, "/api/generate", { template: "event", title: "Sent to a stopped process" });
      expect(res.status).toBe(422);
      expect(await res.json()).toMatchObject({ error: true, code: "RENDER_FAILED" });
      expect(await used(server, key)).toBe(before);
      await waitFor(() => stopped.some((pid) => !processExists(pid)), "the stopped process that held it to be killed", { timeoutMs: 10_000 });
    } finally {
      for (const pid of stopped) if (processExists(pid)) process.kill(pid, "SIGCONT");
    }
    await waitFor(async () => (await metric(server, "ogsmith_render_pool", "ready")) === 2, "the replacement", { timeoutMs: 20_000 });
    const next = await post(server, key, "/api/generate", { template: "event", title: "After the stop" });
    expect(next.status).toBe(200);
    await next.arrayBuffer();
    expect(await metric(server, "ogsmith_render_restarts", "deadline")).toBeGreaterThanOrEqual(1);
  }, 60_000);

  test("render processes end with the server: kill -9 of the server leaves none behind, even mid-render", async () => {
    const other = await startServer("satori");
    try {
      const otherKey = await createAccount(other, "orphan@example.com");
      const renderers = childrenOf(other.proc.pid);
      expect(renderers.length).toBe(2);
      // One render process is busy in a loop the server would have killed at the deadline.
      expect((await post(other, otherKey, "/api/templates", HUGE_ARC_TEMPLATE)).status).toBe(201);
      void post(other, otherKey, "/api/generate", { template: "huge-arc", title: "orphan" }).catch(() => {});
      await waitFor(async () => ((await metric(other, "ogsmith_render_pool", "busy")) ?? 0) > 0, "the render to be under way");
      other.proc.kill("SIGKILL");
      await waitFor(() => renderers.every((pid) => !processExists(pid)), "the render processes to end with the server", { timeoutMs: 10_000 });
    } finally {
      await stopServer(other);
    }
  }, 60_000);
});
