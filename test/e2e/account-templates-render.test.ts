/**
 * Rendering an account's own template end to end (real server, real render workers, the disk
 * cache on; SQLite by default, OG_TEST_STORE=postgres for PostgreSQL): POST /api/generate,
 * version pinning (`template_version`) and ETags, signed URLs with and without `v` (their
 * Cache-Control), POST /api/image-urls writing `v`, `ogsmith sign` with a version, deletion
 * (400 UNKNOWN_TEMPLATE everywhere), another account's id, and a template deleted and created
 * again never meeting the cached images of the one before.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildSignedUrl } from "../../src/signing/index.ts";
import { execStoreSql, startTestService, type TestService } from "../support/harness.ts";
import { decodePng, pixelAt } from "../support/png.ts";
import { runCli } from "../support/process.ts";

let s: TestService;
let cacheDir: string;
beforeAll(async () => {
  cacheDir = mkdtempSync(join(tmpdir(), "ogsmith-account-render-"));
  s = await startTestService({ OG_CACHE_DIR: cacheDir });
});
afterAll(async () => {
  await s.stop();
  rmSync(cacheDir, { recursive: true, force: true });
});

const RED: [number, number, number] = [255, 0, 0];
const BLUE: [number, number, number] = [0, 0, 255];
const GREEN: [number, number, number] = [0, 255, 0];
const hex = ([r, g, b]: [number, number, number]) => `#${[r, g, b].map((c) => c.toString(16).padStart(2, "0")).join("")}`;

/** A flat card of one colour with the title in the middle: its corner pixel says which version drew it. */
const card = (id: string, colour: [number, number, number]) => ({
  id,
  name: `Card ${id}`,
  html: `<div style="display:flex;width:100%;height:100%;align-items:center;justify-content:center;background:${hex(colour)};color:#ffffff"><h1 style="font-size:60px">{{title}}</h1></div>`,
  fields: [{ name: "title", type: "text", required: true, max_length: 80 }],
  sample: { title: "Sample" },
});

const newKey = async () => (await s.createAccount({ plan: "custom", quota: 100_000, requests_per_second: 10_000 })).apiKey;

async function expectError(res: Response, status: number, code: string) {
  const body = await res.json();
  expect({ status: res.status, code: body.code }).toEqual({ status, code });
  return body as { message: string; details?: { field: string; message: string }[] };
}

async function corner(res: Response): Promise<[number, number, number]> {
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("image/png");
  const png = decodePng(new Uint8Array(await res.arrayBuffer()));
  const [r, g, b] = pixelAt(png, 4, 4);
  return [r, g, b];
}

const generate = (key: string, body: Record<string, unknown>) => s.api("/api/generate", { key, json: { width: 400, height: 210, ...body } });

