/**
 * Account fonts (/api/fonts) in process (test/support/in-process.ts), drawn by real render processes.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { testEngine } from "../support/engines.ts";
import { asset, inkIn, pixelFont, sfntFromWoff, woff2Of } from "../support/fonts.ts";
import { decodePng } from "../support/png.ts";
import { startInProcessApp, type InProcessApp } from "../support/in-process.ts";

/**
 * Account fonts through the app in process (real render processes; SQLite by default,
 * OG_TEST_STORE=postgres for PostgreSQL, OG_TEST_ENGINE=takumi for the other engine): uploading
 * each format, what a file that is no font, a variable font or too large gets, the per-account
 * bounds, cards drawn in the uploaded face (pixels against the bundled sans), isolation between
 * accounts, replacing a face (drawn again) and deleting it (400 naming the family), the preview's
 * warning, and a font surviving a restart.
 */
describe("account fonts", () => {
  let s: InProcessApp;
  let dbDir: string;
  const engine = testEngine();
  beforeAll(async () => {
    dbDir = mkdtempSync(join(tmpdir(), "ogsmith-fonts-"));
    s = await startInProcessApp({ OG_DB_PATH: join(dbDir, "og.db"), OG_RENDER_ENGINE: engine });
  });
  afterAll(async () => {
    await s?.stop();
    rmSync(dbDir, { recursive: true, force: true });
  });

  const newKey = async () => (await s.createAccount({ plan: "custom", quota: 100_000, requests_per_second: 10_000 })).apiKey;

  function upload(key: string, file: Uint8Array, fields: Record<string, string> = {}, name = "font.bin", service = s) {
    const form = new FormData();
    form.set("file", new Blob([file as Uint8Array<ArrayBuffer>]), name);
    for (const [k, v] of Object.entries(fields)) form.set(k, v);
    return service.api("/api/fonts", { key, body: form, method: "POST" });
  }

  async function expectError(res: Response, status: number, code: string) {
    const body = (await res.json()) as { code: string; message: string; details?: { field: string; message: string }[] };
    expect({ status: res.status, code: body.code }).toEqual({ status, code });
    return body;
  }

  /** A white card with black text in `family` (or no family): its ink says which face drew it. */
  const card = (id: string, family?: string) => ({
    id,
    html: `<div style="display:flex;width:100%;height:100%;padding:40px;background:#ffffff;color:#000000;font-size:96px${family ? `;font-family:${family}` : ""}">{{title}}</div>`,
    fields: [{ name: "title", type: "text", required: true }],
    sample: { title: "Hello Brand" },
  });

  async function inkOf(res: Response): Promise<number> {
    expect(res.status).toBe(200);
    const png = decodePng(new Uint8Array(await res.arrayBuffer()));
    return inkIn(png.pixels, png.width, { x: 0, y: 0, w: png.width, h: png.height });
  }

  const generate = (key: string, template: string, service = s) =>
    service.api("/api/generate", { key, json: { template, title: "Hello Brand", width: 600, height: 315 } });

  describe("uploading", () => {
    test("TTF, OTF, WOFF and WOFF2: 201 with what the file says about itself", async () => {
      const key = await newKey();
      const ttf = sfntFromWoff(asset("source-serif-4-latin-700-normal.woff"));
      const cases: [Uint8Array, Record<string, string>, Record<string, unknown>][] = [
        [pixelFont("Blocky Test", { weight: 700 }), {}, { family: "Blocky Test", weight: 700, style: "normal", format: "otf" }],
        [ttf, { family: "Brand Serif" }, { family: "Brand Serif", weight: 700, style: "normal", format: "ttf" }],
        [asset("jetbrains-mono-latin-400-italic.woff"), { family: "Brand Mono" }, { family: "Brand Mono", weight: 400, style: "italic", format: "woff" }],
        [
          await woff2Of(sfntFromWoff(asset("source-serif-4-latin-400-normal.woff"))),
          { family: "Brand Serif", weight: "400" },
          { family: "Brand Serif", weight: 400, style: "normal", format: "woff2" },
        ],
      ];
      for (const [file, fields, expected] of cases) {
        const res = await upload(key, file, fields);
        const body = (await res.json()) as Record<string, unknown>;
        expect(res.status).toBe(201);
        expect(body).toMatchObject({ ...expected, bytes: file.byteLength, variable: false });
        expect(body.id).toMatch(/^font_[A-Za-z0-9]+$/);
        expect(body.glyphs as number).toBeGreaterThan(10);
        expect(Date.parse(body.created_at as string)).toBeGreaterThan(0);
      }
      const list = (await (await s.api("/api/fonts", { key })).json()) as { data: { family: string; source: string; weight?: number }[] };
      expect(list.data.filter((f) => f.source === "account").map((f) => `${f.family} ${f.weight}`)).toEqual([
        "Blocky Test 700",
        "Brand Mono 400",
        "Brand Serif 400",
        "Brand Serif 700",
      ]);
      expect(list.data.filter((f) => f.source === "builtin").map((f) => f.family)).toEqual(["Inter", "Source Serif 4", "JetBrains Mono"]);
    });

    test("a file that is no font is 400 naming file; a variable font is 400 saying why; JSON is 415", async () => {
      const key = await newKey();
      const notFont = await expectError(await upload(key, new TextEncoder().encode("<html>this is not a font at all</html>")), 400, "VALIDATION_ERROR");
      expect(notFont.details?.[0]?.field).toBe("file");
      const garbage = new Uint8Array(4096);
      garbage.set([0x4f, 0x54, 0x54, 0x4f]);
      expect((await expectError(await upload(key, garbage), 400, "VALIDATION_ERROR")).details?.[0]?.field).toBe("file");

      const variable = await expectError(await upload(key, pixelFont("Vary", { variable: true })), 400, "VALIDATION_ERROR");
      expect(variable.details?.[0]?.field).toBe("file");
      expect(variable.details?.[0]?.message).toContain("variable font");

      await expectError(await s.api("/api/fonts", { key, json: { file: "x" } }), 415, "UNSUPPORTED_MEDIA_TYPE");
      const bad = await expectError(await upload(key, pixelFont("Ok"), { weight: "450", style: "oblique", family: "Inter" }), 400, "VALIDATION_ERROR");
      expect(bad.details?.map((d) => d.field).sort()).toEqual(["style", "weight"]);
      expect((await expectError(await upload(key, pixelFont("Ok"), { family: "Inter" }), 400, "VALIDATION_ERROR")).details?.[0]?.field).toBe("family");
      // Nothing was stored.
      const list = (await (await s.api("/api/fonts", { key })).json()) as { data: { source: string }[] };
      expect(list.data.filter((f) => f.source === "account")).toEqual([]);
    });

    test("bounds: a file over 5 MiB is 413; the 21st font and the 21st MiB are 409", async () => {
      const key = await newKey();
      const big = new Uint8Array(5 * 1024 * 1024 + 1);
      big.set(pixelFont("Big"));
      await expectError(await upload(key, big), 413, "PAYLOAD_TOO_LARGE");

      for (let i = 0; i < 20; i++) expect((await upload(key, pixelFont(`Family ${i}`))).status).toBe(201);
      const tooMany = await expectError(await upload(key, pixelFont("Family 20")), 409, "CONFLICT");
      expect(tooMany.message).toContain("20 fonts");
      // Replacing a face the account has is not a 21st font.
      expect((await upload(key, pixelFont("Family 3", { hollow: true }))).status).toBe(201);

      const heavy = await newKey();
      const padded = (family: string) => {
        const file = new Uint8Array(4_900_000);
        file.set(pixelFont(family));
        return file;
      };
      for (let i = 0; i < 4; i++) expect((await upload(heavy, padded(`Heavy ${i}`))).status).toBe(201);
      const tooLarge = await expectError(await upload(heavy, padded("Heavy 4")), 409, "CONFLICT");
      expect(tooLarge.message).toContain("20 MiB");
    });
  });

  describe("drawing", () => {
    test("a template draws in the uploaded face, not in the bundled sans; a glyph it lacks falls back", async () => {
      const key = await newKey();
      expect((await upload(key, pixelFont("Blocky"))).status).toBe(201);
      expect((await s.api("/api/templates", { key, json: card("inter-card") })).status).toBe(201);
      expect((await s.api("/api/templates", { key, json: card("blocky-card", "Blocky") })).status).toBe(201);
      const inter = await inkOf(await generate(key, "inter-card"));
      const blocky = await inkOf(await generate(key, "blocky-card"));
      // Every letter a filled box: several times the ink of Inter's strokes.
      expect(blocky).toBeGreaterThan(inter * 2);

      // "é" is not in the pixel font: Inter draws it, no glyph is missing.
      const res = await s.api("/api/generate", { key, json: { template: "blocky-card", title: "Café", width: 600, height: 315 } });
      expect(res.status).toBe(200);
      expect(res.headers.get("x-missing-glyphs") ?? "0").toBe("0");
    });

    test("Tailwind's font-[…] names an account family too", async () => {
      const key = await newKey();
      expect((await upload(key, pixelFont("Blocky Tw"))).status).toBe(201);
      const tw = { ...card("tw-card"), html: card("tw-card").html.replace('style="', 'class="font-[Blocky_Tw]" style="') };
      expect((await s.api("/api/templates", { key, json: tw })).status).toBe(201);
      expect((await s.api("/api/templates", { key, json: card("plain") })).status).toBe(201);
      expect(await inkOf(await generate(key, "tw-card"))).toBeGreaterThan((await inkOf(await generate(key, "plain"))) * 2);
    });

    test("isolation: another account naming the same family gets 400; it cannot see or delete the font", async () => {
      const owner = await newKey();
      const other = await newKey();
      const font = (await (await upload(owner, pixelFont("Private Face"))).json()) as { id: string };
      const refused = await expectError(await s.api("/api/templates", { key: other, json: card("steal", "Private Face") }), 400, "VALIDATION_ERROR");
      expect(refused.details?.[0]).toMatchObject({ field: "html" });
      expect(refused.details?.[0]?.message).toContain('"Private Face"');
      const list = (await (await s.api("/api/fonts", { key: other })).json()) as { data: { source: string }[] };
      expect(list.data.filter((f) => f.source === "account")).toEqual([]);
      await expectError(await s.api(`/api/fonts/${font.id}`, { key: other, method: "DELETE" }), 404, "NOT_FOUND");
      // The owner still has it.
      expect((await s.api("/api/templates", { key: owner, json: card("mine", "Private Face") })).status).toBe(201);
    });

    test("replacing a face draws the card again; deleting it makes the template answer 400 naming the family", async () => {
      const key = await newKey();
      const first = (await (await upload(key, pixelFont("Swap"))).json()) as { id: string };
      expect((await s.api("/api/templates", { key, json: card("swap-card", "Swap") })).status).toBe(201);
      const filled = await generate(key, "swap-card");
      const filledEtag = filled.headers.get("etag");
      const filledInk = await inkOf(filled);
      // The same family, weight and style: it replaces the first.
      const second = (await (await upload(key, pixelFont("Swap", { hollow: true }))).json()) as { id: string };
      expect(second.id).not.toBe(first.id);
      const hollow = await generate(key, "swap-card");
      expect(hollow.headers.get("etag")).not.toBe(filledEtag);
      expect(await inkOf(hollow)).toBeLessThan(filledInk * 0.8);

      const deleted = await s.api(`/api/fonts/${second.id}`, { key, method: "DELETE" });
      expect(deleted.status).toBe(200);
      expect(await deleted.json()).toEqual({ id: second.id, deleted: true });
      const gone = await expectError(await generate(key, "swap-card"), 400, "VALIDATION_ERROR");
      expect(gone.message + JSON.stringify(gone.details)).toContain('"Swap"');
      await expectError(await s.api(`/api/fonts/${second.id}`, { key, method: "DELETE" }), 404, "NOT_FOUND");
    });

    test("a preview draws an unknown family in Inter and says so in X-Template-Warnings; create refuses it", async () => {
      const key = await newKey();
      const res = await s.api("/api/templates/preview", { key, json: { template: card("draft", "Nowhere Sans") } });
      expect(res.status).toBe(200);
      const warnings = JSON.parse(res.headers.get("x-template-warnings") ?? "[]") as string[];
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain("Nowhere Sans");
      const known = await s.api("/api/templates/preview", { key, json: { template: card("draft", "Nowhere Sans, serif") } });
      expect(known.headers.get("x-template-warnings")).toBeNull();
      await expectError(await s.api("/api/templates", { key, json: card("draft", "Nowhere Sans") }), 400, "VALIDATION_ERROR");
    });

    test("serif and monospace draw the bundled faces", async () => {
      const key = await newKey();
      for (const [id, family] of [
        ["sans", "sans-serif"],
        ["serif", "serif"],
        ["mono", "monospace"],
      ] as const) {
        expect((await s.api("/api/templates", { key, json: card(id, family) })).status).toBe(201);
      }
      // One after another: an account's own templates render on its share of the processes, and
      // three cold ones at once may be refused as too long a wait on a loaded machine.
      const drawn: Uint8Array[] = [];
      for (const id of ["sans", "serif", "mono"]) {
        const res = await generate(key, id);
        expect(res.status).toBe(200);
        drawn.push(new Uint8Array(await res.arrayBuffer()));
      }
      const [sans, serif, mono] = drawn;
      expect(Buffer.compare(sans!, serif!)).not.toBe(0);
      expect(Buffer.compare(sans!, mono!)).not.toBe(0);
      expect(Buffer.compare(serif!, mono!)).not.toBe(0);
    });
  });

  describe("restart", () => {
    test("a font survives a restart of the service", async () => {
      const key = await newKey();
      expect((await upload(key, pixelFont("Durable"))).status).toBe(201);
      expect((await s.api("/api/templates", { key, json: card("durable", "Durable") })).status).toBe(201);
      const before = await inkOf(await generate(key, "durable"));
      await s.stop();
      const again = await startInProcessApp({ OG_DB_PATH: join(dbDir, "og.db"), OG_RENDER_ENGINE: engine });
      const stopped = s;
      s = again;
      void stopped;
      const list = (await (await s.api("/api/fonts", { key })).json()) as { data: { family: string; source: string }[] };
      expect(list.data.filter((f) => f.source === "account").map((f) => f.family)).toEqual(["Durable"]);
      expect(await inkOf(await generate(key, "durable"))).toBe(before);
    });
  });
});
