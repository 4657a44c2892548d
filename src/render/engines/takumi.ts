/**
 * The takumi engine (OG_RENDER_ENGINE=takumi; docs/engines.md): the same template element
 * trees drawn by takumi's Rust renderer, which lays out and rasterizes in one native call,
 * instead of satori (tree → SVG) and resvg (SVG → pixels). Templates do not know which engine
 * draws them; in-process.ts picks one per render.
 *
 * Per card:
 *   1. the template's tree becomes takumi's node tree (takumi-tree.ts: function components run,
 *      `<svg>` becomes an image of its markup);
 *   2. its text decides the fonts, as satori's fallback hook does (fonts.ts): Inter first, the
 *      OG_FONTS_DIR fonts, then the Inter subsets and bundled Noto slices the text needs, each
 *      registered once per process and named in this card's fallback chain (`fontFamilies`);
 *      characters nothing has are drawn as □ and reported (X-Missing-Glyphs);
 *   3. emoji become inline images from the embedded Twemoji set (emoji.ts);
 *   4. takumi draws at the requested pixel size (the logical canvas times `devicePixelRatio`)
 *      and encodes PNG, JPEG or WebP itself: on its pixels its encoders took less CPU than ours
 *      (encode.ts; PNG slightly, with files half the size; JPEG and WebP several times less, with
 *      larger files), measured by `bun bench/engines.ts encode` (docs/engines.md).
 *
 * takumi never fetches: image sources are the data: URIs the guarded fetcher made (or the
 * embedded emoji); any other `src` is drawn as nothing (test/unit/render/takumi.test.ts).
 *
 * Memory: one renderer per thread, its resource cache (decoded images, SVG rasters) and the
 * module's glyph cache both bounded (`TAKUMI_CACHE_BYTES`, `TAKUMI_GLYPH_CACHE_BYTES`); fonts
 * are registered once and kept, like satori's parsed faces.
 */
import { ApiError } from "../../errors.ts";
import type { TemplateDefinition } from "../../templates/types.ts";
import { emojiDataUri } from "../fonts/emoji.ts";
import { DEFAULT_QUALITY } from "../output/encode.ts";
import { fontsForSegment, isIgnorable, loadFonts, sharedCoverage } from "../fonts/fonts.ts";
import { hanPreference } from "../fonts/noto-fallback.ts";
import type { Font } from "satori";
import { loadTakumiNative, type NativeRenderer } from "./takumi-native.ts";
import { toTakumiTree, type TakumiNode } from "./takumi-tree.ts";
import { MISSING_GLYPH_BOX, type EngineOptions, type RenderedImage, renderContextOf } from "./engine.ts";

/** Decoded images and SVG rasters takumi keeps between renders (its default is 64 MiB). */
export const TAKUMI_CACHE_BYTES = 8 * 1024 * 1024;
/** Shaped and rasterized glyphs, shared by every renderer in the thread (its default, 8 MiB). */
export const TAKUMI_GLYPH_CACHE_BYTES = 8 * 1024 * 1024;

let renderer: NativeRenderer | undefined;

function takumi(): NativeRenderer {
  if (!renderer) {
    const native = loadTakumiNative();
    // Read once, at the first use of the glyph cache: set before the first render.
    native.setGlyphCacheMaxBytes(TAKUMI_GLYPH_CACHE_BYTES);
    renderer = new native.Renderer({ cacheMaxBytes: TAKUMI_CACHE_BYTES });
  }
  return renderer;
}

/** Font bytes already handed to takumi: each face is registered (parsed) once per thread. */
let registered = new WeakMap<ArrayBuffer, Promise<unknown>>();

/** Account font bytes registered with the current renderer (takumi keeps what it registers). */
let accountBytes = 0;
const accountRegistered = new WeakSet<ArrayBuffer>();
/** Beyond this, the renderer is replaced by a fresh one, so account fonts registered long ago are let go. */
export const TAKUMI_ACCOUNT_FONT_BYTES = 64 * 1024 * 1024;

/** Starts a fresh renderer when the account fonts registered would pass the bound. */
function recycleIfFull(card: Font[]): void {
  let adding = 0;
  for (const font of card) if (!registered.has(font.data as ArrayBuffer)) adding += (font.data as ArrayBuffer).byteLength;
  if (accountBytes + adding <= TAKUMI_ACCOUNT_FONT_BYTES) {
    for (const font of card) {
      const data = font.data as ArrayBuffer;
      if (!accountRegistered.has(data)) {
        accountRegistered.add(data);
        accountBytes += data.byteLength;
      }
    }
    return;
  }
  renderer = undefined;
  registered = new WeakMap();
  accountBytes = adding;
}

