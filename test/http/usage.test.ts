/**
 * GET /api/user/usage and metering in process (test/support/in-process.ts): the documented
 * fields and headers, quota and rate limit, and the messages that say how to proceed.
 */
import { describe, expect, test, afterAll, beforeAll } from "bun:test";
import { customAccount, useInProcessApp, startInProcessApp, type InProcessApp } from "../support/in-process.ts";
import { eventBody } from "../support/harness.ts";

const s = useInProcessApp();

describe("shapes", () => {
  test("GET /api/user/usage: the documented fields, two-decimal percent, next 1st of the month", async () => {
    const { key } = await customAccount(s, { quota: 3 });
    expect((await s.api("/api/generate", { key, json: { title: "one of three" } })).status).toBe(200);
    const res = await s.api("/api/user/usage", { key });
    expect(res.status).toBe(200);
    expect(res.headers.get("ratelimit-limit")).toBe("100");
    expect(res.headers.get("ratelimit-remaining")).not.toBeNull();
    expect(res.headers.get("ratelimit-reset")).not.toBeNull();
    const usage = (await res.json()) as Record<string, unknown>;
    const now = new Date(s.now());
    const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
    expect(usage).toEqual({ plan: "custom", quota: 3, used: 1, remaining: 2, percent_used: 33.33, reset_date: next });
    expect(usage.reset_date).toMatch(/^\d{4}-\d{2}-01T00:00:00\.000Z$/);
  });
});

