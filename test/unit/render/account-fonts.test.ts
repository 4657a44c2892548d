/**
 * Account fonts in the render path, on both engines: a card names an uploaded family and is drawn
 * in that face (against the bundled sans), in each format a font may be uploaded in; a glyph the
 * face lacks falls back to the bundled fonts; the render process's cache of font files stays
 * within its bound and hands every account its own names.
 */
import { describe, expect, test } from "bun:test";
import { RENDER_ENGINES } from "../../../src/render/engines/engine.ts";
import { renderTemplate } from "../../../src/render/engines/in-process.ts";
import { FontCache } from "../../../src/render/sandbox/font-cache.ts";
import { accountTemplateDefinition, parseAccountTemplate } from "../../../src/templates/account/index.ts";
import { asset, inkIn, pixelFont, sfntFromWoff, woff2Of } from "../../support/fonts.ts";
import { decodePng } from "../../support/png.ts";

const digestOf = (bytes: Uint8Array) => new Bun.CryptoHasher("sha256").update(bytes).digest("hex");

const template = (family?: string, text = "Hello Brand") =>
  accountTemplateDefinition(
    parseAccountTemplate({
      id: "card",
      html: `<div style="display:flex;width:100%;height:100%;padding:40px;background:#ffffff;color:#000000;font-size:110px${family ? `;font-family:${family}` : ""}">${text}</div>`,
    }),
  );

async function draw(
  engine: (typeof RENDER_ENGINES)[number],
  family: string | undefined,
  cache?: FontCache,
  faces: { bytes: Uint8Array; weight?: number }[] = [],
  text?: string,
) {
  for (const face of faces) cache!.add(digestOf(face.bytes), face.bytes);
  const cardFonts = faces.length
    ? await cache!.cardFonts({
        faces: faces.map((face) => ({ family: "Brand", weight: face.weight ?? 400, style: "normal" as const, digest: digestOf(face.bytes) })),
        bundled: [],
      })
    : undefined;
  const { bytes, missingGlyphs } = await renderTemplate(
    template(family, text),
    {},
    { width: 1200, height: 630, theme: "light", images: {}, engine, cardFonts },
  );
  const png = decodePng(bytes);
  return { png, missingGlyphs, ink: inkIn(png.pixels, png.width, { x: 0, y: 0, w: png.width, h: png.height }) };
}

const sameImage = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((v, i) => v === b[i]);

for (const engine of RENDER_ENGINES) {
  describe(`account fonts on ${engine}`, () => {
    test("each format draws in the uploaded face, not in the bundled sans", async () => {
      const sans = await draw(engine, undefined);
      const blocky = await draw(engine, "Brand", new FontCache(), [{ bytes: pixelFont("Any name") }]);
      // Letters drawn as filled boxes: far more ink than Inter's strokes.
      expect(blocky.ink).toBeGreaterThan(sans.ink * 2);
      const serifTtf = sfntFromWoff(asset("source-serif-4-latin-400-normal.woff"));
      for (const bytes of [serifTtf, asset("source-serif-4-latin-400-normal.woff"), await woff2Of(serifTtf)]) {
        const serif = await draw(engine, "Brand", new FontCache(), [{ bytes }]);
        expect(sameImage(serif.png.pixels, sans.png.pixels)).toBe(false);
        expect(serif.missingGlyphs).toEqual([]);
      }
      // The three serif files are one face: the same pixels whatever the container.
      const a = await draw(engine, "Brand", new FontCache(), [{ bytes: serifTtf }]);
      const b = await draw(engine, "Brand", new FontCache(), [{ bytes: await woff2Of(serifTtf) }]);
      expect(sameImage(a.png.pixels, b.png.pixels)).toBe(true);
    });

    test("CSS matching picks the nearest weight; a glyph the face lacks falls back to the bundled fonts", async () => {
      const cache = new FontCache();
      const faces = [
        { bytes: pixelFont("Brand"), weight: 400 },
        { bytes: pixelFont("Brand", { hollow: true }), weight: 800 },
      ];
      const regular = await draw(engine, "Brand", cache, faces);
      const boldTemplate = accountTemplateDefinition(
        parseAccountTemplate({
          id: "bold",
          html: '<div style="display:flex;width:100%;height:100%;padding:40px;background:#fff;color:#000;font-size:110px;font-family:Brand;font-weight:700">Hello Brand</div>',
        }),
      );
      const cardFonts = await cache.cardFonts({
        faces: faces.map((f) => ({ family: "Brand", weight: f.weight, style: "normal" as const, digest: digestOf(f.bytes) })),
        bundled: [],
      });
      const bold = decodePng((await renderTemplate(boldTemplate, {}, { width: 1200, height: 630, theme: "light", images: {}, engine, cardFonts })).bytes);
      // 700 is nearer 800 (hollow boxes) than 400 (filled ones).
      expect(inkIn(bold.pixels, bold.width, { x: 0, y: 0, w: 1200, h: 630 })).toBeLessThan(regular.ink * 0.8);

      const accented = await draw(engine, "Brand", cache, faces.slice(0, 1), "Ééé");
      expect(accented.missingGlyphs).toEqual([]);
    });
  });
}

describe("the render process's font cache", () => {
  test("stays within its bound, keeping the files of the render at hand", () => {
    const cache = new FontCache(100_000);
    const files = Array.from({ length: 5 }, (_, i) => {
      const bytes = new Uint8Array(40_000);
      bytes[0] = i;
      return { digest: `d${i}`, bytes };
    });
    for (const file of files) cache.add(file.digest, file.bytes);
    cache.trim(new Set(["d0"]));
    expect(cache.bytes).toBeLessThanOrEqual(100_000);
    expect(cache.missing({ faces: [{ family: "X", weight: 400, style: "normal", digest: "d0" }], bundled: [] })).toEqual([]);
    expect(cache.missing({ faces: [{ family: "X", weight: 400, style: "normal", digest: "d1" }], bundled: [] })).toEqual(["d1"]);
  });

  test("two accounts' same family name are registered under different names", async () => {
    const cache = new FontCache();
    const one = pixelFont("Brand");
    const two = pixelFont("Brand", { hollow: true });
    cache.add(digestOf(one), one);
    cache.add(digestOf(two), two);
    const a = await cache.cardFonts({ faces: [{ family: "Brand", weight: 400, style: "normal", digest: digestOf(one) }], bundled: [] });
    const b = await cache.cardFonts({ faces: [{ family: "Brand", weight: 400, style: "normal", digest: digestOf(two) }], bundled: [] });
    expect(a.names.brand).not.toBe(b.names.brand);
    expect(a.key).not.toBe(b.key);
  });
});
