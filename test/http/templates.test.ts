/**
 * Templates in process (test/support/in-process.ts): GET /api/templates, account templates and
 * their size sets, previews, and an account's template beside an operator's of the same id.
 */
import { describe, expect, test, afterAll, beforeAll } from "bun:test";
import { customAccount, useInProcessApp, startInProcessApp, type InProcessApp } from "../support/in-process.ts";
import { decodePng, pixelAt, type DecodedPng } from "../support/png.ts";
import { testEngine } from "../support/engines.ts";
import { GATED_PROCESS } from "../support/gated-render-process.ts";
import { markCoverage, markMask } from "../support/preview-mark.ts";
import { startReceiver, type TestReceiver } from "../support/receiver.ts";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const s = useInProcessApp();

describe("shapes", () => {
  test("GET /api/templates: id, description and typed fields for both built-ins", async () => {
    const { key } = await customAccount(s);
    const res = await s.api("/api/templates", { key });
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
});

/**
 * The account template API through the app in process (SQLite by default,
 * OG_TEST_STORE=postgres for the same tests on PostgreSQL): create, list with `source`, read,
 * update = a new version, versions list and read, delete, the 50-template limit, isolation
 * (another account's template is 404 TEMPLATE_NOT_FOUND on every route, exactly like a missing
 * one), 409 clashes, 403 on a built-in id, 413 above 1 MiB (and 64 KiB elsewhere), and the
 * definition's validation errors passed through.
 */
describe("account templates", () => {
  let s: InProcessApp;
  beforeAll(async () => {
    s = await startInProcessApp();
  });
  afterAll(() => s.stop());

  const HTML_RED =
    '<div style="display:flex;width:100%;height:100%;align-items:center;justify-content:center;background:#ff0000;color:{{accent}}"><h1 style="font-size:64px">{{title}}</h1></div>';

  const promo = (overrides: Record<string, unknown> = {}) => ({
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
      const res = await s.api("/api/templates", {
        key,
        json: promo({ id: "clean", name: "Pro\u202emo\u0007 card\u2066", description: "line\u0000 one\u200f" }),
      });
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
});

/**
 * Size sets (docs/api.md, "Account templates"): a template declares named sizes, and `size` in
 * POST /api/generate, a signed URL (where it is signed like any parameter) or POST
 * /api/image-urls picks one; `sizes: [...]` signs one URL per size. The same HTML draws every
 * size, its orientation classes included. Real server and render processes; either store.
 */
describe("size sets", () => {
  let s: InProcessApp;
  let key: string;
  let keyId: string;
  beforeAll(async () => {
    s = await startInProcessApp();
    key = (await s.createAccount({ plan: "custom", quota: 1000, requests_per_second: 1000 })).apiKey;
    const created = await s.api("/api/templates", { key, json: SOCIAL });
    expect(created.status).toBe(201);
    keyId = (await (await s.api("/api/signing-keys", { key, json: {} })).json()).id;
  });
  afterAll(() => s?.stop());

  /** Red in landscape, blue in portrait (a square card is portrait): the orientation classes follow each size. */
  const SOCIAL = {
    id: "social",
    html: '<div class="flex w-full h-full items-center justify-center bg-[#ff0000] portrait:bg-[#0000ff] text-white"><h1 style="font-size:60px">{{title}}</h1></div>',
    fields: [{ name: "title", type: "text", required: true }],
    sizes: { og: { width: 1200, height: 630 }, square: { width: 1080, height: 1080 }, story: { width: 1080, height: 1920 } },
  };

  async function image(res: Response) {
    expect(res.status).toBe(200);
    const png = decodePng(new Uint8Array(await res.arrayBuffer()));
    const [r, , b] = pixelAt(png, 4, 4);
    return { width: png.width, height: png.height, colour: r > 200 && b < 50 ? "red" : b > 200 && r < 50 ? "blue" : "other" };
  }

  async function problems(res: Response) {
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.code).toBe("VALIDATION_ERROR");
    return (body.details as { field: string; message: string }[]).map((d) => d.field);
  }

  test("the stored template and the template list carry the size set", async () => {
    const stored = await (await s.api("/api/templates/social", { key })).json();
    expect(stored.sizes).toEqual(SOCIAL.sizes);
    const list = await (await s.api("/api/templates", { key })).json();
    expect(list.data.find((t: { id: string }) => t.id === "social").sizes).toEqual(SOCIAL.sizes);
  });

  test("generate draws each named size with the same HTML, orientation classes included", async () => {
    expect(await image(await s.api("/api/generate", { key, json: { template: "social", title: "Hi", size: "og" } }))).toEqual({
      width: 1200,
      height: 630,
      colour: "red",
    });
    expect(await image(await s.api("/api/generate", { key, json: { template: "social", title: "Hi", size: "square" } }))).toEqual({
      width: 1080,
      height: 1080,
      colour: "blue",
    });
    expect(await image(await s.api("/api/generate", { key, json: { template: "social", title: "Hi", size: "story" } }))).toEqual({
      width: 1080,
      height: 1920,
      colour: "blue",
    });
  });

  test("a size the template does not declare, a size with width, and a size on a built-in are 400s naming size", async () => {
    expect(await problems(await s.api("/api/generate", { key, json: { template: "social", title: "Hi", size: "banner" } }))).toEqual(["size"]);
    expect(await problems(await s.api("/api/generate", { key, json: { template: "social", title: "Hi", size: "square", width: 800 } }))).toEqual(["size"]);
    expect(await problems(await s.api("/api/generate", { key, json: { template: "event", title: "Hi", size: "square" } }))).toEqual(["size"]);
    const usage = await (await s.api("/api/user/usage", { key })).json();
    expect(usage.used).toBe(3); // the three draws above, none of these refusals
  });

  test("a definition's size set is checked: at most 8, names and bounds", async () => {
    const nine = Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`s${i}`, { width: 400, height: 400 }]));
    expect(await problems(await s.api("/api/templates", { key, json: { ...SOCIAL, id: "nine", sizes: nine } }))).toContain("sizes");
    const fields = await problems(
      await s.api("/api/templates", { key, json: { ...SOCIAL, id: "bad", sizes: { Square: { width: 400, height: 400 }, tiny: { width: 10, height: 400 } } } }),
    );
    expect(fields).toEqual(["sizes.Square", "sizes.tiny.width"]);
  });

  test("image-urls signs one URL per size, in the order asked; size is signed", async () => {
    const res = await s.api("/api/image-urls", { key, json: { template: "social", title: "Hi", signing_key_id: keyId, sizes: ["story", "og"] } });
    expect(res.status).toBe(200);
    const { urls } = (await res.json()) as { urls: { size: string; width: number; height: number; url: string }[] };
    expect(urls.map(({ size, width, height }) => ({ size, width, height }))).toEqual([
      { size: "story", width: 1080, height: 1920 },
      { size: "og", width: 1200, height: 630 },
    ]);
    for (const entry of urls) {
      const url = new URL(entry.url);
      expect(url.searchParams.get("size")).toBe(entry.size);
      expect(url.searchParams.get("v")).toBe("1");
      const fetched = await image(await s.fetch(s.url + url.pathname + url.search));
      expect({ width: fetched.width, height: fetched.height }).toEqual({ width: entry.width, height: entry.height });
    }
    // Another size in the query is not what was signed.
    const story = new URL(urls[0]!.url);
    story.searchParams.set("size", "square");
    const forged = await s.fetch(s.url + story.pathname + story.search);
    expect(forged.status).toBe(401);
    expect((await forged.json()).code).toBe("INVALID_SIGNATURE");
  });

  test("image-urls refuses an undeclared size by its place in sizes, and size with sizes", async () => {
    expect(
      await problems(await s.api("/api/image-urls", { key, json: { template: "social", title: "Hi", signing_key_id: keyId, sizes: ["og", "poster"] } })),
    ).toEqual(["sizes.1"]);
    expect(
      await problems(await s.api("/api/image-urls", { key, json: { template: "social", title: "Hi", signing_key_id: keyId, sizes: ["og"], size: "og" } })),
    ).toEqual(["size"]);
    expect(await problems(await s.api("/api/image-urls", { key, json: { template: "social", title: "Hi", signing_key_id: keyId, size: "poster" } }))).toEqual([
      "size",
    ]);
  });
});

