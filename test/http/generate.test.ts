/**
 * POST /api/generate in process (test/support/in-process.ts): the documented order of checks
 * (key, subscription, rate limit, validation, quota), body parsing and its limits, validation
 * details, and the image answer's headers.
 */
import { beforeAll, describe, expect, test, afterAll } from "bun:test";
import { envelope } from "../support/envelope.ts";
import { customAccount, useInProcessApp, startInProcessApp, type InProcessApp } from "../support/in-process.ts";
import { eventBody } from "../support/harness.ts";

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

describe("authentication", () => {
  let s: InProcessApp;
  beforeAll(async () => {
    s = await startInProcessApp();
  });
  afterAll(() => s.stop());

  async function expectError(res: Response, status: number, code: string) {
    expect(res.status).toBe(status);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(res.headers.get("x-request-id")).toMatch(/^req_/);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body.error).toBe(true);
    expect(body.code).toBe(code);
    expect(typeof body.message).toBe("string");
    return body;
  }

  const usedOf = async (key: string) => {
    const res = await s.api("/api/user/usage", { key });
    return ((await res.json()) as { used: number }).used;
  };

  describe("authentication pipeline (the documented order)", () => {
    test("missing key → 401 MISSING_API_KEY, even with a malformed body", async () => {
      await expectError(await s.api("/api/user/usage"), 401, "MISSING_API_KEY");
      await expectError(await s.api("/api/generate", { body: "{not json", headers: { "content-type": "application/json" } }), 401, "MISSING_API_KEY");
      await expectError(await s.api("/api/user/usage", { key: "" }), 401, "MISSING_API_KEY");
    });

    test("unknown, malformed and revoked keys → 401 INVALID_API_KEY", async () => {
      await expectError(await s.api("/api/user/usage", { key: "og_" + "A".repeat(32) }), 401, "INVALID_API_KEY");
      await expectError(await s.api("/api/user/usage", { key: "not-a-key" }), 401, "INVALID_API_KEY");
      await expectError(await s.api("/api/user/usage", { key: "og_short" }), 401, "INVALID_API_KEY");
    });

    test("canceled subscription → 403 SUBSCRIPTION_CANCELED; past due → 403 PAYMENT_PAST_DUE; nothing counted", async () => {
      const canceled = await s.createAccount({ plan: "pro", status: "canceled" });
      await expectError(await s.api("/api/generate", { key: canceled.apiKey, json: eventBody() }), 403, "SUBSCRIPTION_CANCELED");
      const pastDue = await s.createAccount({ plan: "pro", status: "past_due" });
      await expectError(await s.api("/api/generate", { key: pastDue.apiKey, json: eventBody() }), 403, "PAYMENT_PAST_DUE");
      // Reactivating the account lets the same key through, and shows nothing was counted.
      await s.admin(`/admin/accounts/${pastDue.accountId}`, { method: "PATCH", json: { status: "active" } });
      expect(await usedOf(pastDue.apiKey)).toBe(0);
    });

    test("a replaced key stops at once; the new key works (API and CLI-equivalent admin route)", async () => {
      const { accountId, apiKey } = await s.createAccount({ plan: "pro" });
      expect((await s.api("/api/user/usage", { key: apiKey })).status).toBe(200);
      const res = await s.admin(`/admin/accounts/${accountId}/keys`, { method: "POST" });
      expect(res.status).toBe(201);
      const { api_key: newKey } = (await res.json()) as { api_key: string };
      expect(newKey).toMatch(/^og_[A-Za-z0-9]{32}$/);
      expect(newKey).not.toBe(apiKey);
      await expectError(await s.api("/api/user/usage", { key: apiKey }), 401, "INVALID_API_KEY");
      expect((await s.api("/api/user/usage", { key: newKey })).status).toBe(200);
    });

    test("keys are stored only as SHA-256 hashes", async () => {
      const { accountId, apiKey } = await s.createAccount();
      const rows = await s.service.services.store.listApiKeys(accountId);
      expect(rows.some((r) => r.keyHash === new Bun.CryptoHasher("sha256").update(apiKey).digest("hex"))).toBe(true);
      const dump = JSON.stringify(rows);
      expect(dump).not.toContain(apiKey);
    });

    test("admin API: off without a token is 404; wrong token is 401", async () => {
      const res = await s.api("/admin/accounts", { json: { email: "a@b.co", plan: "free" }, headers: { authorization: "Bearer wrong-token-xxxxxxxxxxxx" } });
      await expectError(res, 401, "UNAUTHORIZED");
      const off = await startInProcessApp({ OG_ADMIN_TOKEN: "" });
      try {
        await expectError(await off.api("/admin/accounts/acc_x", { headers: { authorization: "Bearer anything" } }), 404, "NOT_FOUND");
      } finally {
        await off.stop();
      }
    });

    test("unknown route → 404 NOT_FOUND, wrong method → 405 with Allow", async () => {
      const { apiKey } = await s.createAccount({ plan: "pro" });
      await expectError(await s.api("/api/nope", { key: apiKey }), 404, "NOT_FOUND");
      const res = await s.api("/api/generate", { key: apiKey, method: "GET" });
      await expectError(res, 405, "METHOD_NOT_ALLOWED");
      expect(res.headers.get("allow")).toBe("POST");
    });
  });
});