function register(fonts: Font[]): Promise<unknown> {
  return Promise.all(
    fonts.map((font) => {
      const data = font.data as ArrayBuffer;
      let done = registered.get(data);
      if (!done) {
        done = takumi().registerFont({ name: font.name, data: new Uint8Array(data), weight: font.weight, style: font.style ?? "normal" });
        // A font takumi refuses (a broken OG_FONTS_DIR file) is skipped, not fatal to every card.
        done = done.catch(() => undefined);
        registered.set(data, done);
      }
      return done;
    }),
  );
}

function eachText(node: TakumiNode, visit: (node: TakumiNode & { text: string }) => void): void {
  if (node.type === "text" && typeof node.text === "string") visit(node as TakumiNode & { text: string });
  else if (node.type === "container") for (const child of node.children ?? []) if (child) eachText(child, visit);
}

const segmenter = new Intl.Segmenter("en", { granularity: "grapheme" });
const MAYBE_EMOJI = /\p{Extended_Pictographic}|\p{Regional_Indicator}|\u20E3/u;

/** Whether a grapheme is drawn as an emoji (not text presentation, U+FE0E). */
function isEmoji(grapheme: string): boolean {
  if (grapheme.includes("\uFE0E")) return false;
  if (/^\p{Regional_Indicator}{1,2}$/u.test(grapheme) || /^[#*0-9]\uFE0F?\u20E3$/u.test(grapheme)) return true;
  return (
    /^\p{Extended_Pictographic}/u.test(grapheme) &&
    (/[\uFE0F\u200D]/.test(grapheme) || /^\p{Emoji_Presentation}/u.test(grapheme) || /^\p{Emoji_Modifier_Base}\p{Emoji_Modifier}/u.test(grapheme))
  );
}

/** The image an emoji grapheme is drawn as, or undefined when Twemoji lacks it (then it stays text). */
function emojiImage(grapheme: string): string | undefined {
  return isEmoji(grapheme) ? emojiDataUri(grapheme) : undefined;
}

/**
 * A text node with emoji as a row of inline text and images, each emoji an em square sitting on
 * the baseline as satori draws them.
 */
function withEmojiImages(node: TakumiNode & { text: string }): TakumiNode {
  if (!MAYBE_EMOJI.test(node.text)) return node;
  const children: TakumiNode[] = [];
  let run = "";
  let found = false;
  for (const { segment } of segmenter.segment(node.text)) {
    const src = emojiImage(segment);
    if (!src) {
      run += segment;
      continue;
    }
    found = true;
    if (run) children.push({ type: "text", text: run } as TakumiNode);
    run = "";
    children.push({ type: "image", src, style: { width: "1em", height: "1em", verticalAlign: "-0.1em", flexShrink: 0 } } as TakumiNode);
  }
  if (!found) return node;
  if (run) children.push({ type: "text", text: run } as TakumiNode);
  const { text: _text, type: _type, ...meta } = node;
  return { ...meta, type: "container", children } as TakumiNode;
}

function replaceEmoji(node: TakumiNode): TakumiNode {
  if (node.type === "text" && typeof node.text === "string") return withEmojiImages(node as TakumiNode & { text: string });
  if (node.type === "container" && node.children)
    return { ...node, children: node.children.map((child) => (child ? replaceEmoji(child) : child)) } as TakumiNode;
  return node;
}

/** Code points of the card's text that are not drawn as emoji images and draw something. */
function textCodePoints(tree: TakumiNode): Set<number> {
  const points = new Set<number>();
  eachText(tree, ({ text }) => {
    for (const { segment } of segmenter.segment(text)) {
      if (MAYBE_EMOJI.test(segment) && emojiImage(segment)) continue;
      for (const ch of segment) {
        const cp = ch.codePointAt(0)!;
        if (!isIgnorable(cp)) points.add(cp);
      }
    }
  });
  return points;
}

interface CardFontChain {
  /** Family names in fallback order, for `fontFamilies`. */
  families: string[];
  missing: number[];
}

/** The fonts this card's text needs, registered, in fallback order; and what none of them has. */
async function fontChainFor(points: Set<number>, han: ReturnType<typeof hanPreference>, card: Font[] = []): Promise<CardFontChain> {
  const shared = [...(await loadFonts()), ...card];
  const covered = await sharedCoverage();
  const rest = [...points].filter((cp) => !covered.has(cp));
  const extra = rest.length > 0 ? await fontsForSegment("unknown", String.fromCodePoint(...rest), han) : { fonts: [], missing: [] };
  await register([...shared, ...extra.fonts]);
  const families = [...new Set([...shared, ...extra.fonts].map((font) => font.name))];
  return { families, missing: extra.missing };
}

/** The sRGB colour a CSS colour comes out as over white, as takumi paints it (for JPEG's flattening). */
const colourCache = new Map<string, Promise<[number, number, number]>>();

function opaqueColour(css: string): Promise<[number, number, number]> {
  let colour = colourCache.get(css);
  if (!colour) {
    const fill = { display: "flex", width: "100%", height: "100%" };
    const swatch = {
      type: "container",
      style: { ...fill, backgroundColor: "#FFFFFF" },
      children: [{ type: "container", style: { ...fill, backgroundColor: css } }],
    };
    colour = takumi()
      .render(JSON.stringify(swatch), { width: 1, height: 1, format: "raw" })
      .then(
        (px): [number, number, number] => [px[0]!, px[1]!, px[2]!],
        (): [number, number, number] => [255, 255, 255],
      );
    if (colourCache.size < 256) colourCache.set(css, colour);
  }
  return colour;
}

/**
 * The takumi half of in-process.ts's `renderTemplate`: same arguments, same result. `logical` is the
 * canvas the template lays out on; `background` the card's own colour (JPEG only).
 */
export async function renderWithTakumi(
  template: TemplateDefinition,
  fields: Record<string, string | undefined>,
  options: EngineOptions & { background?: string },
): Promise<RenderedImage> {
  const { width, height, logical } = options;
  const format = options.format ?? "png";
  const ctx = renderContextOf(options);
  const card = options.cardFonts?.fonts ?? [];
  if (card.length > 0) recycleIfFull(card);

  const t0 = performance.now();
  let tree = toTakumiTree(template.render(fields, ctx));
  const han = hanPreference(template.fields.filter((f) => f.type === "text").map((f) => fields[f.name]));
  let chain = await fontChainFor(textCodePoints(tree), han, card);
  const missing = chain.missing;
  if (missing.length > 0) {
    const gone = new Set(missing);
    eachText(tree, (text) => {
      text.text = Array.from(text.text, (ch) => (gone.has(ch.codePointAt(0)!) ? MISSING_GLYPH_BOX : ch)).join("");
    });
    chain = await fontChainFor(textCodePoints(tree), han, card);
  }
  tree = replaceEmoji(tree);

  const size = { width, height, devicePixelRatio: width / logical.width, fontFamilies: chain.families };
  let bytes: Uint8Array;
  try {
    // A JPEG has no alpha: the card is drawn on its own background colour (over white), the
    // backdrop a wrapper around the card paints where the card itself is transparent.
    const source = format === "jpeg" ? onBackdrop(tree, await opaqueColour(options.background ?? "#FFFFFF")) : tree;
    // Copied out of the addon's buffer into one of our own, which a render worker can transfer.
    bytes = new Uint8Array(
      await takumi().render(JSON.stringify(source), { ...size, format, quality: format === "png" ? undefined : (options.quality ?? DEFAULT_QUALITY) }),
    );
  } catch (error) {
    // A panic or refusal in the native renderer arrives here as an exception, never as a dead
    // thread: the request gets an error answer and the renderer stays usable.
    throw new Error(`takumi could not draw this card: ${error instanceof Error ? error.message : String(error)}`);
  }
  // takumi draws and encodes in one call: its time is all "rasterize".
  return { bytes, timings: { satoriMs: 0, rasterizeMs: performance.now() - t0, encodeMs: 0 }, missingGlyphs: missing.sort((a, b) => a - b) };
}

/** The card inside a full-canvas box of an opaque colour (JPEG's backdrop). */
function onBackdrop(tree: TakumiNode, [r, g, b]: [number, number, number]): TakumiNode {
  return {
    type: "container",
    style: { display: "flex", width: "100%", height: "100%", backgroundColor: `rgb(${r}, ${g}, ${b})` },
    children: [tree],
  } as TakumiNode;
}

/** Throws unless the takumi native module loads here (start-up check of OG_RENDER_ENGINE=takumi). */
export function checkTakumi(): void {
  try {
    takumi();
  } catch (error) {
    throw new ApiError("INTERNAL_ERROR", `the takumi engine cannot load: ${error instanceof Error ? error.message : String(error)}`);
  }
}