describe("POST /api/generate with an account template", () => {
  let key: string;
  const etags: Record<string, string> = {};
  beforeAll(async () => {
    key = await newKey();
    expect((await s.api("/api/templates", { key, json: card("promo", RED) })).status).toBe(201);
  });

  test("renders the account's template (the latest version) and counts it", async () => {
    const res = await generate(key, { template: "promo", title: "Hello" });
    etags.v1 = res.headers.get("etag")!;
    expect(await corner(res)).toEqual(RED);
    expect(etags.v1).toMatch(/^"[0-9a-f]{64}"$/);
    expect(res.headers.get("x-quota-remaining")).toBe(String(100_000 - 1));
  });

  test("after an update the latest is version 2, with another ETag; version 1 pinned still renders version 1", async () => {
    expect((await s.api("/api/templates/promo", { key, method: "PUT", json: card("promo", BLUE) })).status).toBe(200);
    const latest = await generate(key, { template: "promo", title: "Hello" });
    etags.v2 = latest.headers.get("etag")!;
    expect(await corner(latest)).toEqual(BLUE);
    expect(etags.v2).not.toBe(etags.v1);

    const pinned = await generate(key, { template: "promo", title: "Hello", template_version: 1 });
    expect(pinned.headers.get("etag")).toBe(etags.v1);
    expect(await corner(pinned)).toEqual(RED);
    const pinned2 = await generate(key, { template: "promo", title: "Hello", template_version: 2 });
    expect(pinned2.headers.get("etag")).toBe(etags.v2);
    expect(await corner(pinned2)).toEqual(BLUE);
  });

  test("a version that does not exist, or a malformed one, is 400 VALIDATION_ERROR naming template_version", async () => {
    for (const template_version of [3, 0, "1", 1.5]) {
      const body = await expectError(await generate(key, { template: "promo", title: "Hello", template_version }), 400, "VALIDATION_ERROR");
      expect(body.details?.map((d) => d.field)).toEqual(["template_version"]);
    }
    // Every bad field in one answer.
    const both = await expectError(await generate(key, { template: "promo", template_version: "x" }), 400, "VALIDATION_ERROR");
    expect(both.details?.map((d) => d.field).sort()).toEqual(["template_version", "title"]);
    // Built-in templates have no versions.
    const builtin = await expectError(await generate(key, { template: "event", title: "x", template_version: 1 }), 400, "VALIDATION_ERROR");
    expect(builtin.details?.map((d) => d.field)).toEqual(["template_version"]);
  });

  test("the template's own fields are validated: unknown names and missing required ones", async () => {
    const body = await expectError(await generate(key, { template: "promo", subtitle: "no" }), 400, "VALIDATION_ERROR");
    expect(body.details?.map((d) => d.field).sort()).toEqual(["subtitle", "title"]);
  });

  test("another account cannot render it (400 UNKNOWN_TEMPLATE, like a missing one) and may have its own promo", async () => {
    const other = await newKey();
    const theirs = await expectError(await generate(other, { template: "promo", title: "Hello" }), 400, "UNKNOWN_TEMPLATE");
    const missing = await expectError(await generate(other, { template: "nosuch", title: "Hello" }), 400, "UNKNOWN_TEMPLATE");
    expect(theirs.message.replace("promo", "X")).toBe(missing.message.replace("nosuch", "X"));
    expect((await s.api("/api/templates", { key: other, json: card("promo", GREEN) })).status).toBe(201);
    const own = await generate(other, { template: "promo", title: "Hello" });
    // Same id, same version number, same fields: another account's content address.
    expect(own.headers.get("etag")).not.toBe(etags.v1);
    expect(await corner(own)).toEqual(GREEN);
  });

  test("a deleted template no longer renders (400 UNKNOWN_TEMPLATE, pinned or not); created again, it never shows the old images", async () => {
    const k = await newKey();
    expect((await s.api("/api/templates", { key: k, json: card("flash", RED) })).status).toBe(201);
    const before = await generate(k, { template: "flash", title: "Hello" });
    const oldEtag = before.headers.get("etag");
    expect(await corner(before)).toEqual(RED);
    expect((await s.api("/api/templates/flash", { key: k, method: "DELETE" })).status).toBe(200);
    await expectError(await generate(k, { template: "flash", title: "Hello" }), 400, "UNKNOWN_TEMPLATE");
    await expectError(await generate(k, { template: "flash", title: "Hello", template_version: 1 }), 400, "UNKNOWN_TEMPLATE");
    expect((await s.api("/api/templates", { key: k, json: card("flash", GREEN) })).status).toBe(201);
    const after = await generate(k, { template: "flash", title: "Hello" });
    expect(after.headers.get("etag")).not.toBe(oldEtag);
    expect(await corner(after)).toEqual(GREEN);
  });
});