/**
 * Previews and the render bound through the app in process (SQLite by default, OG_TEST_STORE=postgres
 * for PostgreSQL): POST /api/templates/preview (capped, marked, not counted, no event, under the
 * rate limit, create's 400 for a bad definition, in the OpenAPI document), the dashboard
 * playground's preview (capped and marked too), and an account template rendering past 5 s
 * (422 RENDER_FAILED, nothing counted, its render process replaced). The slow render comes from
 * a test-only hook in front of the real render process (test/support/gated-render-process.ts).
 */
describe("template preview", () => {
  let s: InProcessApp;
  let r: TestReceiver;
  let key: string;
  beforeAll(async () => {
    s = await startInProcessApp(
      { OG_ALLOW_PRIVATE_NETWORKS: "1", OG_RENDER_ENGINE: testEngine() },
      { renderer: { pool: { warmUp: false, command: GATED_PROCESS } } },
    );
    r = await startReceiver();
    key = (await s.createAccount({ plan: "custom", quota: 1_000, requests_per_second: 1_000 })).apiKey;
    const hook = await s.api("/api/webhooks", { key, json: { url: r.url("/events"), events: ["image.generated"], secret: "a-webhook-secret-of-some-length" } });
    expect(hook.status).toBe(201);
  });
  afterAll(async () => {
    await s.stop();
    await r.stop();
  });

  const FLAT = {
    id: "flat",
    name: "Flat",
    fields: [{ name: "title", type: "text", required: true, max_length: 80 }],
    sample: { title: "Sample" },
    html: '<div style="display: flex; width: 100%; height: 100%; background-color: #2255aa; color: white; font-size: 60px; padding: 60px">{{title}}</div>',
  };

  const preview = (body: unknown) => s.api("/api/templates/preview", { key, json: body });
  const used = async () => ((await (await s.api("/api/user/usage", { key })).json()) as { used: number }).used;
  const png = async (res: Response) => decodePng(new Uint8Array(await res.arrayBuffer()));

  /** The pixels that are not the flat card's blue: its white title and the PREVIEW mark. */
  function notBlue(image: DecodedPng): Uint8Array {
    const mask = new Uint8Array(image.width * image.height);
    for (let p = 0; p < mask.length; p++) {
      const i = p * 4;
      if (Math.abs(image.pixels[i]! - 0x22) + Math.abs(image.pixels[i + 1]! - 0x55) + Math.abs(image.pixels[i + 2]! - 0xaa) > 30) mask[p] = 1;
    }
    return mask;
  }

  /** Every 300×300 crop of `mask` holds marked pixels, and they are under a fifth of the image. */
  function expectMarkedAllOver(mask: Uint8Array, width: number, height: number): void {
    const coverage = markCoverage(mask, width, height, { w: 300, h: 300, step: 20, atLeast: 200 });
    expect(coverage.clean).toEqual([]);
    expect(coverage.share).toBeGreaterThan(0.02);
    expect(coverage.share).toBeLessThan(0.2);
  }

  describe("POST /api/templates/preview", () => {
    test("draws the unsaved definition capped and marked; nothing counted, no event, under the rate limit", async () => {
      // Control first: a counted render of a saved template sends its event.
      expect((await s.api("/api/templates", { key, json: FLAT })).status).toBe(201);
      const before = await used();
      expect((await s.api("/api/generate", { key, json: { template: "flat", title: "counted", width: 400, height: 210 } })).status).toBe(200);
      await r.waitForCount(1, "/events");

      const res = await preview({ template: FLAT, width: 2400, height: 1260 });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("image/png");
      expect(res.headers.get("cache-control")).toBe("no-store");
      expect(res.headers.get("ratelimit-limit")).toBe("1000");
      const image = await png(res);
      expect([image.width, image.height]).toEqual([1500, 788]);
      // The mark crosses the whole card: no crop of the preview is a clean card.
      expectMarkedAllOver(notBlue(image), image.width, image.height);
      // The sample drew (white text on the left), and the card is the definition's, unsaved changes included.
      const edited = await png(await preview({ template: { ...FLAT, html: FLAT.html.replace("#2255aa", "#aa2255") }, values: { title: "Edited" } }));
      expect(Array.from(edited.pixels.subarray(0, 3))).toEqual([0xaa, 0x22, 0x55]);

      // Bracketed by a counted render: its event arrives, and only the two counted ones ever did.
      expect((await s.api("/api/generate", { key, json: { template: "flat", title: "counted again", width: 400, height: 210 } })).status).toBe(200);
      await r.waitForCount(2, "/events");
      expect(r.events("/events").map((e) => [e.event, e.data.template])).toEqual([
        ["image.generated", "flat"],
        ["image.generated", "flat"],
      ]);
      expect(await used()).toBe(before + 2);
    });

    test("a definition error is create's 400, nothing stored; bad values are named under values", async () => {
      const bad = { ...FLAT, id: "broken", html: '<div style="display: flex">\n  <script>alert(1)</script>\n</div>' };
      const created = await s.api("/api/templates", { key, json: bad });
      const previewed = await preview({ template: bad });
      expect(previewed.status).toBe(400);
      const body = await previewed.json();
      expect(body).toEqual(await created.json());
      expect(body.details[0]).toMatchObject({ field: "html", line: 2 });
      expect((await s.api("/api/templates/broken", { key })).status).toBe(404);

      const values = await preview({ template: FLAT, values: { title: "x".repeat(81), other: "y" } });
      expect(values.status).toBe(400);
      expect(((await values.json()) as { details: { field: string }[] }).details.map((d) => d.field).sort()).toEqual(["values.other", "values.title"]);
      const unknown = await preview({ template: FLAT, quality: 80 });
      expect(((await unknown.json()) as { details: { field: string }[] }).details.map((d) => d.field)).toEqual(["quality"]);
    });

    test("carries the definition's paint estimate and the budget in X-Template-Cost, documented in the OpenAPI description", async () => {
      const flat = await preview({ template: FLAT });
      expect(flat.status).toBe(200);
      const header = flat.headers.get("x-template-cost") ?? "";
      expect(header).toMatch(/^units=\d+; budget=500$/);
      // A blurred box over the card costs more than the flat card, and says so.
      const blurred = await preview({ template: { ...FLAT, html: FLAT.html.replace("padding: 60px", "padding: 60px; box-shadow: 0 0 10px 4px black") } });
      expect(blurred.status).toBe(200);
      const units = (res: Response) => Number(/units=(\d+)/.exec(res.headers.get("x-template-cost") ?? "")?.[1]);
      expect(units(blurred)).toBeGreaterThan(units(flat));
      const document = (await (await s.fetch(`${s.url}/openapi.json`)).json()) as any;
      expect(document.paths["/api/templates/preview"].post.description).toContain("X-Template-Cost");
    });

    test("is in the OpenAPI document with its body and answers", async () => {
      const document = (await (await s.fetch(`${s.url}/openapi.json`)).json()) as any;
      const operation = document.paths["/api/templates/preview"]?.post;
      expect(operation).toBeDefined();
      expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(["200", "400", "422", "429", "503"]));
      expect(operation.responses["200"].content["image/png"]).toBeDefined();
      expect(JSON.stringify(operation.requestBody)).toContain("values");
      expect(JSON.stringify(document.components.schemas.Error ?? document)).toContain("RENDER_FAILED");
    });
  });

  describe("the dashboard playground", () => {
    test("its previews are capped and marked all over as well, and not counted", async () => {
      const origin = new URL(s.url).origin;
      const session = await s.fetch(`${s.url}/dashboard/api/session`, {
        method: "POST",
        headers: { origin, "content-type": "application/json" },
        body: JSON.stringify({ api_key: key }),
      });
      expect(session.status).toBe(200);
      const cookie = session.headers.get("set-cookie")!.split(";")[0]!;
      // The real card at the preview's size (the same layout: a square), to compare crops with.
      const real = await s.api("/api/generate", { key, json: { template: "event", title: "Free rendering?", width: 1500, height: 1500 } });
      expect(real.status).toBe(200);
      const realImage = await png(real);
      const before = await used();
      const res = await s.fetch(`${s.url}/dashboard/api/preview`, {
        method: "POST",
        headers: { origin, cookie, "content-type": "application/json" },
        body: JSON.stringify({ template: "event", title: "Free rendering?", width: 2400, height: 2400 }),
      });
      expect(res.status).toBe(200);
      const image = await png(res);
      expect([image.width, image.height]).toEqual([1500, 1500]);
      // Every 300×300 crop differs from the same crop of the real card.
      expectMarkedAllOver(markMask(image, realImage), image.width, image.height);
      expect(await used()).toBe(before);
    });
  });

  describe("the 5 s bound", () => {
    test("an account template rendering past 5 s answers 422 RENDER_FAILED, counts nothing, and its worker is replaced", async () => {
      const slow = { ...FLAT, id: "slow-card" };
      expect((await s.api("/api/templates", { key, json: slow })).status).toBe(201);
      const before = await used();
      const replaced = s.service.renderer.pool.stats.replaced;
      const res = await s.api("/api/generate", { key, json: { template: "slow-card", title: "stuck", width: 400, height: 210 } });
      expect(res.status).toBe(422);
      expect(await res.json()).toMatchObject({ error: true, code: "RENDER_FAILED" });
      expect(await used()).toBe(before);
      expect(s.service.renderer.pool.stats.replaced).toBe(replaced + 1);
      // The account's share and the worker are back: its other templates render.
      const next = await s.api("/api/generate", { key, json: { template: "flat", title: "after", width: 400, height: 210 } });
      expect(next.status).toBe(200);
      await next.arrayBuffer();
      expect(await used()).toBe(before + 1);
    }, 30_000);
  });
});

