/**
 * The template studio's endpoints over plain HTTP against the real service (no browser): they
 * need a session and a same-origin Origin, another account's template is not there, a preview
 * is capped and never counted, a definition error names its line, the starters are
 * complete definitions, and editor-sized bodies (up to 1 MiB) are accepted.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestService, type TestService } from "../support/harness.ts";
import { decodePng } from "../support/png.ts";

let s: TestService;
beforeAll(async () => {
  s = await startTestService();
});
afterAll(() => s.stop());

const origin = () => new URL(s.url).origin;

function dash(path: string, init: { method?: string; cookie?: string; json?: unknown; origin?: string | null; body?: string } = {}) {
  const headers: Record<string, string> = {};
  if (init.cookie) headers.cookie = init.cookie;
  if (init.origin !== null) headers.origin = init.origin ?? origin();
  if (init.json !== undefined || init.body !== undefined) headers["content-type"] = "application/json";
  return fetch(s.url + path, {
    method: init.method ?? (init.json !== undefined || init.body !== undefined ? "POST" : "GET"),
    headers,
    body: init.body ?? (init.json !== undefined ? JSON.stringify(init.json) : undefined),
  });
}

async function signIn(apiKey: string): Promise<string> {
  const res = await dash("/dashboard/api/session", { json: { api_key: apiKey } });
  expect(res.status).toBe(200);
  return res.headers.get("set-cookie")!.split(";")[0]!;
}

async function starter(cookie: string, id: string) {
  const { data } = (await (await dash("/dashboard/api/starters", { cookie })).json()) as any;
  const { name, description, html, fields, themes, width, height, sample } = data.find((s: any) => s.id === id);
  return { id, name, description, html, fields, themes, width, height, sample };
}

describe("template studio endpoints", () => {
  test("need a session, and state changes need this server's Origin", async () => {
    expect((await dash("/dashboard/api/account-templates")).status).toBe(401);
    expect((await dash("/dashboard/api/starters")).status).toBe(401);
    const { apiKey } = await s.createAccount({ plan: "pro" });
    const cookie = await signIn(apiKey);
    const definition = await starter(cookie, "quote");
    expect((await dash("/dashboard/api/account-templates", { cookie, json: definition, origin: "https://evil.example" })).status).toBe(403);
    expect((await dash("/dashboard/api/account-templates", { cookie, json: definition, origin: null })).status).toBe(403);
    expect((await dash("/dashboard/api/account-templates/preview", { cookie, json: { template: definition }, origin: "https://evil.example" })).status).toBe(
      403,
    );
  });

  test("create, new version, versions, read one, delete; another account sees none of it", async () => {
    const { apiKey } = await s.createAccount({ plan: "pro" });
    const cookie = await signIn(apiKey);
    const definition = await starter(cookie, "release-notes");
    const created = await dash("/dashboard/api/account-templates", { cookie, json: { ...definition, id: "notes" } });
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({ id: "notes", version: 1, source: "account" });
    const updated = await dash("/dashboard/api/account-templates/notes", { cookie, method: "PUT", json: { ...definition, id: "notes", name: "Notes, again" } });
    expect(await updated.json()).toMatchObject({ id: "notes", version: 2, name: "Notes, again" });
    expect(((await (await dash("/dashboard/api/account-templates/notes/versions", { cookie })).json()) as any).data.map((v: any) => v.version).sort()).toEqual([
      1, 2,
    ]);
    expect(await (await dash("/dashboard/api/account-templates/notes/versions/1", { cookie })).json()).toMatchObject({ version: 1, name: definition.name });
    // The same template through the API key: the dashboard and /api/templates are one store.
    expect(((await (await s.api("/api/templates/notes", { key: apiKey })).json()) as any).version).toBe(2);

    const other = await signIn((await s.createAccount({ plan: "pro" })).apiKey);
    for (const path of [
      "/dashboard/api/account-templates/notes",
      "/dashboard/api/account-templates/notes/versions",
      "/dashboard/api/account-templates/notes/versions/1",
    ]) {
      const res = await dash(path, { cookie: other });
      expect({ path, status: res.status, code: ((await res.json()) as any).code }).toEqual({ path, status: 404, code: "TEMPLATE_NOT_FOUND" });
    }
    expect((await dash("/dashboard/api/account-templates/notes", { cookie: other, method: "DELETE" })).status).toBe(404);
    expect(((await (await dash("/dashboard/api/account-templates", { cookie: other })).json()) as any).data).toEqual([]);

    expect(await (await dash("/dashboard/api/account-templates/notes", { cookie, method: "DELETE" })).json()).toEqual({ id: "notes", deleted: true });
    expect((await dash("/dashboard/api/account-templates/notes", { cookie })).status).toBe(404);
  });

  test("a preview is the API's preview (capped at 1500 px, marked) and not counted; a definition error names its line", async () => {
    const { apiKey } = await s.createAccount({ plan: "pro" });
    const cookie = await signIn(apiKey);
    const definition = await starter(cookie, "product-launch");
    const before = ((await (await s.api("/api/user/usage", { key: apiKey })).json()) as any).used;

    const portrait = await dash("/dashboard/api/account-templates/preview", {
      cookie,
      json: { template: definition, width: 1000, height: 1500, theme: "light" },
    });
    expect(portrait.status).toBe(200);
    expect(portrait.headers.get("cache-control")).toBe("no-store");
    expect(decodePng(new Uint8Array(await portrait.arrayBuffer()))).toMatchObject({ width: 1000, height: 1500 });
    const large = await dash("/dashboard/api/account-templates/preview", { cookie, json: { template: definition, width: 2400, height: 1260 } });
    expect(decodePng(new Uint8Array(await large.arrayBuffer()))).toMatchObject({ width: 1500, height: 788 });
    expect(((await (await s.api("/api/user/usage", { key: apiKey })).json()) as any).used).toBe(before);
    // The same picture, PREVIEW mark included, as the API's own preview route draws.
    const same = { template: definition, width: 1200, height: 630, theme: "dark" };
    const fromDashboard = new Uint8Array(await (await dash("/dashboard/api/account-templates/preview", { cookie, json: same })).arrayBuffer());
    const fromApi = await s.api("/api/templates/preview", { key: apiKey, json: same });
    expect(fromApi.status).toBe(200);
    expect(Buffer.from(fromDashboard).equals(Buffer.from(new Uint8Array(await fromApi.arrayBuffer())))).toBe(true);

    // An undeclared placeholder on the third line: the same 400 as creating it, with its place.
    const broken = { ...definition, html: '<div style="display: flex;">\n  <h1>{{title}}</h1>\n  <p>{{missing}}</p>\n</div>' };
    const refused = await dash("/dashboard/api/account-templates/preview", { cookie, json: { template: broken } });
    expect(refused.status).toBe(400);
    const body = (await refused.json()) as any;
    expect(body.code).toBe("VALIDATION_ERROR");
    expect(body.details).toContainEqual(expect.objectContaining({ field: "html", line: 3 }));
    expect((await dash("/dashboard/api/account-templates/preview", { cookie, json: {} })).status).toBe(400);
  });

  test("the starters: at least six, each created as is and drawn from its sample values; their pictures are PNGs", async () => {
    const { apiKey } = await s.createAccount({ plan: "pro" });
    const cookie = await signIn(apiKey);
    const { data } = (await (await dash("/dashboard/api/starters", { cookie })).json()) as any;
    expect(data.length).toBeGreaterThanOrEqual(6);
    for (const item of data) {
      const created = await s.api("/api/templates", { key: apiKey, json: item });
      expect({ id: item.id, status: created.status }).toEqual({ id: item.id, status: 201 });
      const picture = await dash(`/dashboard/api/starters/${item.id}/picture`, { cookie });
      expect(picture.headers.get("content-type")).toBe("image/png");
      expect([...new Uint8Array(await picture.arrayBuffer()).subarray(1, 4)]).toEqual([0x50, 0x4e, 0x47]);
    }
    // Rendered through the API by id, with the sample values.
    const quote = data.find((item: any) => item.id === "quote");
    const image = await s.api("/api/generate", { key: apiKey, json: { template: "quote", ...quote.sample } });
    expect(image.status).toBe(200);
    expect(decodePng(new Uint8Array(await image.arrayBuffer())).width).toBe(1200);
    expect((await dash("/dashboard/api/starters/nope/picture", { cookie })).status).toBe(404);
  });

  test("bodies the size of a large template pass (the editor's routes take up to 1 MiB, like /api/templates)", async () => {
    const { apiKey } = await s.createAccount({ plan: "pro" });
    const cookie = await signIn(apiKey);
    const definition = await starter(cookie, "quote");
    // About 200 KiB of HTML: a comment-free run of nested elements the language accepts.
    const html = `<div style="display: flex; flex-direction: column;">${'<div style="display: flex; width: 10px; height: 1px; background-color: #123456;"></div>'.repeat(1800)}<p>{{quote}}</p></div>`;
    expect(html.length).toBeGreaterThan(150_000);
    const res = await dash("/dashboard/api/account-templates", { cookie, json: { ...definition, id: "big", html } });
    expect(res.status).toBe(201);
    const tooLarge = await dash("/dashboard/api/account-templates", {
      cookie,
      body: JSON.stringify({ ...definition, id: "huge", html: "x".repeat(1024 * 1024 + 10) }),
    });
    expect(tooLarge.status).toBe(413);
  });
  test("the code editor is served from this server, gzipped for browsers that take it", async () => {
    const page = await (await fetch(s.url + "/dashboard")).text();
    const version = /dashboard\.js\?v=([a-z0-9]+)/.exec(page)![1];
    const editor = await (await fetch(`${s.url}/dashboard/assets/template-editor.js?v=${version}`)).text();
    expect(editor).toContain(`import("./code-editor.js?v=${version}")`);
    const plain = await fetch(`${s.url}/dashboard/assets/code-editor.js?v=${version}`, { headers: { "accept-encoding": "identity" } });
    expect(plain.headers.get("content-encoding")).toBeNull();
    const text = await plain.text();
    expect(text).toContain("cm-content");
    const gzipped = await fetch(`${s.url}/dashboard/assets/code-editor.js?v=${version}`, { headers: { "accept-encoding": "gzip" }, decompress: false });
    expect(gzipped.headers.get("content-encoding")).toBe("gzip");
    expect(gzipped.headers.get("vary")).toBe("accept-encoding");
    const bytes = new Uint8Array(await gzipped.arrayBuffer());
    expect(bytes.byteLength).toBeLessThan(text.length / 2);
    expect(new TextDecoder().decode(Bun.gunzipSync(bytes))).toBe(text);
  });
});
