/**
 * The HTTP contract of docs/api.md, in process: the assembled app (createApp over the real
 * services and a real SQLite file) driven through `app.handle(new Request("http://localhost/…"))`,
 * with no listening socket and no worker threads. Fast enough to hold every rule of the order of
 * checks, the error envelope, 404/405, validation details and response shapes; the socket,
 * the render pool and the background worker are covered by test/e2e.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config.ts";
import { createApp, type App } from "../../src/app/app.ts";
import { silentLogger } from "../../src/logger.ts";
import { createInProcessRenderer } from "../../src/render/engines/in-process.ts";
import { prepareRendering } from "../../src/render/setup.ts";
import { createServices, type Services } from "../../src/services.ts";
import { apiRequest, type ApiInit } from "../support/harness.ts";

const ADMIN_TOKEN = "contract-admin-token-0123456789";

let dir: string;
let services: Services;
let app: App;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ogsmith-contract-"));
  const config = loadConfig({
    OG_DB_PATH: join(dir, "ogsmith.db"),
    OG_TEST_CLOCK: "1",
    OG_ADMIN_TOKEN: ADMIN_TOKEN,
    OG_BOOTSTRAP: "false",
    OG_LOG_LEVEL: "silent",
  });
  services = await createServices(config, { logger: silentLogger });
  const { templates } = await prepareRendering({ logger: silentLogger });
  app = createApp({ services, renderer: createInProcessRenderer(), templates });
});
afterAll(async () => {
  await services.close();
  rmSync(dir, { recursive: true, force: true });
});

function call(path: string, init: ApiInit = {}): Promise<Response> {
  return app.handle(apiRequest(`http://localhost${path}`, init));
}

const admin = (path: string, init: ApiInit = {}) => call(path, { ...init, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...init.headers } });

let emails = 0;
async function account(input: { plan?: string; status?: string; quota?: number; requests_per_second?: number } = {}): Promise<{ id: string; key: string }> {
  const res = await admin("/admin/accounts", {
    json: { email: `contract-${++emails}@example.com`, plan: "custom", quota: 100, requests_per_second: 100, ...input },
  });
  expect(res.status).toBe(201);
  const body = (await res.json()) as { account_id: string; api_key: string };
  return { id: body.account_id, key: body.api_key };
}

/** Asserts the one error envelope and returns it. */
async function envelope(
  res: Response,
  status: number,
  code: string,
): Promise<{ error: true; message: string; code: string; details?: { field: string; message: string; reason?: string }[] }> {
  const body = (await res.json()) as any;
  expect({ status: res.status, code: body.code }).toEqual({ status, code });
  expect(body.error).toBe(true);
  expect(typeof body.message).toBe("string");
  expect(body.message.length).toBeGreaterThan(0);
  for (const key of Object.keys(body)) expect(["error", "message", "code", "details"]).toContain(key);
  expect(res.headers.get("content-type")).toStartWith("application/json");
  expect(res.headers.get("x-request-id")).toMatch(/^req_/);
  return body;
}

