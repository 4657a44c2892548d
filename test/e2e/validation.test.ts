import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eventBody, startTestService, type TestService } from "../support/harness.ts";

let s: TestService;
let key: string;
beforeAll(async () => {
  s = await startTestService();
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
