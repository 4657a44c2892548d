/**
 * The Fonts page's endpoints over plain HTTP against the real service (no browser; satori, or
 * the other engine with OG_TEST_ENGINE=takumi): the session and the Origin check guard them;
 * upload, list and delete answer as /api/fonts does (the same core, the same words for 400, 409
 * and 413); the sample picture is drawn in the face it names (its ink against a sample drawn by
 * another face), is the account's alone, and each face of a family gets its own; a repeat comes
 * from the image cache.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { testEngine } from "../support/engines.ts";
import { inkIn, pixelFont } from "../support/fonts.ts";
import { startTestService, type TestService } from "../support/harness.ts";
import { decodePng } from "../support/png.ts";

let s: TestService;
beforeAll(async () => {
  s = await startTestService({ OG_RENDER_ENGINE: testEngine() });
});
afterAll(() => s.stop());

const origin = () => new URL(s.url).origin;

async function signIn(): Promise<{ cookie: string; apiKey: string }> {
  const { apiKey } = await s.createAccount({ plan: "custom", quota: 10_000, requests_per_second: 1_000 });
  const res = await fetch(s.url + "/dashboard/api/session", {
    method: "POST",
    headers: { origin: origin(), "content-type": "application/json" },
    body: JSON.stringify({ api_key: apiKey }),
  });
  expect(res.status).toBe(200);
  return { cookie: res.headers.get("set-cookie")!.split(";")[0]!, apiKey };
}

function dash(path: string, cookie: string, init: { method?: string; body?: BodyInit; origin?: string | null } = {}) {
  const headers: Record<string, string> = { cookie };
  if (init.origin !== null) headers.origin = init.origin ?? origin();
  return fetch(s.url + "/dashboard/api" + path, { method: init.method ?? "GET", headers, body: init.body });
}

function form(file: Uint8Array, fields: Record<string, string> = {}) {
  const body = new FormData();
  body.set("file", new Blob([file as Uint8Array<ArrayBuffer>]), "font.otf");
  for (const [k, v] of Object.entries(fields)) body.set(k, v);
  return body;
}

const upload = (cookie: string, file: Uint8Array, fields: Record<string, string> = {}) => dash("/fonts", cookie, { method: "POST", body: form(file, fields) });

async function inkOfSample(cookie: string, id: string): Promise<number> {
  const res = await dash(`/fonts/${id}/sample`, cookie);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("image/png");
  const png = decodePng(new Uint8Array(await res.arrayBuffer()));
  return inkIn(png.pixels, png.width, { x: 0, y: 0, w: png.width, h: png.height });
}

describe("dashboard fonts", () => {
  test("a session is required; a state change needs this server's Origin", async () => {
    const { cookie } = await signIn();
    expect((await fetch(s.url + "/dashboard/api/fonts")).status).toBe(401);
    const crossSite = await dash("/fonts", cookie, { method: "POST", body: form(pixelFont("Cross")), origin: "https://evil.example" });
    expect(crossSite.status).toBe(403);
    const noOrigin = await dash("/fonts", cookie, { method: "POST", body: form(pixelFont("Cross")), origin: null });
    expect(noOrigin.status).toBe(403);
    const list = (await (await dash("/fonts", cookie)).json()) as { data: { source: string }[] };
    expect(list.data.filter((f) => f.source === "account")).toEqual([]);
  });

  test("upload, list (with the bundled families), sample in the face, delete: the same answers as /api/fonts", async () => {
    const { cookie, apiKey } = await signIn();
    const res = await upload(cookie, pixelFont("Blocky Dash"), { weight: "700" });
    expect(res.status).toBe(201);
    const font = (await res.json()) as { id: string; family: string; weight: number; style: string };
    expect(font).toMatchObject({ family: "Blocky Dash", weight: 700, style: "normal", format: "otf" });

    const list = (await (await dash("/fonts", cookie)).json()) as { data: { family: string; source: string }[] };
    expect(list).toEqual((await (await s.api("/api/fonts", { key: apiKey })).json()) as typeof list);
    expect(list.data.map((f) => `${f.source}:${f.family}`)).toEqual([
      "account:Blocky Dash",
      "builtin:Inter",
      "builtin:Source Serif 4",
      "builtin:JetBrains Mono",
    ]);

    // Filled boxes against frames: the sample is drawn in the face it names.
    const hollow = (await (await upload(cookie, pixelFont("Hollow Dash", { hollow: true }))).json()) as { id: string };
    const blockyInk = await inkOfSample(cookie, font.id);
    const hollowInk = await inkOfSample(cookie, hollow.id);
    expect(blockyInk).toBeGreaterThan(hollowInk * 1.2);
    const sample = await dash(`/fonts/${font.id}/sample`, cookie);
    expect(sample.headers.get("cache-control")).toBe("no-store");
    // Asked again, it comes from the renderer's image cache.
    expect(sample.headers.get("x-render-cache")).toBe("hit");
    expect(decodePng(new Uint8Array(await sample.arrayBuffer()))).toMatchObject({ width: 1000, height: 200 });

    const deleted = await dash(`/fonts/${font.id}`, cookie, { method: "DELETE" });
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toEqual({ id: font.id, deleted: true });
    expect((await dash(`/fonts/${font.id}/sample`, cookie)).status).toBe(404);
    expect((await dash(`/fonts/${font.id}`, cookie, { method: "DELETE" })).status).toBe(404);
  });

  test("two faces of one family get two samples, each in its own face", async () => {
    const { cookie } = await signIn();
    const regular = (await (await upload(cookie, pixelFont("Pair"), { weight: "400" })).json()) as { id: string };
    const bold = (await (await upload(cookie, pixelFont("Pair", { hollow: true }), { weight: "700" })).json()) as { id: string };
    // The regular face fills its boxes, the bold one draws frames: less ink.
    const regularInk = await inkOfSample(cookie, regular.id);
    const boldInk = await inkOfSample(cookie, bold.id);
    expect(regularInk).toBeGreaterThan(boldInk * 1.2);
  });

  test("another account's font: no sample, no delete, not listed", async () => {
    const owner = await signIn();
    const other = await signIn();
    const font = (await (await upload(owner.cookie, pixelFont("Private Dash"))).json()) as { id: string };
    expect((await dash(`/fonts/${font.id}/sample`, other.cookie)).status).toBe(404);
    expect((await dash(`/fonts/${font.id}`, other.cookie, { method: "DELETE" })).status).toBe(404);
    const list = (await (await dash("/fonts", other.cookie)).json()) as { data: { source: string }[] };
    expect(list.data.filter((f) => f.source === "account")).toEqual([]);
    expect((await dash(`/fonts/${font.id}/sample`, owner.cookie)).status).toBe(200);
  });

  test("errors as the API words them: 400 naming file, 413 over 5 MiB, 409 past 20 fonts", async () => {
    const { cookie, apiKey } = await signIn();
    const notFont = new TextEncoder().encode("<html>not a font</html>");
    const viaDash = (await (await upload(cookie, notFont)).json()) as { code: string; message: string; details: { field: string; message: string }[] };
    const viaApi = (await (await s.api("/api/fonts", { key: apiKey, method: "POST", body: form(notFont) })).json()) as typeof viaDash;
    expect(viaDash.code).toBe("VALIDATION_ERROR");
    expect(viaDash.details[0]?.field).toBe("file");
    expect(viaDash).toEqual(viaApi);

    const big = new Uint8Array(5 * 1024 * 1024 + 1);
    big.set(pixelFont("Big"));
    const tooBig = await upload(cookie, big);
    expect(tooBig.status).toBe(413);
    expect(((await tooBig.json()) as { message: string }).message).toContain("at most 5 MiB");

    for (let i = 0; i < 20; i++) expect((await s.api("/api/fonts", { key: apiKey, method: "POST", body: form(pixelFont(`Many ${i}`)) })).status).toBe(201);
    const full = await upload(cookie, pixelFont("Many 20"));
    expect(full.status).toBe(409);
    expect(((await full.json()) as { message: string }).message).toContain("at most 20 fonts");
  });
});
