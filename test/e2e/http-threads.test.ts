/**
 * OG_HTTP_THREADS=3: three threads answer on one port, and the server still behaves as one —
 * one rate limit per key, every answered image counted, a replaced key refused by every
 * thread at once, cold renders through the one pool, events delivered, one set of metrics.
 *
 * Each request here goes out on a connection of its own (`connection: close`), so the kernel
 * spreads them over the threads; with 30 connections and three threads, all landing on one
 * thread has a chance of about 1 in 10^14.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { ADMIN_TOKEN, apiRequest, eventBody, startTestService, TEST_STORE, type ApiInit, type TestService } from "../support/harness.ts";
import { decodePng } from "../support/png.ts";
import { startReceiver, type TestReceiver } from "../support/receiver.ts";

let s: TestService;
let r: TestReceiver;
beforeAll(async () => {
  // SQLite keeps the test clock in one thread's memory, so this suite runs on the real clock
  // there; PostgreSQL shares it between threads.
  s = await startTestService({ OG_HTTP_THREADS: "3", OG_ALLOW_PRIVATE_NETWORKS: "1", ...(TEST_STORE === "sqlite" ? { OG_TEST_CLOCK: "0" } : {}) });
  r = await startReceiver();
});
afterAll(async () => {
  await s?.stop();
  await r?.stop();
});

/** One request on a connection of its own. */
const fresh = (path: string, init: ApiInit = {}) => fetch(apiRequest(s.url + path, { ...init, headers: { ...init.headers, connection: "close" } }));
const times = <T>(n: number, make: (i: number) => Promise<T>) => Promise.all(Array.from({ length: n }, (_, i) => make(i)));