describe("metering", () => {
  let s: InProcessApp;
  beforeAll(async () => {
    s = await startInProcessApp();
  });
  afterAll(() => s.stop());

  type Usage = { plan: string; quota: number; used: number; remaining: number; percent_used: number; reset_date: string };
  const usage = async (key: string) => (await (await s.api("/api/user/usage", { key })).json()) as Usage;

  /** Moves the test clock to an absolute instant. */
  async function clockTo(iso: string) {
    const target = Date.parse(iso);
    const delta = (target - s.now()) / 1000;
    if (delta < 0) throw new Error(`clock is already past ${iso}`);
    await s.advance(delta);
  }

  describe("usage and the monthly period", () => {
    test("usage record numbers, rounding and reset_date across a month boundary", async () => {
      // Jump to a known instant well ahead of the real date, so the test never depends on today.
      const year = new Date(s.now()).getUTCFullYear() + 1;
      await clockTo(`${year}-01-31T23:59:00.000Z`);
      const { apiKey } = await s.createAccount({ plan: "custom", quota: 3, requests_per_second: 100 });

      let u = await usage(apiKey);
      expect(u).toEqual({ plan: "custom", quota: 3, used: 0, remaining: 3, percent_used: 0, reset_date: `${year}-02-01T00:00:00.000Z` });

      expect((await s.api("/api/generate", { key: apiKey, json: eventBody() })).status).toBe(200);
      u = await usage(apiKey);
      expect(u.used).toBe(1);
      expect(u.remaining).toBe(2);
      expect(u.percent_used).toBe(33.33); // two decimals

      // 59 s later it is still January; one second more and the quota is fresh.
      await s.advance(59);
      expect((await usage(apiKey)).used).toBe(1);
      await s.advance(1);
      u = await usage(apiKey);
      expect(u).toEqual({ plan: "custom", quota: 3, used: 0, remaining: 3, percent_used: 0, reset_date: `${year}-03-01T00:00:00.000Z` });
    });

    test("quota exhaustion → 429 QUOTA_EXCEEDED with the limit in the message; nothing more counted; next month works", async () => {
      const { apiKey } = await s.createAccount({ plan: "custom", quota: 2, requests_per_second: 100 });
      for (let i = 0; i < 2; i++) {
        const res = await s.api("/api/generate", { key: apiKey, json: eventBody() });
        expect(res.status).toBe(200);
        expect(res.headers.get("x-quota-limit")).toBe("2");
        expect(res.headers.get("x-quota-remaining")).toBe(String(1 - i));
      }
      const res = await s.api("/api/generate", { key: apiKey, json: eventBody() });
      expect(res.status).toBe(429);
      expect(await res.json()).toEqual({ error: true, code: "QUOTA_EXCEEDED", message: "Monthly quota exceeded. Limit: 2 images." });
      expect((await usage(apiKey)).used).toBe(2);

      const reset = Date.parse((await usage(apiKey)).reset_date);
      await s.advance((reset - s.now()) / 1000);
      expect((await s.api("/api/generate", { key: apiKey, json: eventBody() })).status).toBe(200);
      expect((await usage(apiKey)).used).toBe(1);
    });

    test("free plan quota is 25", async () => {
      const { apiKey } = await s.createAccount({ plan: "free" });
      expect(await usage(apiKey)).toMatchObject({ plan: "free", quota: 25, used: 0, remaining: 25 });
    });

    test("200 concurrent requests against 10 remaining units render exactly 10 images", async () => {
      const { apiKey } = await s.createAccount({ plan: "custom", quota: 10, requests_per_second: 10_000 });
      const responses = await Promise.all(
        Array.from({ length: 200 }, (_, i) => s.api("/api/generate", { key: apiKey, json: eventBody({ title: `Talk ${i}` }) })),
      );
      const statuses = responses.map((r) => r.status);
      expect(statuses.filter((x) => x === 200).length).toBe(10);
      expect(statuses.filter((x) => x === 429).length).toBe(190);
      const images = await Promise.all(responses.filter((r) => r.status === 200).map((r) => r.arrayBuffer()));
      for (const bytes of images) expect(new Uint8Array(bytes).subarray(1, 4)).toEqual(new TextEncoder().encode("PNG"));
      await Promise.all(responses.filter((r) => r.status !== 200).map((r) => r.text()));
      expect(await usage(apiKey)).toMatchObject({ used: 10, remaining: 0, percent_used: 100 });
    });

    test("requests ending in 4xx are not counted", async () => {
      const { apiKey } = await s.createAccount({ plan: "custom", quota: 5, requests_per_second: 100 });
      await s.api("/api/generate", { key: apiKey, json: { subtitle: "no title" } });
      await s.api("/api/generate", { key: apiKey, json: eventBody({ template: "nope" }) });
      const garbage = await s.api("/api/generate", { key: apiKey, json: eventBody({ logo_url: "data:image/png;base64,AAAA" }) });
      expect(garbage.status).toBe(422); // not a 500: bytes that are no image are the client's problem
      expect(((await garbage.json()) as any).details[0]).toMatchObject({ field: "logo_url", reason: "not_an_image" });
      expect((await usage(apiKey)).used).toBe(0);
    });
  });

  describe("rate limiting (sliding window per key)", () => {
    test("starter admits exactly 5 of 20 simultaneous requests, 5 more after one second; refused requests are not counted", async () => {
      const { apiKey } = await s.createAccount({ plan: "starter" });
      const burst = async () => Promise.all(Array.from({ length: 20 }, () => s.api("/api/generate", { key: apiKey, json: eventBody() })));

      let responses = await burst();
      expect(responses.filter((r) => r.status === 200).length).toBe(5);
      const refused = responses.filter((r) => r.status === 429);
      expect(refused.length).toBe(15);
      for (const r of refused) {
        expect(((await r.json()) as { code: string }).code).toBe("RATE_LIMIT_EXCEEDED");
        expect(Number(r.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
        expect(r.headers.get("ratelimit-limit")).toBe("5");
        expect(r.headers.get("ratelimit-remaining")).toBe("0");
      }
      await Promise.all(responses.filter((r) => r.status === 200).map((r) => r.arrayBuffer()));

      // Still inside the same second: nothing more, not even a usage read.
      await s.advance(0.999);
      expect((await s.api("/api/user/usage", { key: apiKey })).status).toBe(429);

      await s.advance(0.001);
      responses = await burst();
      expect(responses.filter((r) => r.status === 200).length).toBe(5);
      await Promise.all(responses.map((r) => r.arrayBuffer()));

      await s.advance(1);
      expect((await usage(apiKey)).used).toBe(10);
    });

    test("every plan's rate: the n+1st request within one second is refused", async () => {
      for (const [plan, rate] of [
        ["free", 1],
        ["pro", 10],
        ["agency", 25],
        ["publishing", 50],
      ] as const) {
        const { apiKey } = await s.createAccount({ plan });
        const responses = await Promise.all(Array.from({ length: rate + 1 }, () => s.api("/api/user/usage", { key: apiKey })));
        expect(responses.filter((r) => r.status === 200).length).toBe(rate);
        expect(responses.filter((r) => r.status === 429).length).toBe(1);
        const ok = responses.find((r) => r.status === 200)!;
        expect(ok.headers.get("ratelimit-limit")).toBe(String(rate));
      }
    });

    test("RateLimit headers on every authenticated response", async () => {
      const { apiKey } = await s.createAccount({ plan: "pro" });
      const res = await s.api("/api/user/usage", { key: apiKey });
      expect(res.headers.get("ratelimit-limit")).toBe("10");
      expect(res.headers.get("ratelimit-remaining")).toBe("9");
      expect(res.headers.get("ratelimit-reset")).not.toBeNull();
      const bad = await s.api("/api/generate", { key: apiKey, json: {} });
      expect(bad.status).toBe(400);
      expect(bad.headers.get("ratelimit-remaining")).toBe("8");
    });
  });

  describe("POST /api/generate success", () => {
    test("PNG 1200×630 with the documented headers", async () => {
      const { apiKey } = await s.createAccount({ plan: "pro" });
      const res = await s.api("/api/generate", {
        key: apiKey,
        json: eventBody({ subtitle: "Talks", date: "May 5", time: "18:00 CET", location: "Berlin", speaker_name: "Ada", theme: "light" }),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("image/png");
      expect(res.headers.get("x-request-id")).toMatch(/^req_/);
      expect(Number(res.headers.get("x-generation-time-ms"))).toBeGreaterThanOrEqual(0);
      expect(res.headers.get("x-quota-limit")).toBe("2000");
      expect(res.headers.get("x-quota-remaining")).toBe("1999");
      expect(res.headers.get("etag")).toMatch(/^".+"$/);
      const png = new DataView(await res.arrayBuffer());
      expect(png.getUint32(16)).toBe(1200); // IHDR width
      expect(png.getUint32(20)).toBe(630); // IHDR height
    });
  });
});

/** A newcomer's paper cut: the rate-limit message reads well for one request per second. */
describe("messages that say how to proceed", () => {
  let s: InProcessApp;
  beforeAll(async () => {
    s = await startInProcessApp();
  });
  afterAll(() => s.stop());

  test("the rate-limit message is grammatical for one request per second", async () => {
    const { apiKey: freeKey } = await s.createAccount({ plan: "free" });
    let limited: Response | undefined;
    for (let i = 0; i < 3 && !limited; i++) {
      const res = await s.api("/api/user/usage", { key: freeKey });
      if (res.status === 429) limited = res;
    }
    expect(limited).toBeDefined();
    expect(((await limited!.json()) as { message: string }).message).toContain("Rate limit exceeded: 1 request per second.");
  });
});
