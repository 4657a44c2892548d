/**
 * POST /api/generate in process (test/support/in-process.ts): the documented order of checks
 * (key, subscription, rate limit, validation, quota), authentication, body parsing and its
 * limits, validation details, data: image values, formats and qualities, and missing glyphs,
 * drawn by real render processes.
 */
import { beforeAll, describe, expect, test, afterAll } from "bun:test";
import { envelope } from "../support/envelope.ts";
import { customAccount, useInProcessApp, startInProcessApp, type InProcessApp } from "../support/in-process.ts";
import { eventBody } from "../support/harness.ts";
import { MAX_IMAGE_BODY_BYTES } from "../../src/http/body.ts";
import { buildSignedUrl } from "../../src/signing/index.ts";
import { testEngine } from "../support/engines.ts";
import { decodePng, fractionNear, paddedPngDataUri, type DecodedPng } from "../support/png.ts";
import { decodeJpeg, decodeWebp } from "../support/decode.ts";
import { startInProcessRenderService, type RenderTestService } from "../support/render-service.ts";
import { createLogger } from "../../src/logger.ts";
import { createServiceRenderer } from "../../src/render/renderer.ts";
import { createTemplateRegistry } from "../../src/templates/registry.ts";
import { renderRequest } from "../support/render-request.ts";

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

/**
 * Images without hosting (docs/templates.md, Images; docs/api.md, body limits): an `image_url`
 * value that is a data: URI is bounded by what it decodes to (5 MiB, the bound of any image),
 * not by the 2,048 characters of a URL, in POST /api/generate and in the previews (the API's and
 * the dashboard's), whose bodies may be 8 MiB; a signed URL's values, and POST /api/image-urls
 * that signs them, keep 2,048. Drawn on OG_TEST_ENGINE's engine.
 */
