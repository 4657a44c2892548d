/**
 * The satori engine (the default; docs/engines.md): template → satori (element tree → SVG) →
 * resvg (SVG → pixels) → PNG, JPEG or WebP (encode.ts).
 *
 * Where the time goes (event card, every field set, 1200×630, one core of this 2-core box,
 * warm, median of 30 runs, alternating themes; `bun test/unit/render/timings.ts` reproduces it):
 *   satori ≈ 7 ms, resvg rasterize ≈ 26 ms, un-premultiply ≈ 1–2 ms,
 *   resvg's own `asPng()` ≈ 11 ms (182 KiB) vs `encodePng` on the same pixels ≈ 8 ms (96 KiB).
 * So we encode ourselves. Rasterizing dominates, and within it gradients cost by the area they
 * cover (a full-card radial gradient ≈ 8–10 ms), which is why the templates keep them small.
 *
 * Sizes: the SVG is laid out on the logical canvas (engine.ts, `layoutSize`) and resvg draws it
 * at the requested pixel size.
 */
import type { Font } from "satori";
import type { SatoriNode, TemplateDefinition } from "../../templates/types.ts";
import { fontsForCard, fontsForSegment, ownFontList } from "../fonts/fonts.ts";
import { hanPreference, type HanPreference } from "../fonts/noto-fallback.ts";
import { emojiDataUri } from "../fonts/emoji.ts";
import { encodeImage, flattenPremultiplied } from "../output/encode.ts";
import { unpremultiply } from "../output/png.ts";
import { cardBackground, MISSING_GLYPH_BOX, type EngineOptions, type RenderedImage, renderContextOf } from "./engine.ts";
import type { initLayout as InitLayout, satori as Satori } from "./layout.ts";
import { rasterize } from "./rasterize.ts";

/**
 * satori (with its layout engine) is imported on the first satori render, not with this file: a
 * takumi render worker never loads it (≈ 18 MB per worker, docs/engines.md).
 */
let layout: Promise<{ initLayout: typeof InitLayout; satori: typeof Satori }> | undefined;
export const loadLayout = () => (layout ??= import("./layout.ts"));

/**
 * satori's `loadAdditionalAsset` for one render: emoji from the embedded Twemoji set, other
 * text from the bundled fallback slices (loaded on first use, see fonts.ts), and a record of
 * the code points neither has. satori only asks about characters none of its fonts cover, so
 * what is left over is exactly what would be drawn as a missing glyph.
 */
function assetLoader(
  han: HanPreference | undefined,
  sharedList: boolean,
): { load: (code: string, segment: string) => Promise<string | Font[]>; missing: Set<number>; wantedFonts: () => boolean } {
  const missing = new Set<number>();
  // The shared Latin list's loader must stay as it is (fonts.ts, `fontsForCard`): a text segment
  // is answered with nothing, and the card is laid out again with a list of its own.
  let wanted = false;
  // satori asks about every segment at once and adds the fonts in the order the answers arrive;
  // where two added fonts both have a character (a CJK punctuation mark is in four families),
  // the first draws it. Answering in the order asked keeps that order, and so the pixels, the
  // same from run to run; answered as the file reads finished, the same card came out two ways.
  let previous: Promise<unknown> = Promise.resolve();
  const inOrder = (answer: () => Promise<string | Font[]>) => {
    const next = previous.then(answer, answer);
    previous = next;
    return next;
  };
  return {
    missing,
    load: (code, segment) => inOrder(() => answer(code, segment)),
    wantedFonts: () => wanted,
  };
  async function answer(code: string, segment: string): Promise<string | Font[]> {
    if (code === "emoji") {
      const uri = emojiDataUri(segment);
      if (uri) return uri;
      // An emoji Twemoji 15 lacks: try its characters as text (a symbol font may have them).
    }
    if (sharedList) {
      wanted = true;
      return [];
    }
    const found = await fontsForSegment(code, segment, han);
    for (const cp of found.missing) missing.add(cp);
    return found.fonts;
  }
}

/** Replaces every character in `missing` with the neutral box, in every text field. */
function boxMissing(fields: Record<string, string | undefined>, missing: Set<number>): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(fields)) {
    out[name] = value === undefined ? value : Array.from(value, (ch) => (missing.has(ch.codePointAt(0)!) ? MISSING_GLYPH_BOX : ch)).join("");
  }
  return out;
}

/** Draws one card with satori and resvg (see the header). */
export async function renderWithSatori(
  template: TemplateDefinition,
  fields: Record<string, string | undefined>,
  options: EngineOptions,
): Promise<RenderedImage> {
  const { width, height, logical } = options;
  const format = options.format ?? "png";
  const ctx = renderContextOf(options);
  const texts = template.fields.filter((f) => f.type === "text").map((f) => fields[f.name]);
  const han = hanPreference(texts);
  let { fonts, shared } = await fontsForCard(texts, options.cardFonts);
  const { initLayout, satori } = await loadLayout();
  await initLayout();

  const t0 = performance.now();
  const draw = async (text: Record<string, string | undefined>) => {
    const assets = assetLoader(han, shared);
    const svg = await satori(template.render(text, ctx) as SatoriNode as Parameters<typeof satori>[0], {
      width: logical.width,
      height: logical.height,
      fonts,
      // Colour emoji and fallback fonts, all embedded; never the network.
      loadAdditionalAsset: assets.load,
    });
    return { svg, missing: assets.missing, wantedFonts: assets.wantedFonts() };
  };
  let { svg, missing, wantedFonts } = await draw(fields);
  if (wantedFonts) {
    // The template's own text goes beyond Latin: lay it out again with a list of its own.
    fonts = ownFontList(fonts);
    shared = false;
    ({ svg, missing } = await draw(fields));
  }
  // satori draws a character no font has as a debug "NO GLYPH" box. Draw it again with those
  // characters swapped for a plain box; this costs a second layout only when something is missing.
  if (missing.size > 0) svg = (await draw(boxMissing(fields, missing))).svg;
  const t1 = performance.now();

  // Draw the logical viewBox at the requested pixel size. satori's root tag always starts
  // `<svg width="W" height="H"`; preserveAspectRatio="none" absorbs the sub-pixel rounding of
  // `layoutSize` so the output is exactly width×height.
  const sized = svg.replace(/^<svg width="[^"]*" height="[^"]*"/, `<svg width="${width}" height="${height}" preserveAspectRatio="none"`);
  // JPEG has no alpha, so its card is drawn onto the card's own background colour; whatever
  // stays translucent (a translucent or unparsable colour) is then flattened onto white.
  const background = format === "jpeg" ? cardBackground(template.render(fields, ctx) as SatoriNode) : undefined;
  const image = rasterize(sized, background);
  const pixels = format === "jpeg" ? flattenPremultiplied(image.pixels, [255, 255, 255]) : unpremultiply(image.pixels);
  const t2 = performance.now();

  if (image.width !== width || image.height !== height) {
    throw new Error(`rasterized ${image.width}×${image.height}, expected ${width}×${height}`);
  }
  const bytes = await encodeImage(pixels, width, height, format, options.quality);
  const t3 = performance.now();

  return { bytes, timings: { satoriMs: t1 - t0, rasterizeMs: t2 - t1, encodeMs: t3 - t2 }, missingGlyphs: [...missing].sort((a, b) => a - b) };
}
