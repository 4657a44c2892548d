/**
 * The in-process renderer: template → satori (element tree → SVG) → resvg (SVG → pixels) →
 * PNG, JPEG or WebP (encode.ts). The render workers (pool.ts) run this same pipeline.
 *
 * Where the time goes (event card, every field set, 1200×630, one core of this 2-core box,
 * warm, median of 30 runs, alternating themes; `bun test/unit/render/timings.ts` reproduces it):
 *   satori ≈ 7 ms, resvg rasterize ≈ 26 ms, un-premultiply ≈ 1–2 ms,
 *   resvg's own `asPng()` ≈ 11 ms (182 KiB) vs `encodePng` on the same pixels ≈ 8 ms (96 KiB).
 * So we encode ourselves. Rasterizing dominates, and within it gradients cost by the area they
 * cover (a full-card radial gradient ≈ 8–10 ms), which is why the templates keep them small.
 *
 * Sizes: templates are designed on a 1200×630 canvas (an account template may name another,
 * `definition.canvas`). For other sizes the canvas is scaled so its shorter side relative to
 * the design canvas stays at design size (a 2400×1260 request is the same
 * layout drawn at 2×; a 1200×1200 one gets a taller canvas), and resvg draws the SVG at the
 * requested pixel size. Text and images stay sharp because scaling happens on vectors.
 */
import type { Font } from "satori";
import { rasterize } from "./rasterize.ts";
import { ApiError } from "../../errors.ts";
import type { RenderContext, SatoriNode, TemplateDefinition, Theme } from "../../templates/types.ts";
import { emojiDataUri } from "../fonts/emoji.ts";
import { fontsForCard, fontsForSegment, hanPreference, loadFonts, ownFontList, type HanPreference } from "../fonts/fonts.ts";
import type { initLayout as InitLayout, satori as Satori } from "./layout.ts";
import { CONTENT_TYPES, encodeImage, flattenPremultiplied, type ImageFormat } from "../output/encode.ts";
import { unpremultiply } from "../output/png.ts";
import { renderWithTakumi } from "./takumi.ts";
import { withPreviewMark } from "../preview-mark.ts";
import type { RenderRequest, RenderResult, Renderer } from "../types.ts";

/**
 * What draws a card (OG_RENDER_ENGINE, `--engine`; docs/engines.md): satori + resvg, the
 * pipeline below, or takumi (takumi.ts). Templates do not know which.
 */
export const RENDER_ENGINES = ["satori", "takumi"] as const;
export type RenderEngine = (typeof RENDER_ENGINES)[number];

/**
 * satori (with its layout engine) is imported on the first satori render, not with this file: a
 * takumi render worker never loads it (≈ 18 MB per worker, docs/engines.md).
 */
let layout: Promise<{ initLayout: typeof InitLayout; satori: typeof Satori }> | undefined;
export const loadLayout = () => (layout ??= import("./layout.ts"));

export const DESIGN_WIDTH = 1200;
export const DESIGN_HEIGHT = 630;

/** Turns one image field's URL into something satori can draw (a data: URI). */
export type ImageLoader = (url: string, field: string) => Promise<string>;

/**
 * The default loader of the bare in-process renderer (pixel tests, the bench baseline): only
 * `data:image/…` URIs, passed through. The service and the CLI pass a loader built on
 * fetchImage (guarded http(s) fetching, format sniffing); anything else here is a 422.
 */
export const dataUriOnlyLoader: ImageLoader = async (url, field) => {
  if (/^data:image\/[a-z0-9.+-]+;base64,/i.test(url)) return url;
  throw new ApiError("IMAGE_FETCH_FAILED", `Could not load image for ${field}.`, [
    { field, message: "only data:image URIs can be loaded by this build", reason: "unsupported_format" },
  ]);
};

/** Resolves every image field the request set, in parallel, keyed by field name. */
export async function resolveImages(
  fields: Record<string, string | undefined>,
  template: TemplateDefinition,
  loadImage: ImageLoader = dataUriOnlyLoader,
): Promise<Record<string, string | undefined>> {
  const imageFields = template.fields.filter((f) => f.type === "image_url" && fields[f.name]);
  const loaded = await Promise.all(imageFields.map((f) => loadImage(fields[f.name]!, f.name)));
  return Object.fromEntries(imageFields.map((f, i) => [f.name, loaded[i]]));
}

/**
 * The logical canvas a template lays out on for a requested pixel size (see the header): its
 * design canvas (1200×630 unless the template says otherwise) scaled to the requested shape.
 */
export function layoutSize(
  width: number,
  height: number,
  canvas: { width: number; height: number } = { width: DESIGN_WIDTH, height: DESIGN_HEIGHT },
): { width: number; height: number } {
  const scale = Math.min(width / canvas.width, height / canvas.height);
  return { width: Math.round(width / scale), height: Math.round(height / scale) };
}