describe("validation", () => {
  let s: InProcessApp;
  let key: string;
  beforeAll(async () => {
    s = await startInProcessApp();
    key = (await s.createAccount({ plan: "custom", quota: 1000, requests_per_second: 1000 })).apiKey;
  });
  afterAll(() => s.stop());

  type ErrorBody = { error: true; code: string; message: string; details?: { field: string; message: string }[] };

  async function rejected(res: Response, status: number, code: string): Promise<ErrorBody> {
    expect(res.status).toBe(status);
    const body = (await res.json()) as ErrorBody;
    expect(body).toMatchObject({ error: true, code });
    return body;
  }

  const fieldsOf = (body: ErrorBody) => (body.details ?? []).map((d) => d.field).sort();

  describe("POST /api/generate validation; nothing is counted", () => {
    afterAll(async () => {
      const usage = (await (await s.api("/api/user/usage", { key })).json()) as { used: number };
      expect(usage.used).toBe(0);
    });

    test("missing title", async () => {
      const body = await rejected(await s.api("/api/generate", { key, json: { subtitle: "x" } }), 400, "VALIDATION_ERROR");
      expect(body.details).toEqual([{ field: "title", message: "is required" }]);
    });

    test("empty and over-long title", async () => {
      expect(fieldsOf(await rejected(await s.api("/api/generate", { key, json: { title: "   " } }), 400, "VALIDATION_ERROR"))).toEqual(["title"]);
      const long = await rejected(await s.api("/api/generate", { key, json: { title: "x".repeat(201) } }), 400, "VALIDATION_ERROR");
      expect(long.details![0]!.message).toContain("at most 200");
    });

    test("bad theme, size, format, URL, types: every bad field listed at once", async () => {
      const body = await rejected(
        await s.api("/api/generate", {
          key,
          json: eventBody({
            theme: "blue",
            width: 100,
            height: 2401.5,
            format: "gif",
            logo_url: "ftp://x/y.png",
            speaker_avatar_url: "javascript:alert(1)",
            subtitle: 42,
            location: "x".repeat(301),
          }),
        }),
        400,
        "VALIDATION_ERROR",
      );
      expect(fieldsOf(body)).toEqual(["format", "height", "location", "logo_url", "speaker_avatar_url", "subtitle", "theme", "width"]);
    });

    test("unknown fields rejected by name; a field of another template says so", async () => {
      const body = await rejected(await s.api("/api/generate", { key, json: eventBody({ colour: "red", author_name: "Ada" }) }), 400, "VALIDATION_ERROR");
      expect(fieldsOf(body)).toEqual(["author_name", "colour"]);
      expect(body.details!.find((d) => d.field === "author_name")!.message).toContain("blog template");
    });

    test("unknown template → 400 UNKNOWN_TEMPLATE", async () => {
      const body = await rejected(await s.api("/api/generate", { key, json: eventBody({ template: "poster" }) }), 400, "UNKNOWN_TEMPLATE");
      expect(body.message).toContain("poster");
    });

    test("malformed JSON → 400 INVALID_JSON; non-object JSON → VALIDATION_ERROR", async () => {
      await rejected(await s.api("/api/generate", { key, body: '{"title": ', headers: { "content-type": "application/json" } }), 400, "INVALID_JSON");
      const arr = await rejected(await s.api("/api/generate", { key, json: ["title"] }), 400, "VALIDATION_ERROR");
      expect(fieldsOf(arr)).toEqual(["body"]);
    });

    test("wrong content type → 415 UNSUPPORTED_MEDIA_TYPE", async () => {
      await rejected(
        await s.api("/api/generate", { key, body: JSON.stringify(eventBody()), headers: { "content-type": "text/plain" } }),
        415,
        "UNSUPPORTED_MEDIA_TYPE",
      );
      await rejected(
        await s.api("/api/generate", { key, body: "title=x", headers: { "content-type": "application/x-www-form-urlencoded" } }),
        415,
        "UNSUPPORTED_MEDIA_TYPE",
      );
    });

    test("body over 8 MiB (generate's limit) → 413 PAYLOAD_TOO_LARGE, declared or streamed", async () => {
      const big = JSON.stringify(eventBody({ subtitle: "x".repeat(8 * 1024 * 1024) }));
      await rejected(await s.api("/api/generate", { key, body: big, headers: { "content-type": "application/json" } }), 413, "PAYLOAD_TOO_LARGE");
      // Chunked, no Content-Length: the stream is read with a cap.
      const stream = new ReadableStream({
        start(controller) {
          for (let i = 0; i < 9; i++) controller.enqueue(new TextEncoder().encode("x".repeat(1024 * 1024)));
          controller.close();
        },
      });
      await rejected(await s.api("/api/generate", { key, body: stream, headers: { "content-type": "application/json" } }), 413, "PAYLOAD_TOO_LARGE");
    });

    test("no stack traces or internals in error bodies", async () => {
      const res = await s.api("/api/generate", { key, body: "{", headers: { "content-type": "application/json" } });
      const text = await res.text();
      expect(text).not.toMatch(/at .*\.ts:\d+|node_modules|stack/i);
    });
  });

  describe("admin API validation", () => {
    test("custom plan needs quota and rate; other plans refuse them", async () => {
      const a = await rejected(await s.admin("/admin/accounts", { json: { email: "c@example.com", plan: "custom" } }), 400, "VALIDATION_ERROR");
      expect(fieldsOf(a)).toEqual(["quota", "requests_per_second"]);
      const b = await rejected(await s.admin("/admin/accounts", { json: { email: "c@example.com", plan: "pro", quota: 5 } }), 400, "VALIDATION_ERROR");
      expect(fieldsOf(b)).toEqual(["quota"]);
    });

    test("unknown fields and bad values named", async () => {
      const body = await rejected(await s.admin("/admin/accounts", { json: { email: "nope", plan: "gold", extra: true } }), 400, "VALIDATION_ERROR");
      expect(fieldsOf(body)).toEqual(["email", "extra", "plan"]);
    });

    test("unknown account → 404", async () => {
      await rejected(await s.admin("/admin/accounts/acc_missing"), 404, "NOT_FOUND");
    });
  });
});
