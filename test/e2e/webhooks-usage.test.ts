/**
 * Usage events over webhooks (docs/events.md): the free plan's thresholds, the
 * monthly `usage.reset` at the boundary, and its catch-up after a restart — each exactly once.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eventBody, execStoreSql, startTestService, type TestService } from "../support/harness.ts";
import { startReceiver, type TestReceiver } from "../support/receiver.ts";

const SECRET = "usage-secret-0123456789abcdef";
const USAGE_EVENTS = ["usage.warning", "usage.limit_reached", "usage.reset"];

let r: TestReceiver;
beforeAll(async () => {
  r = await startReceiver();
});
afterAll(() => r.stop());

async function clockTo(s: TestService, iso: string) {
  const delta = (Date.parse(iso) - s.now()) / 1000;
  if (delta < 0) throw new Error(`clock is already past ${iso}`);
  await s.advance(delta);
}

async function webhook(s: TestService, key: string, path: string, events = USAGE_EVENTS) {
  const res = await s.api("/api/webhooks", { key, json: { url: r.url(path), events, secret: SECRET } });
  expect(res.status).toBe(201);
  return (await res.json()).id as string;
}

const year = new Date().getUTCFullYear() + 1;

describe("thresholds on the free plan (25 images, 1 request per second)", () => {
  let s: TestService;
  beforeAll(async () => {
    s = await startTestService({ OG_ALLOW_PRIVATE_NETWORKS: "1" });
  });
  afterAll(() => s.stop());

  test("20th image → 80 %, 23rd → 90 %, 24th → 95 %, 25th → limit_reached; exactly one event each", async () => {
    await clockTo(s, `${year}-03-10T12:00:00.000Z`);
    const { apiKey } = await s.createAccount({ plan: "free" });
    await webhook(s, apiKey, "/free");
    const expected: Record<number, [string, number | null]> = {
      20: ["usage.warning", 80],
      23: ["usage.warning", 90],
      24: ["usage.warning", 95],
      25: ["usage.limit_reached", null],
    };
    const seen: [string, number | null][] = [];

    for (let n = 1; n <= 25; n++) {
      await s.advance(1); // stay under 1 request per second
      const res = await s.api("/api/generate", { key: apiKey, json: eventBody() });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      if (expected[n]) {
        seen.push(expected[n]!);
        await r.waitForCount(seen.length, "/free");
      }
      await s.advance(0); // anything else owed would be delivered by now
      expect({ image: n, events: r.events("/free").map((e) => [e.event, e.data.percentage ?? null]) }).toEqual({ image: n, events: seen });
    }

    await s.advance(1);
    const over = await s.api("/api/generate", { key: apiKey, json: eventBody() });
    expect(over.status).toBe(429);
    expect((await over.json()).code).toBe("QUOTA_EXCEEDED");
    await s.advance(3600);
    const events = r.events("/free");
    expect(events).toHaveLength(4);

    for (const [i, percentage] of [80, 90, 95].entries()) {
      expect(events[i]!.data).toEqual({ current_usage: [20, 23, 24][i], quota: 25, percentage, plan: "free" });
    }
    expect(events[3]!.data).toEqual({ current_usage: 25, quota: 25, plan: "free", resets_at: `${year}-04-01T00:00:00.000Z` });
    for (const e of events) {
      expect(e.id).toMatch(/^evt_/);
      expect(Number.isNaN(Date.parse(e.timestamp))).toBe(false);
      expect(Object.values(e.data).every((v) => typeof v === "string" || Number.isInteger(v))).toBe(true);
    }
  });
});

describe("usage.reset at the month boundary", () => {
  let s: TestService;
  beforeAll(async () => {
    s = await startTestService({ OG_ALLOW_PRIVATE_NETWORKS: "1" });
  });
  afterAll(() => s.stop());

  test("at 00:00 UTC on the 1st, once per account, with previous_usage, new_quota and plan", async () => {
    await clockTo(s, `${year}-05-20T08:00:00.000Z`);
    const a = await s.createAccount({ plan: "custom", quota: 10, requests_per_second: 100 });
    const b = await s.createAccount({ plan: "starter" });
    await webhook(s, a.apiKey, "/reset-a", ["usage.reset"]);
    await webhook(s, b.apiKey, "/reset-b", ["usage.reset", "image.generated"]);
    for (let i = 0; i < 3; i++) expect((await s.api("/api/generate", { key: a.apiKey, json: eventBody() })).status).toBe(200);

    await clockTo(s, `${year}-05-31T23:59:59.000Z`);
    expect(r.at("/reset-a")).toHaveLength(0);
    await s.advance(1);
    const [resetA] = await r.waitForCount(1, "/reset-a");
    const [resetB] = await r.waitForCount(1, "/reset-b");
    const eA = JSON.parse(resetA!.body);
    expect(eA).toMatchObject({ event: "usage.reset", timestamp: `${year}-06-01T00:00:00.000Z`, data: { previous_usage: 3, new_quota: 10, plan: "custom" } });
    expect(Object.keys(eA.data).sort()).toEqual(["new_quota", "plan", "previous_usage"]);
    expect(JSON.parse(resetB!.body).data).toEqual({ previous_usage: 0, new_quota: 500, plan: "starter" });

    // Never twice for one month, however the clock moves on.
    await s.advance(1);
    await s.advance(86400 * 10);
    expect(r.at("/reset-a")).toHaveLength(1);
    expect(r.at("/reset-b")).toHaveLength(1);
    expect((await (await s.api("/api/user/usage", { key: a.apiKey })).json()).used).toBe(0);

    // The next month has its own.
    await clockTo(s, `${year}-07-01T00:00:00.000Z`);
    await r.waitForCount(2, "/reset-a");
    expect(JSON.parse(r.at("/reset-a")[1]!.body).data).toEqual({ previous_usage: 0, new_quota: 10, plan: "custom" });
  });

  test("an account created during the month gets no reset for it", async () => {
    await clockTo(s, `${year}-07-15T00:00:00.000Z`);
    const c = await s.createAccount({ plan: "pro" });
    await webhook(s, c.apiKey, "/reset-new", ["usage.reset"]);
    await s.advance(86400);
    expect(r.at("/reset-new")).toHaveLength(0);
    await clockTo(s, `${year}-08-01T00:00:00.000Z`);
    await r.waitForCount(1, "/reset-new");
  });
});

describe("usage.reset after a restart across the boundary", () => {
  test("caught up at start-up, exactly once, also after a second restart", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ogsmith-reset-"));
    const dbPath = join(dir, "ogsmith.db");
    try {
      const env = { OG_DB_PATH: dbPath, OG_ALLOW_PRIVATE_NETWORKS: "1" };
      const s1 = await startTestService(env);
      const { accountId, apiKey } = await s1.createAccount({ plan: "custom", quota: 10, requests_per_second: 100 });
      await webhook(s1, apiKey, "/restart", ["usage.reset"]);
      for (let i = 0; i < 4; i++) expect((await s1.api("/api/generate", { key: apiKey, json: eventBody() })).status).toBe(200);
      await s1.stop();

      // While the process is down, the month turns: the test clock of a new process starts at
      // the real time, so the month that just ended is simulated by moving the stored usage and
      // the account's creation one month back.
      const now = new Date();
      const thisMonth = now.toISOString().slice(0, 7);
      const lastMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1)).toISOString().slice(0, 7);
      await execStoreSql(dbPath, "UPDATE usage_periods SET period = ? WHERE account_id = ? AND period = ?", [lastMonth, accountId, thisMonth]);
      await execStoreSql(dbPath, "UPDATE accounts SET created_at = created_at - ? WHERE id = ?", [40 * 86_400_000, accountId]);
      expect(r.at("/restart")).toHaveLength(0);

      const s2 = await startTestService(env);
      const [reset] = await r.waitForCount(1, "/restart");
      expect(JSON.parse(reset!.body)).toMatchObject({ event: "usage.reset", data: { previous_usage: 4, new_quota: 10, plan: "custom" } });
      await s2.advance(5);
      await s2.stop();

      const s3 = await startTestService(env);
      await s3.advance(60);
      expect(r.at("/restart")).toHaveLength(1);
      await s3.stop();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
