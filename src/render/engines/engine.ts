/**
 * The engine seam: what every engine is given and gives back, and what the callers of an engine
 * share whichever one draws (docs/engines.md). satori.ts (satori + resvg) and takumi.ts each
 * import this file; it imports neither, so an engine can be read, changed or dropped on its own.
 * in-process.ts picks the engine for a render.
 *
 * Sizes: templates are designed on a 1200×630 canvas (an account template may name another,
 * `definition.canvas`). For other sizes the canvas is scaled so its shorter side relative to
 * the design canvas stays at design size (a 2400×1260 request is the same
 * layout drawn at 2×; a 1200×1200 one gets a taller canvas), and the engine draws at the
 * requested pixel size. Text and images stay sharp because scaling happens on vectors.
 */
import type { Font } from "satori";
import { ApiError } from "../../errors.ts";
import type { RenderContext, SatoriNode, TemplateDefinition, Theme } from "../../templates/types.ts";
import type { ImageFormat } from "../output/encode.ts";

/**
 * What draws a card (OG_RENDER_ENGINE, `--engine`; docs/engines.md): satori + resvg, the
 * pipeline of satori.ts, or takumi (takumi.ts). Templates do not know which.
 */
export const RENDER_ENGINES = ["satori", "takumi"] as const;
export type RenderEngine = (typeof RENDER_ENGINES)[number];

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

/** What an engine is given: the request's options and the logical canvas its template lays out on. */
export type EngineOptions = RenderOptions & { logical: { width: number; height: number } };

/** What a template's render function is told, the same on either engine: the canvas, theme, images and the card's font names. */
export function renderContextOf(options: EngineOptions): RenderContext {
  return {
    width: options.logical.width,
    height: options.logical.height,
    theme: options.theme,
    images: options.images,
    ...(options.cardFonts ? { fontNames: options.cardFonts.names } : {}),
  };
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