export interface RenderTimings {
  satoriMs: number;
  rasterizeMs: number;
  encodeMs: number;
}

export interface RenderedImage {
  bytes: Uint8Array;
  timings: RenderTimings;
  /** Code points no loaded font (bundled, fallback or OG_FONTS_DIR) has, drawn as □; sorted, unique. */
  missingGlyphs: number[];
}

/** What a character no font has is drawn as: WHITE SQUARE, a neutral box (bundled fallback fonts have it). */
export const MISSING_GLYPH_BOX = "\u25A1";

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

export interface RenderOptions {
  width: number;
  height: number;
  theme: Theme;
  images: Record<string, string | undefined>;
  /** Default png. */
  format?: ImageFormat;
  /** 1–100 for jpeg and webp; ignored for png. */
  quality?: number;
  /** Default satori. */
  engine?: RenderEngine;
  /**
   * Faces the card names beyond the shared list: an account's fonts and the bundled serif or
   * monospace family (../sandbox/font-cache.ts), with the names its families are drawn under.
   */
  cardFonts?: { key: string; fonts: Font[]; names: Record<string, string> };
}

/** What a JPEG is flattened on when the card's root sets no usable background colour. */
const FALLBACK_BACKGROUND = "#FFFFFF";

/**
 * The card's background colour: the root element's `backgroundColor` (every built-in template
 * sets one; a custom template might not, or might only set a gradient).
 */
export function cardBackground(tree: SatoriNode): string {
  const style = (tree?.props as { style?: { backgroundColor?: unknown; background?: unknown } } | undefined)?.style;
  const color = style?.backgroundColor ?? style?.background;
  return typeof color === "string" && /^(#[0-9a-f]{3,8}|rgba?\([^)]*\)|[a-z]+)$/i.test(color.trim()) ? color.trim() : FALLBACK_BACKGROUND;
}

/** Renders to PNG (the original pipeline; benchmarks compare against it). */
export async function renderTemplateToPng(
  template: TemplateDefinition,
  fields: Record<string, string | undefined>,
  options: Omit<RenderOptions, "format" | "quality">,
): Promise<{ png: Uint8Array; timings: RenderTimings; missingGlyphs: number[] }> {
  const { bytes, timings, missingGlyphs } = await renderTemplate(template, fields, { ...options, format: "png" });
  return { png: bytes, timings, missingGlyphs };
}

/**
 * Renders one template with already-resolved images to image bytes of exactly width×height in
 * the requested format. Exposed on its own so benchmarks and workers can call the pipeline
 * without the registry.
 */
export async function renderTemplate(template: TemplateDefinition, fields: Record<string, string | undefined>, options: RenderOptions): Promise<RenderedImage> {
  const { width, height } = options;
  const format = options.format ?? "png";
  const logical = layoutSize(width, height, template.canvas);
  if (options.engine === "takumi") {
    const background =
      format === "jpeg"
        ? cardBackground(
            template.render(fields, {
              width: logical.width,
              height: logical.height,
              theme: options.theme,
              images: options.images,
              fontNames: options.cardFonts?.names,
            }) as SatoriNode,
          )
        : undefined;
    return renderWithTakumi(template, fields, { ...options, logical, background });
  }
  const ctx: RenderContext = {
    width: logical.width,
    height: logical.height,
    theme: options.theme,
    images: options.images,
    ...(options.cardFonts ? { fontNames: options.cardFonts.names } : {}),
  };
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

export interface InProcessRendererOptions {
  loadImage?: ImageLoader;
  /** Default satori. */
  engine?: RenderEngine;
}

export function createInProcessRenderer(options: InProcessRendererOptions = {}): Renderer {
  const loadImage = options.loadImage ?? dataUriOnlyLoader;
  // Start reading fonts now so the first request doesn't pay for it.
  void loadFonts();

  return {
    async render(request: RenderRequest): Promise<RenderResult> {
      const started = performance.now();
      const template = request.preview ? withPreviewMark(request.definition, request) : request.definition;
      const { width, height } = request;
      const images = await resolveImages(request.fields, template, loadImage);
      const { bytes, missingGlyphs } = await renderTemplate(template, request.fields, {
        width,
        height,
        theme: request.theme,
        images,
        format: request.format,
        quality: request.quality,
        engine: options.engine,
      });
      return {
        missingGlyphs,
        bytes,
        contentType: CONTENT_TYPES[request.format],
        width,
        height,
        generationTimeMs: Math.round(performance.now() - started),
        cached: false,
      };
    },
    async close() {},
  };
}