describe("OG_HTTP_THREADS", () => {
  test("the server runs two HTTP threads beside the main one", () => {
    expect(s.service.httpThreads).toBe(2);
  });

  test("one rate limit per key across threads: nothing else admitted within the second after the first", async () => {
    const { apiKey } = await s.createAccount({ plan: "custom", quota: 1000, requests_per_second: 1 });
    const sent = performance.now();
    const first = await fresh("/api/user/usage", { key: apiKey });
    expect(first.status).toBe(200);
    const answers = await times(30, async () => {
      const res = await fresh("/api/user/usage", { key: apiKey });
      await res.arrayBuffer();
      return { status: res.status, at: performance.now() };
    });
    // Decided before its answer arrived, so an answer within 1 s of sending the first request
    // was decided within 1 s of the first admission: it must be a refusal, whichever thread.
    const within = answers.filter((a) => a.at - sent < 1000);
    expect(within.length).toBeGreaterThanOrEqual(10);
    expect(within.map((a) => a.status)).toEqual(within.map(() => 429));
  });

  test("SQLite: every thread's commits reach the one checkpoint thread (PostgreSQL needs none)", async () => {
    if (TEST_STORE !== "sqlite") {
      expect(s.service.checkpointer).toBeUndefined();
      return;
    }
    const { apiKey } = await s.createAccount({ plan: "custom", quota: 1000, requests_per_second: 10_000 });
    const checkpointer = s.service.checkpointer!;
    const before = checkpointer.commits;
    const statuses = await times(90, async () => {
      const res = await fresh("/api/generate", { key: apiKey, json: eventBody({ title: "Committed on every thread" }) });
      await res.arrayBuffer();
      return res.status;
    });
    expect(statuses).toEqual(statuses.map(() => 200));
    // Each counted image takes at least one commit (two here: the threads' first requests miss
    // their own memory caches together, so each reserves and confirms); the main thread's own
    // share alone is about a third (50–78 of 180 when the other threads' went uncounted).
    expect(checkpointer.commits - before).toBeGreaterThanOrEqual(90);
  });

  test("every answered image is counted exactly once, whichever thread answered it", async () => {
    const { apiKey } = await s.createAccount({ plan: "custom", quota: 1000, requests_per_second: 10_000 });
    const statuses = await times(60, async () => {
      const res = await fresh("/api/generate", { key: apiKey, json: eventBody({ title: "Counted on every thread" }) });
      await res.arrayBuffer();
      return res.status;
    });
    expect(statuses).toEqual(statuses.map(() => 200));
    const usage = (await (await fresh("/api/user/usage", { key: apiKey })).json()) as { used: number };
    expect(usage.used).toBe(60);
  });

  test("a replaced key is refused on the very next request by every thread", async () => {
    const { accountId, apiKey } = await s.createAccount({ plan: "custom", quota: 1000, requests_per_second: 10_000 });
    // Every thread has seen (and may remember) the key.
    expect(await times(30, async () => (await fresh("/api/user/usage", { key: apiKey })).status)).toEqual(Array(30).fill(200));
    const replaced = await s.admin(`/admin/accounts/${accountId}/keys`, { method: "POST" });
    expect(replaced.status).toBe(201);
    const { api_key: newKey } = (await replaced.json()) as { api_key: string };
    expect(await times(30, async () => (await fresh("/api/user/usage", { key: apiKey })).status)).toEqual(Array(30).fill(401));
    expect(await times(30, async () => (await fresh("/api/user/usage", { key: newKey })).status)).toEqual(Array(30).fill(200));
  });

  // Eight at once: the pool holds its two workers' renders and a queue of eight (more is 503).
  test("cold renders from every thread go through the one render pool", async () => {
    const { apiKey } = await s.createAccount({ plan: "custom", quota: 1000, requests_per_second: 10_000 });
    const before = s.service.renderer.pool.stats.rendered;
    const images = await times(8, async (i) => {
      const res = await fresh("/api/generate", { key: apiKey, json: eventBody({ title: `Drawn by the pool, card ${i}` }) });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("image/png");
      return new Uint8Array(await res.arrayBuffer());
    });
    for (const image of images) expect(decodePng(image)).toMatchObject({ width: 1200, height: 630 });
    expect(new Set(images.map((image) => Bun.hash(image))).size).toBe(8);
    expect(s.service.renderer.pool.stats.rendered - before).toBe(8);
  });

  test("a full render queue is 503 SERVER_BUSY with Retry-After from every thread", async () => {
    const { apiKey } = await s.createAccount({ plan: "custom", quota: 1000, requests_per_second: 10_000 });
    // Twenty at once against room for ten (two rendering, eight waiting).
    const answers = await times(20, async (i) => {
      const res = await fresh("/api/generate", { key: apiKey, json: eventBody({ title: `Queue full, card ${i}` }) });
      let code: string | undefined;
      if (res.status === 503) code = ((await res.json()) as { code: string }).code;
      else await res.arrayBuffer();
      return { status: res.status, code, retryAfter: res.headers.get("retry-after") };
    });
    const refused = answers.filter((a) => a.status === 503);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused).toEqual(refused.map(() => ({ status: 503, code: "SERVER_BUSY", retryAfter: "1" })));
    expect(answers.filter((a) => a.status !== 503).map((a) => a.status)).toEqual(Array(20 - refused.length).fill(200));
  });

  test("the port is shared with the server's own threads only: another server on it fails to start", async () => {
    const port = new URL(s.url).port;
    for (const threads of ["1", "2"]) {
      await expect(startTestService({ PORT: port, OG_HTTP_THREADS: threads, ...(TEST_STORE === "sqlite" ? { OG_TEST_CLOCK: "0" } : {}) })).rejects.toThrow("already in use");
    }
  });

  test("an event committed by any thread is delivered by the one job worker", async () => {
    const { apiKey } = await s.createAccount({ plan: "custom", quota: 10, requests_per_second: 10_000 });
    const hook = await fresh("/api/webhooks", { key: apiKey, json: { url: r.url("/threads"), events: ["usage.limit_reached"], secret: "threads-secret-0123456789" } });
    expect(hook.status).toBe(201);
    const statuses = await times(10, async (i) => (await fresh("/api/generate", { key: apiKey, json: eventBody({ title: `Limit ${i % 2}` }) })).status);
    expect(statuses).toEqual(Array(10).fill(200));
    await r.waitForCount(1, "/threads");
    expect(r.events("/threads").map((e) => e.event)).toEqual(["usage.limit_reached"]);
  });

  test("a scrape on any thread reports the requests of all of them", async () => {
    const count = async () => {
      const text = await (await fresh("/metrics", { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).text();
      return Number(/ogsmith_http_requests_total\{method="GET",route="\/healthz",status="200"\} (\d+)/.exec(text)?.[1] ?? 0);
    };
    const before = await count();
    expect(await times(30, async () => (await fresh("/healthz")).status)).toEqual(Array(30).fill(200));
    // Five scrapes, landing on whichever threads: each sees all 30.
    for (const seen of await times(5, count)) expect(seen).toBeGreaterThanOrEqual(before + 30);
  });

  test("with the test clock on SQLite, more than one HTTP thread is refused at start-up", () => {
    expect(() => loadConfig({ OG_HTTP_THREADS: "2", OG_TEST_CLOCK: "1" })).toThrow(ConfigError);
    expect(() => loadConfig({ OG_HTTP_THREADS: "0" })).toThrow("OG_HTTP_THREADS must be between 1 and 64");
    expect(loadConfig({ OG_HTTP_THREADS: "2", OG_TEST_CLOCK: "1", OG_DATABASE_URL: "postgres://localhost/x" }).httpThreads).toBe(2);
  });
});