describe("data: image values", () => {
  const MAGENTA: [number, number, number] = [255, 0, 255];
  const MiB = 1024 * 1024;
  /** What a data: URI's payload decodes to. */
  const decodedBytes = (uri: string) => Buffer.from(uri.slice(uri.indexOf(",") + 1), "base64").byteLength;

  let s: InProcessApp;
  let key: string;
  let cookie: string;
  let origin: string;

  beforeAll(async () => {
    s = await startInProcessApp({ OG_TEST_CLOCK: "0", OG_RENDER_ENGINE: testEngine() }, { renderer: { pool: { warmUp: false } } });
    key = (await s.createAccount({ plan: "custom", quota: 1_000, requests_per_second: 1_000 })).apiKey;
    origin = new URL(s.url).origin;
    const session = await s.fetch(`${s.url}/dashboard/api/session`, {
      method: "POST",
      headers: { origin, "content-type": "application/json" },
      body: JSON.stringify({ api_key: key }),
    });
    expect(session.status).toBe(200);
    cookie = session.headers.get("set-cookie")!.split(";")[0]!;
  });
  afterAll(async () => {
    await s.stop();
  });

  const used = async () => ((await (await s.api("/api/user/usage", { key })).json()) as { used: number }).used;
  const png = async (res: Response): Promise<DecodedPng> => decodePng(new Uint8Array(await res.arrayBuffer()));
  const dashboard = (path: string, body: unknown) =>
    s.fetch(`${s.url}/dashboard/api${path}`, { method: "POST", headers: { origin, cookie, "content-type": "application/json" }, body: JSON.stringify(body) });

  async function expectProblem(res: Response, status: number, code: string, field: string, message: RegExp | string): Promise<void> {
    expect(res.status).toBe(status);
    const body = (await res.json()) as { error: boolean; code: string; details: { field: string; message: string }[] };
    expect(body).toMatchObject({ error: true, code });
    expect(body.details).toEqual([{ field, message: typeof message === "string" ? message : expect.stringMatching(message) }]);
  }

  /** A card with one image field drawn 300×300 at (100, 100) on a flat dark blue. */
  const AVATAR = {
    id: "avatar",
    fields: [
      { name: "title", type: "text" },
      { name: "avatar", type: "image_url" },
    ],
    sample: { title: "Sample" },
    html: '<div style="display: flex; width: 100%; height: 100%; background-color: #203040"><img src="{{avatar}}" width="300" height="300" style="margin: 100px"></div>',
  };

  /** A 64×64 magenta PNG padded to about `bytes` decoded, as a data: URI far over 2,048 characters. */
  const avatarOf = (bytes: number) => paddedPngDataUri(64, 64, MAGENTA, bytes);

  describe("POST /api/generate", () => {
    test("a data: avatar of 4.9 MiB (6.5 million characters) is drawn; the body stays within 8 MiB", async () => {
      const avatar = avatarOf(4.9 * MiB);
      expect(avatar.length).toBeGreaterThan(6_000_000);
      expect(decodedBytes(avatar)).toBeLessThanOrEqual(5 * MiB);
      const before = await used();
      const res = await s.api("/api/generate", { key, json: { title: "Inline avatar", speaker_name: "Ada", speaker_avatar_url: avatar } });
      expect(res.status).toBe(200);
      const image = await png(res);
      // The event card's speaker avatar: a 92 px disc at (72, 478).
      expect(fractionNear(image, 85, 490, 66, 66, MAGENTA, 10)).toBeGreaterThan(0.95);
      expect(fractionNear(image, 300, 0, 900, 630, MAGENTA, 10)).toBe(0);
      expect(await used()).toBe(before + 1);
    });

    test("a data: avatar decoding to more than 5 MiB is a 400 naming the field; nothing counted", async () => {
      const avatar = avatarOf(5 * MiB + 64);
      expect(decodedBytes(avatar)).toBeGreaterThan(5 * MiB);
      const before = await used();
      const res = await s.api("/api/generate", { key, json: { title: "Too large", speaker_avatar_url: avatar, logo_url: "data:image/png;base64,AAAA" } });
      await expectProblem(
        res,
        400,
        "VALIDATION_ERROR",
        "speaker_avatar_url",
        `must decode to at most 5 MiB (5242880 bytes) as a data: image (got ${decodedBytes(avatar)} bytes)`,
      );
      expect(await used()).toBe(before);
    });

    test("an http(s) URL is still held to 2,048 characters", async () => {
      const res = await s.api("/api/generate", { key, json: { title: "Long URL", logo_url: `https://example.com/${"a".repeat(2048)}` } });
      await expectProblem(res, 400, "VALIDATION_ERROR", "logo_url", "must be at most 2048 characters (got 2068)");
    });

    test("a body over 8 MiB is the 413 envelope, declared or streamed", async () => {
      const huge = JSON.stringify({ title: "x", speaker_avatar_url: `data:image/png;base64,${"A".repeat(MAX_IMAGE_BODY_BYTES)}` });
      await expectProblem413(await s.api("/api/generate", { key, body: huge, headers: { "content-type": "application/json" } }));
      const bytes = new TextEncoder().encode(huge);
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let at = 0; at < bytes.length; at += 1024 * 1024) controller.enqueue(bytes.subarray(at, at + 1024 * 1024));
          controller.close();
        },
      });
      await expectProblem413(await s.api("/api/generate", { key, body: stream, headers: { "content-type": "application/json" } }));
    });
  });

  async function expectProblem413(res: Response): Promise<void> {
    expect(res.status).toBe(413);
    expect(res.headers.get("x-request-id")).toMatch(/^req_/);
    expect(await res.json()).toEqual({ error: true, code: "PAYLOAD_TOO_LARGE", message: "Request body is larger than 8 MiB." });
  }

  describe("previews", () => {
    test("POST /api/templates/preview draws a data: image of 1 MiB given in values", async () => {
      const avatar = avatarOf(MiB);
      expect(avatar.length).toBeGreaterThan(1_000_000);
      const res = await s.api("/api/templates/preview", { key, json: { template: AVATAR, values: { title: "Preview", avatar } } });
      expect(res.status).toBe(200);
      const image = await png(res);
      // The PREVIEW mark crosses the whole card, translucent: most of the image is still magenta.
      expect(fractionNear(image, 110, 110, 280, 280, MAGENTA, 40)).toBeGreaterThan(0.7);
      expect(fractionNear(image, 500, 0, 700, 630, MAGENTA, 40)).toBe(0);
    });

    test("a preview's data: image over 5 MiB is a 400 naming values.<field>", async () => {
      const res = await s.api("/api/templates/preview", { key, json: { template: AVATAR, values: { avatar: avatarOf(5 * MiB + 64) } } });
      await expectProblem(res, 400, "VALIDATION_ERROR", "values.avatar", /^must decode to at most 5 MiB \(5242880 bytes\) as a data: image/);
    });

    test("the dashboard's previews (template editor and playground) draw a data: image too", async () => {
      const avatar = avatarOf(512 * 1024);
      const editor = await dashboard("/account-templates/preview", { template: AVATAR, values: { avatar } });
      expect(editor.status).toBe(200);
      expect(fractionNear(await png(editor), 110, 110, 280, 280, MAGENTA, 40)).toBeGreaterThan(0.7);

      const playground = await dashboard("/preview", { template: "event", title: "Playground", speaker_name: "Ada", speaker_avatar_url: avatar });
      expect(playground.status).toBe(200);
      expect(fractionNear(await png(playground), 85, 490, 66, 66, MAGENTA, 40)).toBeGreaterThan(0.7);
    });
  });

  describe("signed URLs keep 2,048 characters a value", () => {
    test("POST /api/image-urls refuses a data: image over 2,048 characters, naming the field; a short one is signed", async () => {
      const created = await s.api("/api/signing-keys", { key, json: {} });
      expect(created.status).toBe(201);
      const signingKey = (await created.json()) as { id: string; secret: string };

      const long = avatarOf(4096);
      const refused = await s.api("/api/image-urls", { key, json: { signing_key_id: signingKey.id, title: "Signed", speaker_avatar_url: long } });
      await expectProblem(
        refused,
        400,
        "VALIDATION_ERROR",
        "speaker_avatar_url",
        /^must be at most 2048 characters in a signed URL \(got \d+\); a larger data: image/,
      );

      const short = avatarOf(0);
      expect(short.length).toBeLessThan(2048);
      const signed = await s.api("/api/image-urls", { key, json: { signing_key_id: signingKey.id, title: "Signed", speaker_avatar_url: short } });
      expect(signed.status).toBe(200);

      // The URL itself, signed offline with the same value: refused the same way (not the 8 KiB cap).
      const url = buildSignedUrl({
        baseUrl: s.url,
        keyId: signingKey.id,
        secret: signingKey.secret,
        template: "event",
        ext: "png",
        params: { title: "Signed", speaker_avatar_url: long },
      });
      expect(new URL(url).pathname.length + new URL(url).search.length).toBeLessThan(8 * 1024);
      await expectProblem(await s.fetch(url), 400, "VALIDATION_ERROR", "speaker_avatar_url", /^must be at most 2048 characters in a signed URL/);
    });
  });
});

