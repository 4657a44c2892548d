/**
 * The account template API end to end (real server on port 0; SQLite by default,
 * OG_TEST_STORE=postgres for the same tests on PostgreSQL): create, list with `source`, read,
 * update = a new version, versions list and read, delete, the 50-template limit, isolation
 * (another account's template is 404 TEMPLATE_NOT_FOUND on every route, exactly like a missing
 * one), 409 clashes, 403 on a built-in id, 413 above 1 MiB (and 64 KiB elsewhere), and the
 * definition's validation errors passed through.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestService, type TestService } from "../support/harness.ts";

let s: TestService;
beforeAll(async () => {
  s = await startTestService();
});
afterAll(() => s.stop());

const HTML_RED =
  '<div style="display:flex;width:100%;height:100%;align-items:center;justify-content:center;background:#ff0000;color:{{accent}}"><h1 style="font-size:64px">{{title}}</h1></div>';

export const promo = (overrides: Record<string, unknown> = {}) => ({
  id: "promo",
  name: "Promo",
  description: "A promo card",
  html: HTML_RED,
  fields: [
    { name: "title", type: "text", required: true, max_length: 80 },
    { name: "accent", type: "color" },
  ],
  sample: { title: "Spring sale", accent: "#ffffff" },
  ...overrides,
});

/** A roomy account: these tests make many calls within one second of the test clock. */
const newKey = async () => (await s.createAccount({ plan: "custom", quota: 100_000, requests_per_second: 10_000 })).apiKey;

async function expectError(res: Response, status: number, code: string) {
  const body = await res.json();
  expect({ status: res.status, code: body.code }).toEqual({ status, code });
  expect(body.error).toBe(true);
  return body as { message: string; code: string; details?: { field: string; message: string; line?: number; column?: number }[] };
}

