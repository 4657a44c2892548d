/**
 * Previews and the render bound through a real server (SQLite by default, OG_TEST_STORE=postgres
 * for PostgreSQL): POST /api/templates/preview (capped, marked, not counted, no event, under the
 * rate limit, create's 400 for a bad definition, in the OpenAPI document), the dashboard
 * playground's preview (capped and marked too), and an account template rendering past 5 s
 * (422 RENDER_FAILED, nothing counted, its render process replaced). The slow render comes from
 * a test-only hook in front of the real render process (test/support/gated-render-process.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { testEngine } from "../support/engines.ts";
import { GATED_PROCESS } from "../support/gated-render-process.ts";
import { startTestService, type TestService } from "../support/harness.ts";
import { decodePng, type DecodedPng } from "../support/png.ts";
import { markCoverage, markMask } from "../support/preview-mark.ts";
import { startReceiver, type TestReceiver } from "../support/receiver.ts";

let s: TestService;
let r: TestReceiver;
let key: string;
beforeAll(async () => {
  s = await startTestService(
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
    const document = (await (await fetch(`${s.url}/openapi.json`)).json()) as any;
    expect(document.paths["/api/templates/preview"].post.description).toContain("X-Template-Cost");
  });

  test("is in the OpenAPI document with its body and answers", async () => {
    const document = (await (await fetch(`${s.url}/openapi.json`)).json()) as any;
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
    const session = await fetch(`${s.url}/dashboard/api/session`, {
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
    const res = await fetch(`${s.url}/dashboard/api/preview`, {
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