describe("signed URLs and POST /api/image-urls", () => {
  let key: string;
  let signing: { id: string; secret: string };
  const url = (params: Record<string, string>, template = "promo") =>
    buildSignedUrl({ baseUrl: s.url, keyId: signing.id, secret: signing.secret, template, ext: "png", params });

  beforeAll(async () => {
    key = await newKey();
    expect((await s.api("/api/templates", { key, json: card("promo", RED) })).status).toBe(201);
    expect((await s.api("/api/templates/promo", { key, method: "PUT", json: card("promo", BLUE) })).status).toBe(200);
    signing = await (await s.api("/api/signing-keys", { key, method: "POST" })).json();
  });

  test("without v: the latest version, Cache-Control public, max-age=3600 (not immutable)", async () => {
    const res = await fetch(url({ title: "Signed", width: "400", height: "210" }));
    expect(res.headers.get("cache-control")).toBe("public, max-age=3600");
    expect(await corner(res)).toEqual(BLUE);
  });

  test("with v: that version, immutable for a year; its ETag is POST's for the same image", async () => {
    const res = await fetch(url({ title: "Signed", width: "400", height: "210", v: "1" }));
    expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const etag = res.headers.get("etag");
    expect(await corner(res)).toEqual(RED);
    const posted = await generate(key, { template: "promo", title: "Signed", template_version: 1 });
    expect(posted.headers.get("etag")).toBe(etag);
    const notModified = await fetch(url({ title: "Signed", width: "400", height: "210", v: "1" }), { headers: { "if-none-match": etag! } });
    expect(notModified.status).toBe(304);
  });

  test("v is signed: changing it breaks the signature; a v that does not exist is 400 naming template_version", async () => {
    const signed = url({ title: "Signed", v: "1" });
    await expectError(await fetch(signed.replace("v=1", "v=2")), 401, "INVALID_SIGNATURE");
    const body = await expectError(await fetch(url({ title: "Signed", v: "9" })), 400, "VALIDATION_ERROR");
    expect(body.details?.map((d) => d.field)).toEqual(["template_version"]);
    await expectError(await fetch(url({ title: "Signed", v: "1" }, "event")), 400, "VALIDATION_ERROR");
  });

  test("POST /api/image-urls always writes v: the latest version unless template_version is given", async () => {
    const latest = await s.api("/api/image-urls", { key, json: { template: "promo", title: "From API", signing_key_id: signing.id, width: 400, height: 210 } });
    expect(latest.status).toBe(200);
    const { url: latestUrl } = await latest.json();
    expect(new URL(latestUrl).searchParams.get("v")).toBe("2");
    // The URL is on OG_BASE_URL; the test server listens elsewhere.
    const signedPath = new URL(latestUrl);
    const fetched = await fetch(s.url + signedPath.pathname + signedPath.search);
    expect(fetched.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(await corner(fetched)).toEqual(BLUE);

    const pinned = await (
      await s.api("/api/image-urls", { key, json: { template: "promo", title: "From API", template_version: 1, signing_key_id: signing.id } })
    ).json();
    expect(new URL(pinned.url).searchParams.get("v")).toBe("1");
    // Built-in templates get no v.
    const builtin = await (await s.api("/api/image-urls", { key, json: { template: "event", title: "x", signing_key_id: signing.id } })).json();
    expect(new URL(builtin.url).searchParams.has("v")).toBe(false);
    await expectError(
      await s.api("/api/image-urls", { key, json: { template: "promo", title: "x", template_version: 5, signing_key_id: signing.id } }),
      400,
      "VALIDATION_ERROR",
    );
  });

  test("ogsmith sign takes template_version and signs it as v; the server answers the URL", async () => {
    const body = JSON.stringify({ template: "promo", title: "From CLI", template_version: 1, width: 400, height: 210 });
    const { code, stdout, stderr } = await runCli(["sign", "--key-id", signing.id, "--base-url", s.url, "--json", body], { OG_SIGNING_SECRET: signing.secret });
    expect(code).toBe(0);
    expect(stderr).toContain("account template");
    const signedUrl = stdout.trim();
    expect(new URL(signedUrl).searchParams.get("v")).toBe("1");
    expect(await corner(await fetch(signedUrl))).toEqual(RED);
  });

  test("a deleted template's URLs answer 400 UNKNOWN_TEMPLATE (no-store), with and without v", async () => {
    const k = await newKey();
    expect((await s.api("/api/templates", { key: k, json: card("temp", RED) })).status).toBe(201);
    const sk = await (await s.api("/api/signing-keys", { key: k, method: "POST" })).json();
    const u = (params: Record<string, string>) => buildSignedUrl({ baseUrl: s.url, keyId: sk.id, secret: sk.secret, template: "temp", ext: "png", params });
    expect(await corner(await fetch(u({ title: "x", width: "400", height: "210" })))).toEqual(RED);
    expect(await corner(await fetch(u({ title: "x", width: "400", height: "210", v: "1" })))).toEqual(RED);
    expect((await s.api("/api/templates/temp", { key: k, method: "DELETE" })).status).toBe(200);
    for (const params of [
      { title: "x", width: "400", height: "210" },
      { title: "x", width: "400", height: "210", v: "1" },
    ] as Record<string, string>[]) {
      const res = await fetch(u(params));
      expect(res.headers.get("cache-control")).toBe("no-store");
      await expectError(res, 400, "UNKNOWN_TEMPLATE");
    }
  });
});

describe("a template the account does not have", () => {
  test("400 UNKNOWN_TEMPLATE lists the account's own templates beside the global ones; a signed URL's viewer hears the global ones only", async () => {
    const k = await newKey();
    for (const id of ["promo", "sale", "flash", "quote"]) expect((await s.api("/api/templates", { key: k, json: card(id, RED) })).status).toBe(201);
    const known = "event, blog, flash, promo, quote, sale";
    const generated = await expectError(await generate(k, { template: "promoo", title: "Hello" }), 400, "UNKNOWN_TEMPLATE");
    expect(generated.message).toBe(`Unknown template "promoo". Known templates: ${known}.`);
    expect(generated.details).toEqual([{ field: "template", message: `must be one of ${known}` }]);
    // Pinned to a version, and when signing a URL: the same answer.
    const pinned = await expectError(await generate(k, { template: "promoo", title: "Hello", template_version: 1 }), 400, "UNKNOWN_TEMPLATE");
    expect(pinned.message).toBe(generated.message);
    const sk = await (await s.api("/api/signing-keys", { key: k, method: "POST" })).json();
    const signing = await expectError(
      await s.api("/api/image-urls", { key: k, json: { signing_key_id: sk.id, template: "promoo", title: "Hello" } }),
      400,
      "UNKNOWN_TEMPLATE",
    );
    expect(signing.message).toBe(generated.message);
    // A signed URL is public: whoever holds one does not learn the account's template ids.
    const url = buildSignedUrl({ baseUrl: s.url, keyId: sk.id, secret: sk.secret, template: "promoo", ext: "png", params: { title: "x" } });
    expect((await expectError(await fetch(url), 400, "UNKNOWN_TEMPLATE")).message).toBe('Unknown template "promoo". Known templates: event, blog.');
  });
});

describe("a version stored before the paint budget", () => {
  test("still renders: the budget is checked when a definition is written, not when a stored one is drawn", async () => {
    const key = await newKey();
    expect((await s.api("/api/templates", { key, json: card("legacy", RED) })).status).toBe(201);
    // What an older server accepted: eight colour filters, each a pass over the whole canvas.
    const html = `<div style="display:flex;width:100%;height:100%;justify-content:flex-end;align-items:flex-end;background:${hex(GREEN)}">${'<div style="width:40px;height:40px;background:#00f;filter:brightness(0.9)"></div>'.repeat(8)}</div>`;
    const stored = (await (await s.api("/api/templates/legacy", { key })).json()) as Record<string, unknown>;
    const definition = JSON.stringify({
      id: stored.id,
      name: stored.name,
      description: stored.description,
      html,
      fields: stored.fields,
      themes: stored.themes,
      width: stored.width,
      height: stored.height,
      sample: stored.sample,
    });
    const refused = await expectError(await s.api("/api/templates/legacy", { key, method: "PUT", json: JSON.parse(definition) }), 400, "VALIDATION_ERROR");
    expect(refused.details?.[0]?.message).toMatch(/units of work/);
    const digest = new Bun.CryptoHasher("sha256").update(definition).digest("hex");
    await execStoreSql(s.storeEnv.OG_DB_PATH!, "UPDATE account_template_versions SET definition = ?, digest = ? WHERE template_id = ? AND version = 1", [
      definition,
      digest,
      "legacy",
    ]);
    // The stored definition's green, not the red of the version the API stored.
    const [r, g, b] = await corner(await generate(key, { template: "legacy", title: "Old" }));
    expect({ r: r < 40, g: g > 200, b: b < 40 }).toEqual({ r: true, g: true, b: true });
  });
});