/**
 * format and quality through POST /api/generate in process (the render processes encode):
 * Content-Type follows the format, the bytes decode with independent decoders and show the
 * card, the ETag and the render cache tell formats and qualities apart, and bad values are a
 * VALIDATION_ERROR naming the field.
 */
describe("format and quality", () => {
  const DARK_BG: [number, number, number] = [0x0b, 0x0b, 0x14];
  const body = { title: "Formats over HTTP", subtitle: "JPEG and WebP from the workers" };

  let svc: RenderTestService;
  beforeAll(async () => {
    svc = await startInProcessRenderService();
  });
  afterAll(() => svc.stop());

  const bytesOf = async (res: Response) => new Uint8Array(await res.arrayBuffer());

  describe("POST /api/generate with format and quality", () => {
    test("jpeg: image/jpeg that jpeg-js decodes to the dark card with white title ink", async () => {
      const res = await svc.generate({ ...body, format: "jpeg" });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("image/jpeg");
      const image = decodeJpeg(await bytesOf(res));
      expect([image.width, image.height]).toEqual([1200, 630]);
      expect(fractionNear(image, 1150, 590, 40, 30, DARK_BG, 8)).toBeGreaterThan(0.95);
      expect(fractionNear(image, 72, 200, 900, 250, [255, 255, 255], 40)).toBeGreaterThan(0.03);
    });

    test("webp at another size: image/webp that libwebp's decoder reads, light card", async () => {
      const res = await svc.generate({ ...body, format: "webp", quality: 70, theme: "light", width: 600, height: 315 });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("image/webp");
      const image = await decodeWebp(await bytesOf(res));
      expect([image.width, image.height]).toEqual([600, 315]);
      expect(fractionNear(image, 560, 290, 30, 20, [0xfc, 0xfc, 0xfa], 8)).toBeGreaterThan(0.95);
    });

    test("png stays the default; a quality sent with png is ignored (same ETag, one render)", async () => {
      const plain = await svc.generate({ ...body, title: "PNG default" });
      expect(plain.headers.get("content-type")).toBe("image/png");
      expect(decodePng(await bytesOf(plain)).width).toBe(1200);
      const rendered = svc.renderer.pool.stats.rendered;
      const withQuality = await svc.generate({ ...body, title: "PNG default", format: "png", quality: 10 });
      expect(withQuality.status).toBe(200);
      expect(withQuality.headers.get("etag")).toBe(plain.headers.get("etag"));
      expect(svc.renderer.pool.stats.rendered).toBe(rendered);
    });

    test("the ETag and the render cache key include format and quality", async () => {
      const variants = [{}, { format: "jpeg" }, { format: "jpeg", quality: 60 }, { format: "webp" }, { format: "webp", quality: 60 }];
      const etags: string[] = [];
      for (const v of variants) {
        const res = await svc.generate({ ...body, title: "Cache key", ...v });
        expect(res.status).toBe(200);
        await res.arrayBuffer();
        etags.push(res.headers.get("etag")!);
      }
      expect(new Set(etags).size).toBe(variants.length);
      // Repeats hit the cache: same ETag, same bytes, no new render. jpeg without quality is jpeg at 85.
      const rendered = svc.renderer.pool.stats.rendered;
      const again = await svc.generate({ ...body, title: "Cache key", format: "jpeg", quality: 85 });
      expect(again.headers.get("etag")).toBe(etags[1]!);
      expect(again.headers.get("content-type")).toBe("image/jpeg");
      expect(decodeJpeg(await bytesOf(again)).width).toBe(1200);
      expect(svc.renderer.pool.stats.rendered).toBe(rendered);
    });

    test("bad format and quality: 400 VALIDATION_ERROR naming each field, nothing counted", async () => {
      const before = await svc.used();
      for (const [over, fields] of [
        [{ format: "jpg" }, ["format"]],
        [{ format: "jpeg", quality: 0 }, ["quality"]],
        [{ format: "webp", quality: 101 }, ["quality"]],
        [{ format: "jpeg", quality: 85.5 }, ["quality"]],
        [{ format: "gif", quality: "high" }, ["format", "quality"]],
      ] as const) {
        const res = await svc.generate({ ...body, ...over });
        expect(res.status).toBe(400);
        const err = (await res.json()) as { code: string; details: { field: string }[] };
        expect(err.code).toBe("VALIDATION_ERROR");
        expect(err.details.map((d) => d.field).sort()).toEqual([...fields]);
      }
      expect(await svc.used()).toBe(before);
    });
  });
});