describe("one account's templates", () => {
  let key: string;
  beforeAll(async () => {
    key = await newKey();
  });

  test("create answers 201 with version 1 and the whole definition", async () => {
    const res = await s.api("/api/templates", { key, json: promo() });
    expect(res.status).toBe(201);
    const body = await res.json();
    expect(body).toMatchObject({
      id: "promo",
      version: 1,
      name: "Promo",
      description: "A promo card",
      html: HTML_RED,
      source: "account",
      width: 1200,
      height: 630,
    });
    expect(body.fields.map((f: { name: string; type: string }) => [f.name, f.type])).toEqual([
      ["title", "text"],
      ["accent", "color"],
    ]);
    expect(body.created_at).toBe(new Date(s.now()).toISOString());
    expect(body.updated_at).toBe(body.created_at);
  });

  test("the list holds the built-ins, then the account's own with source and version", async () => {
    const res = await s.api("/api/templates", { key });
    expect(res.status).toBe(200);
    const { data, parameters } = await res.json();
    expect(data.map((t: { id: string; source: string; version?: number }) => [t.id, t.source, t.version])).toEqual([
      ["event", "builtin", undefined],
      ["blog", "builtin", undefined],
      ["promo", "account", 1],
    ]);
    expect(data[2]).toMatchObject({
      name: "Promo",
      description: "A promo card",
      fields: [
        { name: "title", type: "text", required: true, max_length: 80 },
        { name: "accent", type: "color", required: false },
      ],
    });
    expect(parameters.map((p: { name: string }) => p.name)).toContain("theme");
  });

  test("update is a new version; both stay readable; GET answers the latest", async () => {
    await s.advance(60);
    const res = await s.api("/api/templates/promo", {
      key,
      method: "PUT",
      json: promo({ id: undefined, name: "Promo v2", html: HTML_RED.replace("#ff0000", "#0000ff") }),
    });
    expect(res.status).toBe(200);
    const v2 = await res.json();
    expect(v2).toMatchObject({ id: "promo", version: 2, name: "Promo v2", source: "account" });
    expect(v2.updated_at).toBe(new Date(s.now()).toISOString());
    expect(v2.created_at).not.toBe(v2.updated_at);

    expect(await (await s.api("/api/templates/promo", { key })).json()).toMatchObject({ version: 2, name: "Promo v2" });
    expect(await (await s.api("/api/templates/promo/versions/1", { key })).json()).toMatchObject({ version: 1, name: "Promo", html: HTML_RED });
    const versions = await (await s.api("/api/templates/promo/versions", { key })).json();
    expect(versions.data.map((v: { version: number }) => v.version)).toEqual([1, 2]);
    expect(versions.data[1].created_at).toBe(v2.updated_at);
    await expectError(await s.api("/api/templates/promo/versions/3", { key }), 404, "TEMPLATE_NOT_FOUND");
    await expectError(await s.api("/api/templates/promo/versions/zero", { key }), 404, "TEMPLATE_NOT_FOUND");
    expect((await (await s.api("/api/templates", { key })).json()).data.find((t: { id: string }) => t.id === "promo").version).toBe(2);
  });

  test("a template read back is a definition the API takes again (round trip)", async () => {
    const fetched = await (await s.api("/api/templates/promo", { key })).json();
    const res = await s.api("/api/templates/promo", { key, method: "PUT", json: fetched });
    expect(res.status).toBe(200);
    const v3 = await res.json();
    expect(v3.version).toBe(3);
    expect({ ...v3, version: 0, updated_at: "" }).toEqual({ ...fetched, version: 0, updated_at: "" });
  });

  test("PUT with another id in the body is a 400 naming id; nothing is stored", async () => {
    const body = await expectError(await s.api("/api/templates/promo", { key, method: "PUT", json: promo({ id: "other" }) }), 400, "VALIDATION_ERROR");
    expect(body.details?.map((d) => d.field)).toEqual(["id"]);
    expect((await (await s.api("/api/templates/promo", { key })).json()).version).toBe(3);
  });

  test("clashes: an id the account has, a built-in id → 409 CONFLICT; PUT on a built-in → 403 FORBIDDEN", async () => {
    const again = await expectError(await s.api("/api/templates", { key, json: promo() }), 409, "CONFLICT");
    expect(again.details?.[0]?.field).toBe("id");
    await expectError(await s.api("/api/templates", { key, json: promo({ id: "event" }) }), 409, "CONFLICT");
    await expectError(await s.api("/api/templates", { key, json: promo({ id: "blog" }) }), 409, "CONFLICT");
    await expectError(await s.api("/api/templates/event", { key, method: "PUT", json: promo({ id: "event" }) }), 403, "FORBIDDEN");
    await expectError(await s.api("/api/templates/blog", { key, method: "PUT", json: promo({ id: undefined }) }), 403, "FORBIDDEN");
    await expectError(await s.api("/api/templates/nothere", { key, method: "PUT", json: promo({ id: undefined }) }), 404, "TEMPLATE_NOT_FOUND");
  });

  test("names and descriptions lose control and bidi-override characters", async () => {
    const res = await s.api("/api/templates", { key, json: promo({ id: "clean", name: "Pro\u202emo\u0007 card\u2066", description: "line\u0000 one\u200f" }) });
    expect(res.status).toBe(201);
    const body = await res.json();
    expect(body.name).toBe("Promo card");
    expect(body.description).toBe("line one");
    expect((await s.api("/api/templates/clean", { key, method: "DELETE" })).status).toBe(200);
  });

  test("a definition error is a 400 listing the problems, the HTML's with line and column; nothing is stored", async () => {
    const res = await s.api("/api/templates", { key, json: promo({ id: "bad", html: '<div style="display:flex">\n  <script>alert(1)</script>\n</div>' }) });
    const body = await expectError(res, 400, "VALIDATION_ERROR");
    const html = body.details?.find((d) => d.field === "html");
    expect(html).toBeDefined();
    expect(html!.line).toBeGreaterThanOrEqual(1);
    expect(html!.column).toBeGreaterThanOrEqual(1);
    await expectError(await s.api("/api/templates/bad", { key }), 404, "TEMPLATE_NOT_FOUND");
    const shape = await expectError(await s.api("/api/templates", { key, json: { id: "Bad Id", html: 5 } }), 400, "VALIDATION_ERROR");
    expect(shape.details?.map((d) => d.field)).toEqual(expect.arrayContaining(["id", "html"]));
  });

  test("a definition that would cost too much to draw is a 400 naming the element, on create, update and preview; nothing is stored", async () => {
    // Each filter is a pass over the whole canvas: eight colour filters cost more than the paint budget.
    const html = `<div style="display:flex;width:100%;height:100%;background:#ff0000">\n${'  <div style="width:40px;height:40px;background:#00f;filter:brightness(0.9)"></div>\n'.repeat(8)}</div>`;
    for (const [path, method, json] of [
      ["/api/templates", "POST", promo({ id: "costly", html })],
      ["/api/templates/promo", "PUT", promo({ html })],
      ["/api/templates/preview", "POST", { template: promo({ id: "costly", html }), values: { title: "Hi" } }],
    ] as const) {
      const body = await expectError(await s.api(path, { key, method, json }), 400, "VALIDATION_ERROR");
      expect(body.details).toEqual([
        { field: "html", message: expect.stringMatching(/units of work at 2400×2400; at most 500 .*This <div> costs the most/), line: 2, column: 3 },
      ]);
    }
    await expectError(await s.api("/api/templates/costly", { key }), 404, "TEMPLATE_NOT_FOUND");
    expect((await (await s.api("/api/templates/promo", { key })).json()).html).not.toContain("brightness");
  });

  test("delete answers {id, deleted: true}; then every route is 404 and the list no longer has it", async () => {
    await s.api("/api/templates", { key, json: promo({ id: "gone" }) });
    const res = await s.api("/api/templates/gone", { key, method: "DELETE" });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: "gone", deleted: true });
    await expectError(await s.api("/api/templates/gone", { key }), 404, "TEMPLATE_NOT_FOUND");
    await expectError(await s.api("/api/templates/gone/versions", { key }), 404, "TEMPLATE_NOT_FOUND");
    await expectError(await s.api("/api/templates/gone", { key, method: "DELETE" }), 404, "TEMPLATE_NOT_FOUND");
    expect((await (await s.api("/api/templates", { key })).json()).data.map((t: { id: string }) => t.id)).not.toContain("gone");
    // Created again, it starts at version 1.
    expect((await (await s.api("/api/templates", { key, json: promo({ id: "gone" }) })).json()).version).toBe(1);
  });
});