/**
 * An account template and an operator template (OG_TEMPLATES_DIR) of the same id: an account
 * cannot take an operator's id (409; PUT is 403), but when the operator adds an id an account
 * already uses, that account keeps its own template — listed, rendered and updated — while every
 * other account gets the operator's. Two starts of the service on one store (SQLite file, or
 * PostgreSQL with OG_TEST_STORE=postgres).
 */
describe("account and operator templates of one id", () => {
  const OPERATOR_CARD = `/** @jsxImportSource ogsmith */
export default {
  id: "quote",
  description: "An operator's quote card, on orange.",
  fields: [{ name: "title", type: "text", required: true }],
  render(fields, ctx) {
    return <div style={{ display: "flex", width: ctx.width, height: ctx.height, backgroundColor: "#FF6600", color: "#000000", fontSize: 40 }}>{fields.title}</div>;
  },
};
`;

  const accountCard = {
    id: "quote",
    name: "Our quote card",
    html: '<div style="display:flex;width:100%;height:100%;background:#ff0000;color:#ffffff"><h1>{{title}}</h1></div>',
    fields: [{ name: "title", type: "text", required: true }],
  };

  let dir: string;
  let s: InProcessApp;
  let owner: string;
  let other: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "ogsmith-operator-clash-"));
    const dbPath = join(dir, "ogsmith.db");
    const first = await startInProcessApp({ OG_DB_PATH: dbPath });
    const roomy = { plan: "custom", quota: 1000, requests_per_second: 1000 };
    owner = (await first.createAccount(roomy)).apiKey;
    other = (await first.createAccount(roomy)).apiKey;
    expect((await first.api("/api/templates", { key: owner, json: accountCard })).status).toBe(201);
    await first.stop();

    // The operator adds a template with the same id, and the service starts again on the same store.
    const templatesDir = join(dir, "templates");
    mkdirSync(templatesDir);
    writeFileSync(join(templatesDir, "quote.tsx"), OPERATOR_CARD);
    s = await startInProcessApp({ OG_DB_PATH: dbPath, OG_TEMPLATES_DIR: templatesDir });
  }, 60_000);
  afterAll(async () => {
    await s?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function corner(res: Response): Promise<number[]> {
    expect(res.status).toBe(200);
    return pixelAt(decodePng(new Uint8Array(await res.arrayBuffer())), 4, 4).slice(0, 3);
  }
  const generate = (key: string) => s.api("/api/generate", { key, json: { template: "quote", title: "Hello", width: 400, height: 210 } });
  const listed = async (key: string) =>
    ((await (await s.api("/api/templates", { key })).json()).data as { id: string; source: string }[]).filter((t) => t.id === "quote");

  describe("an operator template added under an id an account already uses", () => {
    test("the account keeps its own: listed once as its own, rendered, and updated", async () => {
      expect(await listed(owner)).toEqual([expect.objectContaining({ id: "quote", source: "account", version: 1 })]);
      expect(await corner(await generate(owner))).toEqual([255, 0, 0]);
      const updated = await s.api("/api/templates/quote", { key: owner, method: "PUT", json: { ...accountCard, name: "Our quote card, v2" } });
      expect(updated.status).toBe(200);
      expect((await updated.json()).version).toBe(2);
    });

    test("every other account gets the operator's, and cannot take or change the id", async () => {
      expect(await listed(other)).toEqual([expect.objectContaining({ id: "quote", source: "operator" })]);
      expect(await corner(await generate(other))).toEqual([255, 102, 0]);
      const create = await s.api("/api/templates", { key: other, json: accountCard });
      expect(create.status).toBe(409);
      expect((await create.json()).code).toBe("CONFLICT");
      const put = await s.api("/api/templates/quote", { key: other, method: "PUT", json: accountCard });
      expect(put.status).toBe(403);
      expect((await put.json()).code).toBe("FORBIDDEN");
    });

    test("once the account deletes its own, it gets the operator's too", async () => {
      expect((await s.api("/api/templates/quote", { key: owner, method: "DELETE" })).status).toBe(200);
      expect(await corner(await generate(owner))).toEqual([255, 102, 0]);
      expect(await listed(owner)).toEqual([expect.objectContaining({ source: "operator" })]);
    });
  });
});