/**
 * Characters no font has are never silent: POST /api/generate through the worker pool answers
 * with `X-Missing-Glyphs: <count>`, also when the image comes from the cache, and 0 when every
 * character has a glyph (CJK and Arabic included, from the bundled fallback fonts).
 */
describe("missing glyphs", () => {
  describe("X-Missing-Glyphs", () => {
    let svc: RenderTestService;
    beforeAll(async () => {
      svc = await startInProcessRenderService({ OG_RENDER_WORKERS: "1" });
      await svc.renderer.pool.ready();
    });
    afterAll(() => svc.stop());

    test("counts the characters drawn as boxes, rendered or cached", async () => {
      const body = { title: "Runes ᚠᚢᚦ", theme: "light" };
      const first = await svc.generate(body);
      expect(first.status).toBe(200);
      expect(first.headers.get("x-missing-glyphs")).toBe("3");
      const cached = await svc.generate(body);
      expect(cached.status).toBe(200);
      expect(cached.headers.get("x-missing-glyphs")).toBe("3");
    });

    test("is 0 when the bundled fonts cover everything", async () => {
      const res = await svc.generate({ title: "日本語 한국어 中文 עברית العربية हिन्दी ไทย 🚀" });
      expect(res.status).toBe(200);
      expect(res.headers.get("x-missing-glyphs")).toBe("0");
    });
  });

  test("the server log names the missing code points", async () => {
    const lines: string[] = [];
    const renderer = createServiceRenderer({
      config: { renderWorkers: 1, allowPrivateNetworks: false, templatesDir: undefined, fontsDir: undefined },
      logger: createLogger("info", (line) => lines.push(line)),
      pool: { warmUp: false },
    });
    try {
      const result = await renderer.render(
        renderRequest(createTemplateRegistry(), { template: "event", theme: "dark", fields: { title: "ᚠ and 𓀀" }, width: 1200, height: 630, format: "png" }),
      );
      expect(result.missingGlyphs).toEqual([0x16a0, 0x13000]);
      const warning = lines.find((line) => line.includes("no font has these characters"));
      expect(warning).toBeDefined();
      expect(warning).toContain("U+16A0 U+13000");
    } finally {
      await renderer.close();
    }
  });
});