describe("isolation between accounts", () => {
  test("another account's template is 404 TEMPLATE_NOT_FOUND on every route, word for word like a missing one", async () => {
    const owner = await newKey();
    const other = await newKey();
    expect((await s.api("/api/templates", { key: owner, json: promo({ id: "secret" }) })).status).toBe(201);

    const routes: [string, string, unknown?][] = [
      ["GET", "/api/templates/ID"],
      ["GET", "/api/templates/ID/versions"],
      ["GET", "/api/templates/ID/versions/1"],
      ["PUT", "/api/templates/ID", promo({ id: undefined })],
      ["DELETE", "/api/templates/ID"],
    ];
    for (const [method, path, json] of routes) {
      const theirs = await s.api(path.replace("ID", "secret"), { key: other, method, json });
      const missing = await s.api(path.replace("ID", "nosuch"), { key: other, method, json });
      const a = await expectError(theirs, 404, "TEMPLATE_NOT_FOUND");
      const b = await expectError(missing, 404, "TEMPLATE_NOT_FOUND");
      expect(a.message.replace("secret", "X")).toBe(b.message.replace("nosuch", "X"));
    }
    expect((await (await s.api("/api/templates", { key: other })).json()).data.map((t: { id: string }) => t.id)).toEqual(["event", "blog"]);
    // The owner's template is untouched, and the other account may use the same id for its own.
    expect((await (await s.api("/api/templates/secret", { key: owner })).json()).version).toBe(1);
    const theirs = await s.api("/api/templates", { key: other, json: promo({ id: "secret", name: "Theirs" }) });
    expect(theirs.status).toBe(201);
    expect((await (await s.api("/api/templates/secret", { key: owner })).json()).name).toBe("Promo");
    expect((await (await s.api("/api/templates/secret", { key: other })).json()).name).toBe("Theirs");
  });

  test("the routes need an API key", async () => {
    await expectError(await s.api("/api/templates"), 401, "MISSING_API_KEY");
    await expectError(await s.api("/api/templates", { json: promo() }), 401, "MISSING_API_KEY");
    await expectError(await s.api("/api/templates/promo/versions"), 401, "MISSING_API_KEY");
  });
});

describe("limits", () => {
  test("at most 50 templates per account: the 51st is 409 CONFLICT; deleting one makes room", async () => {
    const key = await newKey();
    const tiny = (id: string) => ({ id, html: "<div>{{t}}</div>", fields: [{ name: "t", type: "text" }] });
    for (let i = 0; i < 50; i++) {
      const res = await s.api("/api/templates", { key, json: tiny(`t${i}`) });
      if (res.status !== 201) throw new Error(`template ${i}: ${res.status} ${await res.text()}`);
    }
    const body = await expectError(await s.api("/api/templates", { key, json: tiny("t50") }), 409, "CONFLICT");
    expect(body.message).toContain("50");
    expect((await (await s.api("/api/templates", { key })).json()).data.length).toBe(52);
    expect((await s.api("/api/templates/t7", { key, method: "DELETE" })).status).toBe(200);
    expect((await s.api("/api/templates", { key, json: tiny("t50") })).status).toBe(201);
  });

  test("bodies up to 1 MiB on the template routes (413 PAYLOAD_TOO_LARGE above), 8 MiB on the preview, 64 KiB elsewhere", async () => {
    const key = await newKey();
    // 200 KiB: over the usual 64 KiB, within the template routes' 1 MiB (and within html's 256 KiB).
    const big = promo({ id: "big", html: `<div style="display:flex">${"x".repeat(200 * 1024)}</div>` });
    const accepted = await s.api("/api/templates", { key, json: big });
    expect(accepted.status).not.toBe(413);
    const huge = { ...promo({ id: "huge" }), html: "y".repeat(1024 * 1024) };
    const refused = await expectError(await s.api("/api/templates", { key, json: huge }), 413, "PAYLOAD_TOO_LARGE");
    expect(refused.message).toContain("1 MiB");
    await expectError(await s.api("/api/templates/promo", { key, method: "PUT", json: huge }), 413, "PAYLOAD_TOO_LARGE");
    // The preview takes 8 MiB (its values may be data: images): neither body is refused for its size there.
    expect((await s.api("/api/templates/preview", { key, json: { template: big } })).status).not.toBe(413);
    expect((await s.api("/api/templates/preview", { key, json: { template: huge } })).status).not.toBe(413);
    const elsewhere = await expectError(await s.api("/api/image-urls", { key, json: { title: "x", pad: "z".repeat(100 * 1024) } }), 413, "PAYLOAD_TOO_LARGE");
    expect(elsewhere.message).toContain("64 KiB");
  });
});
