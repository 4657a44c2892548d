/**
 * POST /api/generate in process (test/support/in-process.ts): the documented order of checks
 * (key, subscription, rate limit, validation, quota), body parsing and its limits, validation
 * details, and the image answer's headers.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { envelope } from "../support/envelope.ts";
import { customAccount, useInProcessApp } from "../support/in-process.ts";

const s = useInProcessApp();

describe("the order of checks", () => {
  test("no key: 401 MISSING_API_KEY, whatever the body", async () => {
    await envelope(await s.api("/api/generate", { body: "{not json" }), 401, "MISSING_API_KEY");
    await envelope(await s.api("/api/user/usage"), 401, "MISSING_API_KEY");
  });

  test("malformed, unknown and replaced keys are all 401 INVALID_API_KEY", async () => {
    await envelope(await s.api("/api/user/usage", { key: "og_short" }), 401, "INVALID_API_KEY");
    await envelope(await s.api("/api/user/usage", { key: `og_${"A".repeat(32)}` }), 401, "INVALID_API_KEY");
    const { id, key } = await customAccount(s);
    const replaced = await s.admin(`/admin/accounts/${id}/keys`, { method: "POST" });
    expect(replaced.status).toBe(201);
    const body = await envelope(
      await s.api("/api/generate", { key, body: "{not json", headers: { "content-type": "application/json" } }),
      401,
      "INVALID_API_KEY",
    );
    expect(body.message).not.toContain(key);
  });

  test("subscription comes before validation: canceled and past-due accounts get 403 for a bad body", async () => {
    const canceled = await customAccount(s, { status: "canceled" });
    await envelope(await s.api("/api/generate", { key: canceled.key, json: { nope: 1 } }), 403, "SUBSCRIPTION_CANCELED");
    const pastDue = await customAccount(s, { status: "past_due" });
    await envelope(await s.api("/api/user/usage", { key: pastDue.key }), 403, "PAYMENT_PAST_DUE");
  });

  test("rate limit comes before validation; the window frees a second later", async () => {
    const { key } = await customAccount(s, { quota: 10, requests_per_second: 1 });
    // The test clock stands still, so both requests fall in one 1-second window.
    const first = await s.api("/api/generate", { key, json: { title: "" } });
    await envelope(first, 400, "VALIDATION_ERROR");
    expect(first.headers.get("ratelimit-limit")).toBe("1");
    expect(first.headers.get("ratelimit-remaining")).toBe("0");
    const second = await s.api("/api/generate", { key, json: { title: "valid" } });
    await envelope(second, 429, "RATE_LIMIT_EXCEEDED");
    expect(Number(second.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    // A second later the window has room again.
    await s.service.services.testClock!.advance(1);
    const usage = await s.api("/api/user/usage", { key });
    expect(usage.status).toBe(200);
    expect(((await usage.json()) as { used: number }).used).toBe(0);
  });

  test("quota comes after validation: an exhausted account gets 400 for a bad body, 429 for a good one", async () => {
    const { key } = await customAccount(s, { quota: 1 });
    const ok = await s.api("/api/generate", { key, json: { title: "The only one" } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("content-type")).toBe("image/png");
    expect(ok.headers.get("x-quota-limit")).toBe("1");
    expect(ok.headers.get("x-quota-remaining")).toBe("0");
    expect(new Uint8Array(await ok.arrayBuffer()).subarray(1, 4)).toEqual(new TextEncoder().encode("PNG"));
    await envelope(await s.api("/api/generate", { key, json: { subtitle: "no title" } }), 400, "VALIDATION_ERROR");
    const over = await envelope(await s.api("/api/generate", { key, json: { title: "One more" } }), 429, "QUOTA_EXCEEDED");
    expect(over.message).toBe("Monthly quota exceeded. Limit: 1 images.");
  });
});

describe("bodies", () => {
  let key: string;
  beforeAll(async () => {
    key = (await customAccount(s)).key;
  });

  test("a body that does not parse is 400 INVALID_JSON", async () => {
    await envelope(await s.api("/api/generate", { key, body: '{"title": ', headers: { "content-type": "application/json" } }), 400, "INVALID_JSON");
  });

  test("a body that is not JSON is 415 UNSUPPORTED_MEDIA_TYPE", async () => {
    await envelope(
      await s.api("/api/generate", { key, body: "title=x", headers: { "content-type": "application/x-www-form-urlencoded" } }),
      415,
      "UNSUPPORTED_MEDIA_TYPE",
    );
  });

  test("a body over the route's limit (64 KiB; 8 MiB on generate) is 413 PAYLOAD_TOO_LARGE", async () => {
    await envelope(await s.api("/api/webhooks", { key, json: { url: "https://example.com/", pad: "y".repeat(70 * 1024) } }), 413, "PAYLOAD_TOO_LARGE");
    await envelope(await s.api("/api/generate", { key, json: { title: "x", subtitle: "y".repeat(8 * 1024 * 1024) } }), 413, "PAYLOAD_TOO_LARGE");
  });

  test("VALIDATION_ERROR lists every bad field by name", async () => {
    const body = await envelope(
      await s.api("/api/generate", { key, json: { subtitle: "s".repeat(301), theme: "neon", colour: "red", width: 100 } }),
      400,
      "VALIDATION_ERROR",
    );
    const fields = body.details!.map((d) => d.field).sort();
    expect(fields).toEqual(["colour", "subtitle", "theme", "title", "width"]);
    for (const problem of body.details!) expect(problem.message.length).toBeGreaterThan(0);
  });

  test("a field of another template is refused with a message naming that template", async () => {
    const body = await envelope(await s.api("/api/generate", { key, json: { title: "x", author_name: "Ada" } }), 400, "VALIDATION_ERROR");
    expect(body.details).toHaveLength(1);
    expect(body.details![0]!.field).toBe("author_name");
    expect(body.details![0]!.message).toContain("blog");
  });

  test("an unknown template is 400 UNKNOWN_TEMPLATE", async () => {
    await envelope(await s.api("/api/generate", { key, json: { template: "nope", title: "x" } }), 400, "UNKNOWN_TEMPLATE");
  });

  test("none of these counted", async () => {
    const usage = (await (await s.api("/api/user/usage", { key })).json()) as { used: number };
    expect(usage.used).toBe(0);
  });
});
