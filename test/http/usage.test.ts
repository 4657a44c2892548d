/**
 * GET /api/user/usage in process: the documented fields and headers.
 */
import { describe, expect, test } from "bun:test";
import { customAccount, useInProcessApp } from "../support/in-process.ts";

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
