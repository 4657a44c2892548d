/**
 * Size sets (docs/api.md, "Account templates"): a template declares named sizes, and `size` in
 * POST /api/generate, a signed URL (where it is signed like any parameter) or POST
 * /api/image-urls picks one; `sizes: [...]` signs one URL per size. The same HTML draws every
 * size, its orientation classes included. Real server and render processes; either store.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestService, type TestService } from "../support/harness.ts";
import { decodePng, pixelAt } from "../support/png.ts";

let s: TestService;
let key: string;
let keyId: string;
beforeAll(async () => {
  s = await startTestService();
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
    const fetched = await image(await fetch(s.url + url.pathname + url.search));
    expect({ width: fetched.width, height: fetched.height }).toEqual({ width: entry.width, height: entry.height });
  }
  // Another size in the query is not what was signed.
  const story = new URL(urls[0]!.url);
  story.searchParams.set("size", "square");
  const forged = await fetch(s.url + story.pathname + story.search);
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