describe("the order of checks", () => {
  test("no key: 401 MISSING_API_KEY, whatever the body", async () => {
    await envelope(await call("/api/generate", { body: "{not json" }), 401, "MISSING_API_KEY");
    await envelope(await call("/api/user/usage"), 401, "MISSING_API_KEY");
  });

  test("malformed, unknown and replaced keys are all 401 INVALID_API_KEY", async () => {
    await envelope(await call("/api/user/usage", { key: "og_short" }), 401, "INVALID_API_KEY");
    await envelope(await call("/api/user/usage", { key: `og_${"A".repeat(32)}` }), 401, "INVALID_API_KEY");
    const { id, key } = await account();
    const replaced = await admin(`/admin/accounts/${id}/keys`, { method: "POST" });
    expect(replaced.status).toBe(201);
    const body = await envelope(
      await call("/api/generate", { key, body: "{not json", headers: { "content-type": "application/json" } }),
      401,
      "INVALID_API_KEY",
    );
    expect(body.message).not.toContain(key);
  });

  test("subscription comes before validation: canceled and past-due accounts get 403 for a bad body", async () => {
    const canceled = await account({ status: "canceled" });
    await envelope(await call("/api/generate", { key: canceled.key, json: { nope: 1 } }), 403, "SUBSCRIPTION_CANCELED");
    const pastDue = await account({ status: "past_due" });
    await envelope(await call("/api/user/usage", { key: pastDue.key }), 403, "PAYMENT_PAST_DUE");
  });

  test("rate limit comes before validation; the window frees a second later", async () => {
    const { key } = await account({ quota: 10, requests_per_second: 1 });
    // The test clock stands still, so both requests fall in one 1-second window.
    const first = await call("/api/generate", { key, json: { title: "" } });
    await envelope(first, 400, "VALIDATION_ERROR");
    expect(first.headers.get("ratelimit-limit")).toBe("1");
    expect(first.headers.get("ratelimit-remaining")).toBe("0");
    const second = await call("/api/generate", { key, json: { title: "valid" } });
    await envelope(second, 429, "RATE_LIMIT_EXCEEDED");
    expect(Number(second.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    // A second later the window has room again.
    await services.testClock!.advance(1);
    const usage = await call("/api/user/usage", { key });
    expect(usage.status).toBe(200);
    expect(((await usage.json()) as { used: number }).used).toBe(0);
  });

  test("quota comes after validation: an exhausted account gets 400 for a bad body, 429 for a good one", async () => {
    const { key } = await account({ quota: 1 });
    const ok = await call("/api/generate", { key, json: { title: "The only one" } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("content-type")).toBe("image/png");
    expect(ok.headers.get("x-quota-limit")).toBe("1");
    expect(ok.headers.get("x-quota-remaining")).toBe("0");
    expect(new Uint8Array(await ok.arrayBuffer()).subarray(1, 4)).toEqual(new TextEncoder().encode("PNG"));
    await envelope(await call("/api/generate", { key, json: { subtitle: "no title" } }), 400, "VALIDATION_ERROR");
    const over = await envelope(await call("/api/generate", { key, json: { title: "One more" } }), 429, "QUOTA_EXCEEDED");
    expect(over.message).toBe("Monthly quota exceeded. Limit: 1 images.");
  });
});

describe("bodies", () => {
  let key: string;
  beforeAll(async () => {
    key = (await account()).key;
  });

  test("a body that does not parse is 400 INVALID_JSON", async () => {
    await envelope(await call("/api/generate", { key, body: '{"title": ', headers: { "content-type": "application/json" } }), 400, "INVALID_JSON");
  });

  test("a body that is not JSON is 415 UNSUPPORTED_MEDIA_TYPE", async () => {
    await envelope(
      await call("/api/generate", { key, body: "title=x", headers: { "content-type": "application/x-www-form-urlencoded" } }),
      415,
      "UNSUPPORTED_MEDIA_TYPE",
    );
  });

  test("a body over the route's limit (64 KiB; 8 MiB on generate) is 413 PAYLOAD_TOO_LARGE", async () => {
    await envelope(await call("/api/webhooks", { key, json: { url: "https://example.com/", pad: "y".repeat(70 * 1024) } }), 413, "PAYLOAD_TOO_LARGE");
    await envelope(await call("/api/generate", { key, json: { title: "x", subtitle: "y".repeat(8 * 1024 * 1024) } }), 413, "PAYLOAD_TOO_LARGE");
  });

  test("VALIDATION_ERROR lists every bad field by name", async () => {
    const body = await envelope(
      await call("/api/generate", { key, json: { subtitle: "s".repeat(301), theme: "neon", colour: "red", width: 100 } }),
      400,
      "VALIDATION_ERROR",
    );
    const fields = body.details!.map((d) => d.field).sort();
    expect(fields).toEqual(["colour", "subtitle", "theme", "title", "width"]);
    for (const problem of body.details!) expect(problem.message.length).toBeGreaterThan(0);
  });

  test("a field of another template is refused with a message naming that template", async () => {
    const body = await envelope(await call("/api/generate", { key, json: { title: "x", author_name: "Ada" } }), 400, "VALIDATION_ERROR");
    expect(body.details).toHaveLength(1);
    expect(body.details![0]!.field).toBe("author_name");
    expect(body.details![0]!.message).toContain("blog");
  });

  test("an unknown template is 400 UNKNOWN_TEMPLATE", async () => {
    await envelope(await call("/api/generate", { key, json: { template: "nope", title: "x" } }), 400, "UNKNOWN_TEMPLATE");
  });

  test("none of these counted", async () => {
    const usage = (await (await call("/api/user/usage", { key })).json()) as { used: number };
    expect(usage.used).toBe(0);
  });
});

describe("routes that do not exist", () => {
  test("an unknown path is 404 NOT_FOUND in the envelope", async () => {
    await envelope(await call("/no/such/page"), 404, "NOT_FOUND");
    const { key } = await account();
    await envelope(await call("/api/no-such-route", { key }), 404, "NOT_FOUND");
  });

  test("a known path with another method is 405 METHOD_NOT_ALLOWED with Allow", async () => {
    const { key } = await account();
    const res = await call("/api/user/usage", { key, method: "DELETE" });
    await envelope(res, 405, "METHOD_NOT_ALLOWED");
    expect(res.headers.get("allow")).toContain("GET");
  });

  test("another account's webhook is 404 WEBHOOK_NOT_FOUND, like one that never existed", async () => {
    const { key } = await account();
    await envelope(await call("/api/webhooks/wh_doesnotexist/deliveries", { key }), 404, "WEBHOOK_NOT_FOUND");
  });

  test("the admin API without the right token is 401 UNAUTHORIZED", async () => {
    await envelope(await call("/admin/accounts/acc_x"), 401, "UNAUTHORIZED");
    await envelope(await call("/admin/accounts/acc_x", { headers: { authorization: "Bearer wrong-token-0123456789" } }), 401, "UNAUTHORIZED");
  });
});

describe("shapes", () => {
  test("GET /api/user/usage: the documented fields, two-decimal percent, next 1st of the month", async () => {
    const { key } = await account({ quota: 3 });
    expect((await call("/api/generate", { key, json: { title: "one of three" } })).status).toBe(200);
    const res = await call("/api/user/usage", { key });
    expect(res.status).toBe(200);
    expect(res.headers.get("ratelimit-limit")).toBe("100");
    expect(res.headers.get("ratelimit-remaining")).not.toBeNull();
    expect(res.headers.get("ratelimit-reset")).not.toBeNull();
    const usage = (await res.json()) as Record<string, unknown>;
    const now = new Date(services.clock.now());
    const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
    expect(usage).toEqual({ plan: "custom", quota: 3, used: 1, remaining: 2, percent_used: 33.33, reset_date: next });
    expect(usage.reset_date).toMatch(/^\d{4}-\d{2}-01T00:00:00\.000Z$/);
  });

  test("GET /api/templates: id, description and typed fields for both built-ins", async () => {
    const { key } = await account();
    const res = await call("/api/templates", { key });
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as {
      data: { id: string; description: string; fields: { name: string; type: string; required: boolean; max_length: number }[] }[];
    };
    expect(data.map((t) => t.id)).toEqual(expect.arrayContaining(["event", "blog"]));
    const event = data.find((t) => t.id === "event")!;
    expect(event.fields.find((f) => f.name === "title")).toMatchObject({ name: "title", type: "text", required: true, max_length: 200 });
    // An image field takes an http(s) URL of 2,048 characters or a data: image of 5 MiB (7 MiB of characters at most).
    expect(event.fields.find((f) => f.name === "speaker_avatar_url")).toMatchObject({
      type: "image_url",
      required: false,
      max_length: 7 * 1024 * 1024,
      max_url_length: 2048,
      max_image_bytes: 5 * 1024 * 1024,
    });
  });

  test("GET /healthz answers without a key and carries a request id", async () => {
    const res = await call("/healthz");
    expect(res.status).toBe(200);
    expect(res.headers.get("x-request-id")).toMatch(/^req_/);
  });
});
