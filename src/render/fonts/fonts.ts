/**
 * The bundled fonts: Inter (SIL OFL, from @fontsource/inter) in the subsets that cover Latin,
 * Latin-extended, Vietnamese, Cyrillic and Greek (with their extended ranges), as WOFF.
 * Imported `with { type: "file" }` so `bun build --compile` embeds them: the binary never
 * reads system fonts or node_modules, which also keeps renders identical on every machine.
 * Chinese, Japanese, Korean, Arabic, Hebrew, Devanagari and Thai come from the bundled Noto
 * slices of assets/fonts/noto-fallback.bin, loaded on first use (`fontsForSegment`, below);
 * anything else (and replacements for those) from the fonts of OG_FONTS_DIR (`useExtraFonts`).
 *
 * Each subset is registered under its own family name. satori picks one face per family name
 * (the closest weight), then falls back to the other families for glyphs the first lacks, so
 * giving the subsets distinct names is what makes "Привет" or "Γειά" find their glyphs while
 * templates only ever ask for `fontFamily: "Inter"`.
 *
 * satori parses every face it is given before the first layout and keeps the parse for the
 * life of the worker, so only Inter's Latin faces are given up front; the other subsets are
 * handed over like the Noto slices, the first time a card has a character only they draw
 * (`fontsForSegment`). A worker that renders only Latin holds 6 parsed faces (four upright, two
 * italic), not 42.
 */
import { LRUCache } from "lru-cache";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Font } from "satori";
import { BUNDLED_FAMILIES, bundledFamilyOf, MONO_FAMILY, PRIMARY_FAMILY, SERIF_FAMILY } from "../../media/font-families.ts";
import { cmapCodePoints, fontCodePoints, sfntTables, woffTable } from "./cmap.ts";

export { BUNDLED_FAMILIES, bundledFamilyOf, MONO_FAMILY, SERIF_FAMILY };

import fallbackPackPath from "../../../assets/fonts/noto-fallback.bin" with { type: "file" };
import inter_latin_400 from "../../../assets/fonts/inter-latin-400-normal.woff" with { type: "file" };
import inter_latin_600 from "../../../assets/fonts/inter-latin-600-normal.woff" with { type: "file" };
import inter_latin_700 from "../../../assets/fonts/inter-latin-700-normal.woff" with { type: "file" };
import inter_latin_800 from "../../../assets/fonts/inter-latin-800-normal.woff" with { type: "file" };
import inter_latin_ext_400 from "../../../assets/fonts/inter-latin-ext-400-normal.woff" with { type: "file" };
import inter_latin_ext_600 from "../../../assets/fonts/inter-latin-ext-600-normal.woff" with { type: "file" };
import inter_latin_ext_700 from "../../../assets/fonts/inter-latin-ext-700-normal.woff" with { type: "file" };
import inter_latin_ext_800 from "../../../assets/fonts/inter-latin-ext-800-normal.woff" with { type: "file" };
import inter_latin_400_italic from "../../../assets/fonts/inter-latin-400-italic.woff" with { type: "file" };
import inter_latin_700_italic from "../../../assets/fonts/inter-latin-700-italic.woff" with { type: "file" };
import inter_latin_ext_400_italic from "../../../assets/fonts/inter-latin-ext-400-italic.woff" with { type: "file" };
import inter_latin_ext_700_italic from "../../../assets/fonts/inter-latin-ext-700-italic.woff" with { type: "file" };
import inter_cyrillic_400 from "../../../assets/fonts/inter-cyrillic-400-normal.woff" with { type: "file" };
import inter_cyrillic_600 from "../../../assets/fonts/inter-cyrillic-600-normal.woff" with { type: "file" };
import inter_cyrillic_700 from "../../../assets/fonts/inter-cyrillic-700-normal.woff" with { type: "file" };
import inter_cyrillic_800 from "../../../assets/fonts/inter-cyrillic-800-normal.woff" with { type: "file" };
import inter_cyrillic_ext_400 from "../../../assets/fonts/inter-cyrillic-ext-400-normal.woff" with { type: "file" };
import inter_cyrillic_ext_600 from "../../../assets/fonts/inter-cyrillic-ext-600-normal.woff" with { type: "file" };
import inter_cyrillic_ext_700 from "../../../assets/fonts/inter-cyrillic-ext-700-normal.woff" with { type: "file" };
import inter_cyrillic_ext_800 from "../../../assets/fonts/inter-cyrillic-ext-800-normal.woff" with { type: "file" };
import inter_greek_400 from "../../../assets/fonts/inter-greek-400-normal.woff" with { type: "file" };
import inter_greek_600 from "../../../assets/fonts/inter-greek-600-normal.woff" with { type: "file" };
import inter_greek_700 from "../../../assets/fonts/inter-greek-700-normal.woff" with { type: "file" };
import inter_greek_800 from "../../../assets/fonts/inter-greek-800-normal.woff" with { type: "file" };
import inter_greek_ext_400 from "../../../assets/fonts/inter-greek-ext-400-normal.woff" with { type: "file" };
import inter_greek_ext_600 from "../../../assets/fonts/inter-greek-ext-600-normal.woff" with { type: "file" };
import inter_greek_ext_700 from "../../../assets/fonts/inter-greek-ext-700-normal.woff" with { type: "file" };
import inter_greek_ext_800 from "../../../assets/fonts/inter-greek-ext-800-normal.woff" with { type: "file" };
import inter_vietnamese_400 from "../../../assets/fonts/inter-vietnamese-400-normal.woff" with { type: "file" };
import inter_vietnamese_600 from "../../../assets/fonts/inter-vietnamese-600-normal.woff" with { type: "file" };
import inter_vietnamese_700 from "../../../assets/fonts/inter-vietnamese-700-normal.woff" with { type: "file" };
import inter_vietnamese_800 from "../../../assets/fonts/inter-vietnamese-800-normal.woff" with { type: "file" };
import inter_cyrillic_400_italic from "../../../assets/fonts/inter-cyrillic-400-italic.woff" with { type: "file" };
import inter_cyrillic_700_italic from "../../../assets/fonts/inter-cyrillic-700-italic.woff" with { type: "file" };
import inter_cyrillic_ext_400_italic from "../../../assets/fonts/inter-cyrillic-ext-400-italic.woff" with { type: "file" };
import inter_cyrillic_ext_700_italic from "../../../assets/fonts/inter-cyrillic-ext-700-italic.woff" with { type: "file" };
import inter_greek_400_italic from "../../../assets/fonts/inter-greek-400-italic.woff" with { type: "file" };
import inter_greek_700_italic from "../../../assets/fonts/inter-greek-700-italic.woff" with { type: "file" };
import inter_greek_ext_400_italic from "../../../assets/fonts/inter-greek-ext-400-italic.woff" with { type: "file" };
import inter_greek_ext_700_italic from "../../../assets/fonts/inter-greek-ext-700-italic.woff" with { type: "file" };
import inter_vietnamese_400_italic from "../../../assets/fonts/inter-vietnamese-400-italic.woff" with { type: "file" };
import inter_vietnamese_700_italic from "../../../assets/fonts/inter-vietnamese-700-italic.woff" with { type: "file" };
import mono_400 from "../../../assets/fonts/jetbrains-mono-latin-400-normal.woff" with { type: "file" };
import mono_700 from "../../../assets/fonts/jetbrains-mono-latin-700-normal.woff" with { type: "file" };
import mono_400_italic from "../../../assets/fonts/jetbrains-mono-latin-400-italic.woff" with { type: "file" };
import serif_400 from "../../../assets/fonts/source-serif-4-latin-400-normal.woff" with { type: "file" };
import serif_700 from "../../../assets/fonts/source-serif-4-latin-700-normal.woff" with { type: "file" };
import serif_400_italic from "../../../assets/fonts/source-serif-4-latin-400-italic.woff" with { type: "file" };

type Weight = 400 | 600 | 700 | 800;
/**
 * Every subset has italic faces at 400 and 700 (what `<i>`, `<em>` and `font-style: italic` ask
 * for, bold or not; other weights take the nearest); they come after the upright faces of their
 * family, whose first face stands for the family's coverage.
 */
const BUNDLED: { family: string; weight: Weight; style?: "italic"; path: string }[] = [
  { family: "Inter", weight: 400, path: inter_latin_400 },
  { family: "Inter", weight: 600, path: inter_latin_600 },
  { family: "Inter", weight: 700, path: inter_latin_700 },
  { family: "Inter", weight: 800, path: inter_latin_800 },
  { family: "Inter", weight: 400, style: "italic", path: inter_latin_400_italic },
  { family: "Inter", weight: 700, style: "italic", path: inter_latin_700_italic },
  { family: "Inter Latin Ext", weight: 400, path: inter_latin_ext_400 },
  { family: "Inter Latin Ext", weight: 600, path: inter_latin_ext_600 },
  { family: "Inter Latin Ext", weight: 700, path: inter_latin_ext_700 },
  { family: "Inter Latin Ext", weight: 800, path: inter_latin_ext_800 },
  { family: "Inter Latin Ext", weight: 400, style: "italic", path: inter_latin_ext_400_italic },
  { family: "Inter Latin Ext", weight: 700, style: "italic", path: inter_latin_ext_700_italic },
  { family: "Inter Cyrillic", weight: 400, path: inter_cyrillic_400 },
  { family: "Inter Cyrillic", weight: 600, path: inter_cyrillic_600 },
  { family: "Inter Cyrillic", weight: 700, path: inter_cyrillic_700 },
  { family: "Inter Cyrillic", weight: 800, path: inter_cyrillic_800 },
  { family: "Inter Cyrillic", weight: 400, style: "italic", path: inter_cyrillic_400_italic },
  { family: "Inter Cyrillic", weight: 700, style: "italic", path: inter_cyrillic_700_italic },
  { family: "Inter Cyrillic Ext", weight: 400, path: inter_cyrillic_ext_400 },
  { family: "Inter Cyrillic Ext", weight: 600, path: inter_cyrillic_ext_600 },
  { family: "Inter Cyrillic Ext", weight: 700, path: inter_cyrillic_ext_700 },
  { family: "Inter Cyrillic Ext", weight: 800, path: inter_cyrillic_ext_800 },
  { family: "Inter Cyrillic Ext", weight: 400, style: "italic", path: inter_cyrillic_ext_400_italic },
  { family: "Inter Cyrillic Ext", weight: 700, style: "italic", path: inter_cyrillic_ext_700_italic },
  { family: "Inter Greek", weight: 400, path: inter_greek_400 },
  { family: "Inter Greek", weight: 600, path: inter_greek_600 },
  { family: "Inter Greek", weight: 700, path: inter_greek_700 },
  { family: "Inter Greek", weight: 800, path: inter_greek_800 },
  { family: "Inter Greek", weight: 400, style: "italic", path: inter_greek_400_italic },
  { family: "Inter Greek", weight: 700, style: "italic", path: inter_greek_700_italic },
  { family: "Inter Greek Ext", weight: 400, path: inter_greek_ext_400 },
  { family: "Inter Greek Ext", weight: 600, path: inter_greek_ext_600 },
  { family: "Inter Greek Ext", weight: 700, path: inter_greek_ext_700 },
  { family: "Inter Greek Ext", weight: 800, path: inter_greek_ext_800 },
  { family: "Inter Greek Ext", weight: 400, style: "italic", path: inter_greek_ext_400_italic },
  { family: "Inter Greek Ext", weight: 700, style: "italic", path: inter_greek_ext_700_italic },
  { family: "Inter Vietnamese", weight: 400, path: inter_vietnamese_400 },
  { family: "Inter Vietnamese", weight: 600, path: inter_vietnamese_600 },
  { family: "Inter Vietnamese", weight: 700, path: inter_vietnamese_700 },
  { family: "Inter Vietnamese", weight: 800, path: inter_vietnamese_800 },
  { family: "Inter Vietnamese", weight: 400, style: "italic", path: inter_vietnamese_400_italic },
  { family: "Inter Vietnamese", weight: 700, style: "italic", path: inter_vietnamese_700_italic },
];

/**
 * The monospace and serif faces. Never in the shared list: satori parses every face of a list
 * before its first layout, and most cards name neither. A card that names one gets a list with
 * its faces (`fontsForCard`); a glyph they lack falls back to Inter and its subsets.
 */
const BUNDLED_EXTRA: { family: string; weight: Weight; style?: "italic"; path: string }[] = [
  { family: MONO_FAMILY, weight: 400, path: mono_400 },
  { family: MONO_FAMILY, weight: 700, path: mono_700 },
  { family: MONO_FAMILY, weight: 400, style: "italic", path: mono_400_italic },
  { family: SERIF_FAMILY, weight: 400, path: serif_400 },
  { family: SERIF_FAMILY, weight: 700, path: serif_700 },
  { family: SERIF_FAMILY, weight: 400, style: "italic", path: serif_400_italic },
];

/** The faces of the bundled monospace or serif family (read once per process; satori caches parses by the bytes). */
export function extraBundledFaces(family: string): Promise<Font[]> {
  const faces = BUNDLED_EXTRA.filter((face) => face.family === family);
  return Promise.all(
    faces.map(async ({ family, weight, style, path }) => ({ name: family, weight, style: style ?? ("normal" as const), data: await readFace(path) })),
  );
}

/** A font file from OG_FONTS_DIR, registered after the bundled ones so Inter wins where both have a glyph. */
interface ExtraFont {
  family: string;
  weight: Weight | 100 | 200 | 300 | 500 | 900;
  style: "normal" | "italic";
  data: ArrayBuffer;
}

export interface ExtraFontsReport {
  /** Files loaded, as `file (family weight style)`. */
  loaded: string[];
  /** Files in the directory that were not loaded, with why. */
  skipped: { file: string; reason: string }[];
  /** Files loaded with a limit worth knowing (variable font, collection). */
  notes: { file: string; note: string }[];
}

let extraFonts: ExtraFont[] = [];
let loaded: Promise<Font[]> | undefined;

/** Which CJK family draws Han characters (漢字, shared by Chinese, Japanese and Korean) in a card. */
export type HanPreference = "ja-JP" | "ko-KR" | "zh-CN";

/**
 * The Han preference of a card from all its text: kana make it Japanese, Hangul Korean, other
 * Han Chinese; undefined when it has no CJK at all.
 */
export function hanPreference(texts: Iterable<string | undefined>): HanPreference | undefined {
  let han = false;
  let hangul = false;
  for (const text of texts) {
    if (!text) continue;
    if (/[\u3040-\u30FF\u31F0-\u31FF\uFF66-\uFF9F]/.test(text)) return "ja-JP";
    if (/[\u1100-\u11FF\u3130-\u318F\uAC00-\uD7AF]/.test(text)) hangul = true;
    if (/[\u3400-\u9FFF\uF900-\uFAFF\u{20000}-\u{3FFFF}]/u.test(text)) han = true;
  }
  return hangul ? "ko-KR" : han ? "zh-CN" : undefined;
}

const WEIGHT_WORDS: [RegExp, ExtraFont["weight"]][] = [
  [/extra-?light|ultra-?light/i, 200],
  [/semi-?bold|demi-?bold/i, 600],
  [/extra-?bold|ultra-?bold/i, 800],
  [/thin|hairline/i, 100],
  [/light/i, 300],
  [/medium/i, 500],
  [/black|heavy/i, 900],
  [/bold/i, 700],
];

/**
 * Family, weight and style from a file name, the way font files are usually named
 * ("NotoSansJP-Bold.ttf", "noto-sans-jp-japanese-700-normal.woff"). Files of one family in
 * several weights then form one satori family, so a bold title picks the bold face.
 */
export function describeFontFile(file: string): Pick<ExtraFont, "family" | "weight" | "style"> {
  const stem = file.replace(/\.(ttf|otf|woff2?|ttc|otc)$/i, "");
  const style = /italic|oblique/i.test(stem) ? "italic" : "normal";
  const numeric = stem.match(/(?:^|[-_ ])([1-9]00)(?=$|[-_ ])/);
  let weight: ExtraFont["weight"] = 400;
  let family = stem;
  if (numeric) {
    weight = Number(numeric[1]) as ExtraFont["weight"];
    family = stem.slice(0, numeric.index);
  } else {
    const tail = stem.match(/[-_ ]([A-Za-z]+)$/);
    const word = tail ? WEIGHT_WORDS.find(([re]) => re.test(tail[1])) : undefined;
    if (word) weight = word[1];
    if (tail && (word || /^(regular|normal|book|italic|oblique)$/i.test(tail[1]))) family = stem.slice(0, tail.index);
  }
  family = family.replace(/[-_ ](italic|oblique)$/i, "");
  return { family: `Fallback ${family || stem}`, weight, style };
}

/** The first four bytes of every format we accept. */
function fontFormat(data: Uint8Array): "ttf" | "otf" | "woff" | "woff2" | "ttc" | undefined {
  const tag = String.fromCharCode(...data.subarray(0, 4));
  if (tag === "\0\x01\0\0" || tag === "true") return "ttf";
  if (tag === "OTTO") return "otf";
  if (tag === "wOFF") return "woff";
  if (tag === "wOF2") return "woff2";
  if (tag === "ttcf") return "ttc";
  return undefined;
}

/**
 * The first font of a TrueType/OpenType collection (.ttc, e.g. Debian's NotoSansCJK-Regular.ttc)
 * as a standalone font file: its table directory with every table copied after it. Only the
 * first is taken: the fonts of a CJK collection share most of their bytes, and unpacking all
 * of them would hold each shared table once per font.
 */
export function firstFontOfCollection(data: Uint8Array): { font: Uint8Array; count: number } {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const count = view.getUint32(8);
  if (count < 1 || data.length < 16) throw new Error("empty font collection");
  const start = view.getUint32(12);
  const tables = sfntTables(data, start);
  if (!tables) throw new Error("font collection cut short");
  const entries = [...tables.entries()];
  let size = 12 + entries.length * 16;
  for (const [, t] of entries) size += (t.length + 3) & ~3;
  const out = new Uint8Array(size);
  const outView = new DataView(out.buffer);
  out.set(data.subarray(start, start + 12), 0);
  let at = 12 + entries.length * 16;
  entries.forEach(([tag, t], i) => {
    const dir = start + 12 + i * 16;
    out.set(data.subarray(dir, dir + 16), 12 + i * 16);
    outView.setUint32(12 + i * 16 + 8, at);
    out.set(data.subarray(t.offset, t.offset + t.length), at);
    at += (t.length + 3) & ~3;
    void tag;
  });
  return { font: out, count };
}

/**
 * Registers every .ttf/.otf/.woff/.woff2/.ttc file in `dir` (OG_FONTS_DIR) as a fallback font:
 * satori draws a glyph Inter lacks with the first of these that has it (before the bundled
 * Noto fallbacks, so an operator's font wins). WOFF2 is decoded by satori; a collection
 * contributes its first font. Called once at start-up, before rendering, in every process or
 * worker that renders; files are read here, synchronously, so a bad directory is reported at
 * start-up, not at the first render. Every file is either loaded, loaded with a note (a
 * variable font, a collection), or skipped with the reason. `undefined` clears the extra fonts.
 */
export function useExtraFonts(dir: string | undefined): ExtraFontsReport {
  const report: ExtraFontsReport = { loaded: [], skipped: [], notes: [] };
  const fonts: ExtraFont[] = [];
  if (dir) {
    for (const file of readdirSync(dir).sort()) {
      if (!/\.(ttf|otf|woff2?|ttc|otc)$/i.test(file)) continue;
      const path = join(dir, file);
      let data: Uint8Array;
      try {
        if (!statSync(path).isFile()) continue;
        data = readFileSync(path);
      } catch (error) {
        report.skipped.push({ file: path, reason: `unreadable: ${(error as Error).message}` });
        continue;
      }
      const format = fontFormat(data);
      if (!format) {
        report.skipped.push({ file: path, reason: "not a TrueType, OpenType, WOFF, WOFF2 or collection font" });
        continue;
      }
      if (format === "ttc") {
        try {
          const { font, count } = firstFontOfCollection(data);
          data = font;
          if (count > 1) report.notes.push({ file: path, note: `collection of ${count} fonts: only the first is used` });
        } catch (error) {
          report.skipped.push({ file: path, reason: `unusable font collection: ${(error as Error).message}` });
          continue;
        }
      }
      if (format === "woff2" && data.length >= 12 && new DataView(data.buffer, data.byteOffset).getUint32(8) !== data.length) {
        report.skipped.push({ file: path, reason: "truncated WOFF2 (its header gives another length)" });
        continue;
      }
      if (format !== "woff" && format !== "woff2") {
        const tables = sfntTables(data);
        if (!tables?.has("cmap")) {
          report.skipped.push({ file: path, reason: tables ? "no character map (cmap table)" : "truncated font file" });
          continue;
        }
        if (tables.has("fvar"))
          report.notes.push({ file: path, note: "variable font: drawn at its default instance only (use static files for other weights)" });
      }
      const meta = describeFontFile(file);
      fonts.push({ ...meta, data: data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) as ArrayBuffer });
      report.loaded.push(`${file} (${meta.family} ${meta.weight} ${meta.style})`);
    }
  }
  extraFonts = fonts;
  loaded = undefined;
  sharedPoints = undefined;
  return report;
}

const faceData = new Map<string, Promise<ArrayBuffer>>();

/** A bundled face's bytes, read once: satori keeps one parse per ArrayBuffer, so a face read twice would be parsed twice. */
function readFace(path: string): Promise<ArrayBuffer> {
  let data = faceData.get(path);
  if (!data) {
    data = Bun.file(path).arrayBuffer();
    faceData.set(path, data);
  }
  return data;
}

function bundledFaces(family?: string): Promise<Font[]> {
  const faces = family ? BUNDLED.filter((face) => face.family === family) : BUNDLED;
  return Promise.all(
    faces.map(async ({ family, weight, style, path }) => ({ name: family, weight, style: style ?? ("normal" as const), data: await readFace(path) })),
  );
}

/**
 * The fonts satori gets up front, read once per process (or worker): Inter's Latin faces, then
 * the extra fonts from `useExtraFonts`. With extra fonts, every Inter subset comes first, so
 * Inter keeps drawing the characters both have (a subset handed over later would come after
 * them). satori keeps a font loader (with its shaping cache) per list, found by the array or by
 * the fonts' names and bytes, so callers pass this same array for the loader to be reused
 * (`fontsForCard` says when not to).
 */
export function loadFonts(): Promise<Font[]> {
  loaded ??= bundledFaces(extraFonts.length > 0 ? undefined : PRIMARY_FAMILY).then((bundled): Font[] => [
    ...bundled,
    ...extraFonts.map(({ family, weight, style, data }) => ({ name: family, weight, style, data })),
  ]);
  return loaded;
}

let cardLists = 0;

/** What a card is laid out with: the shared Latin list, or a list of its own (`fontsForCard`). */
export interface CardFonts {
  fonts: Font[];
  /** The list every Latin card shares: no fallback font may be added to its loader. */
  shared: boolean;
}

/**
 * The font list for one card's layout, from the card's text fields. A card whose every
 * character the shared list draws (`sharedCoverage`), or is an emoji, or draws nothing, shares
 * that list, and so one satori font loader and its caches, with every such card. Any other card gets a list of its own:
 * satori keeps what `loadAdditionalAsset` added to a font loader for the loader's life, so in a
 * shared loader a character several fallback fonts have would be drawn with whichever an earlier
 * card happened to load (a Chinese card's slice drawing a Japanese card's 日), and the same card
 * would render differently in a busy worker than in a fresh one. With a loader of its own it
 * renders as in a fresh worker, every time, for 2–5 ms more per render (an empty shaping cache).
 * A template's own text is not known before the layout: the renderer lays a card out again with
 * a list of its own when satori asks the shared list for a fallback font (../engines/satori.ts).
 */
export async function fontsForCard(texts: Iterable<string | undefined>, extra?: ExtraCardFonts): Promise<CardFonts> {
  const shared = extra && extra.fonts.length > 0 ? await listWithExtra(extra) : await loadFonts();
  const covered = await sharedCoverage();
  for (const text of texts) {
    if (!text) continue;
    for (const ch of text) {
      const cp = ch.codePointAt(0)!;
      if (!covered.has(cp) && !isIgnorable(cp) && !EMOJI.test(ch)) return { fonts: ownFontList(shared), shared: false };
    }
  }
  return { fonts: shared, shared: true };
}

/**
 * Faces a card names beyond the shared list: the bundled monospace or serif family, an
 * account's own fonts (named for the render, never by the family the account gave them: see
 * account-fonts in the render process). `key` names the set: cards naming the same set share one
 * list, and so one satori font loader, as Latin cards share the shared list.
 */
export interface ExtraCardFonts {
  key: string;
  fonts: Font[];
}

/** Lists of the shared faces and a set of extra ones, by the set's key: the 16 most recently used. */
const extraLists = new LRUCache<string, Promise<Font[]>>({ max: 16 });

function listWithExtra(extra: ExtraCardFonts): Promise<Font[]> {
  let list = extraLists.get(extra.key);
  if (!list) {
    list = loadFonts().then((shared) => [...shared, ...extra.fonts]);
    extraLists.set(extra.key, list);
  }
  return list;
}

let sharedPoints: Promise<Set<number>> | undefined;

/**
 * What the shared list draws without asking for more: Inter's Latin faces, and with
 * OG_FONTS_DIR every Inter subset and the directory's fonts too (all given up front then). A
 * character this misses only costs a card its own loader; one it wrongly counts is caught by the
 * renderer's second layout.
 */
export function sharedCoverage(): Promise<Set<number>> {
  sharedPoints ??= interCoverage().then(({ primary, subsets }) => {
    if (extraFonts.length === 0) return primary;
    const all = new Set(primary);
    for (const subset of subsets) for (const cp of subset.points) all.add(cp);
    for (const font of extraFonts) for (const cp of fontCodePoints(new Uint8Array(font.data)) ?? []) all.add(cp);
    return all;
  });
  return sharedPoints;
}

/**
 * Characters of emoji, which satori draws from the images `loadAdditionalAsset` returns (kept per
 * render, not in the font loader), so a Latin card with emoji keeps the shared list. Should one
 * be drawn as text after all (an emoji Twemoji lacks), the renderer notices and lays the card out
 * again with a list of its own: this only has to be right often, not always.
 */
const EMOJI = /\p{Extended_Pictographic}|[\u{1F1E6}-\u{1F1FF}\u{1F3FB}-\u{1F3FF}\u20E3]/u;

/**
 * A copy of `fonts` that satori gives a font loader of its own. satori finds loaders by the
 * fonts' names and bytes, not by the array, so the list's own entry (Inter's Latin face again,
 * under a name used once) is what makes it new. Parsed faces are still shared: satori caches
 * each parse by the identity of the font's bytes.
 */
export function ownFontList(fonts: Font[]): Font[] {
  return [...fonts, { ...fonts[0]!, name: `Inter card ${++cardLists}` }];
}

interface Coverage {
  /** What the Latin faces draw: satori hands over whole words, and their Latin letters need nothing more. */
  primary: Set<number>;
  /** The other subsets, in the order they were once all registered, so a character two have goes to the same one. */
  subsets: { family: string; points: Set<number> }[];
}
let coverage: Promise<Coverage> | undefined;

/**
 * What each Inter subset draws, from its own character map (every weight of a subset maps the
 * same characters). Read once, at the first render.
 */
function interCoverage(): Promise<Coverage> {
  coverage ??= (async () => {
    const first = new Map<string, string>();
    for (const face of BUNDLED) if (!first.has(face.family)) first.set(face.family, face.path);
    const families = await Promise.all(
      [...first].map(async ([family, path]) => ({ family, points: cmapCodePoints(woffTable(new Uint8Array(await readFace(path)), "cmap")) })),
    );
    return { primary: families.find((f) => f.family === PRIMARY_FAMILY)!.points, subsets: families.filter((f) => f.family !== PRIMARY_FAMILY) };
  })();
  return coverage;
}

// ---- Bundled fallback fonts (CJK, Arabic, Hebrew, Devanagari, Thai, symbols) ----

/** One slice of assets/fonts/noto-fallback.bin, as scripts/pack-fonts.ts writes it in the index. */
export interface PackSlice {
  family: string;
  /** The satori language codes this family is preferred for (Han is shared by four families). */
  langs: string[];
  weight: number;
  offset: number;
  length: number;
  /** Inclusive code point ranges, from the slice's unicode-range. */
  ranges: [number, number][];
}

interface Pack {
  slices: PackSlice[];
  /** Where slice bytes start in the file. */
  dataStart: number;
  /** Per slice, its face: slices of one family with the same ranges are the weights of one face ("Noto Sans JP#12"). */
  faces: string[];
}

let pack: Promise<Pack> | undefined;
/** Fonts handed to satori, by slice group ("family#n"), so a second ask returns the same objects (satori caches parses by identity). */
const sliceFonts = new Map<string, Promise<Font[]>>();

/**
 * The pack's index, read on the first character Inter and OG_FONTS_DIR lack, never at
 * start-up: a server that only renders Latin never reads it. Only the index is read here;
 * slice bytes are read one slice at a time by `fontsForSegment`.
 */
function openPack(): Promise<Pack> {
  pack ??= (async () => {
    const file = Bun.file(fallbackPackPath);
    const head = new DataView(await file.slice(0, 4).arrayBuffer()).getUint32(0, true);
    const index = JSON.parse(await file.slice(4, 4 + head).text()) as { slices: PackSlice[] };
    const firstOf = new Map<string, number>();
    const faces = index.slices.map((s, i) => {
      const id = `${s.family}|${JSON.stringify(s.ranges)}`;
      if (!firstOf.has(id)) firstOf.set(id, i);
      return `${s.family}#${firstOf.get(id)}`;
    });
    return { slices: index.slices, dataStart: 4 + head, faces };
  })();
  return pack;
}

/** Characters that draw nothing and are not worth a font (joiners, selectors, bidi marks, spaces). */
export function isIgnorable(cp: number): boolean {
  return (
    cp <= 0x20 ||
    (cp >= 0x7f && cp <= 0xa0) ||
    cp === 0xad ||
    (cp >= 0x200b && cp <= 0x200f) ||
    (cp >= 0x2028 && cp <= 0x202f) ||
    (cp >= 0x2060 && cp <= 0x206f) ||
    (cp >= 0xfe00 && cp <= 0xfe0f) ||
    cp === 0xfeff ||
    (cp >= 0xe0000 && cp <= 0xe0fff)
  );
}

function covers(slice: PackSlice, cp: number): boolean {
  for (const [a, b] of slice.ranges) if (cp >= a && cp <= b) return true;
  return false;
}

/**
 * satori's answer for a segment of text no loaded font covers. A character one of Inter's other
 * subsets has (Latin extended, Cyrillic, Greek, Vietnamese) gets that subset's faces. Any other
 * gets the bundled slices that hold it, preferring the family of the language satori detected,
 * and for Han the card's preference (`hanPreference`: Han in a Japanese title draws with Noto
 * Sans JP, in a Korean one with KR, otherwise with SC; TC where SC lacks a character). Each
 * slice becomes its own family name with its weights (satori picks one face per name, so one
 * name per slice keeps every slice in the fallback chain). The same bytes are returned every
 * time, so each subset and slice is read, and parsed by satori (which caches parses by the
 * bytes), once per worker, on first use. Also returns the code points nothing bundled has.
 */
export async function fontsForSegment(lang: string, segment: string, han?: HanPreference): Promise<{ fonts: Font[]; missing: number[] }> {
  const { primary, subsets } = await interCoverage();
  const interFamilies = new Set<string>();
  const rest: number[] = [];
  for (const ch of segment) {
    const cp = ch.codePointAt(0)!;
    if (isIgnorable(cp) || primary.has(cp)) continue;
    const subset = subsets.find((s) => s.points.has(cp));
    if (subset) interFamilies.add(subset.family);
    else rest.push(cp);
  }
  const inter = await Promise.all([...interFamilies].map((family) => bundledFaces(family)));
  const slices = rest.length > 0 ? await fallbackSlicesFor(lang, rest, han) : { fonts: [], missing: [] };
  return { fonts: [...inter.flat(), ...slices.fonts], missing: slices.missing };
}

/** The Noto slices for `points` (see `fontsForSegment`), and the points no slice has. */
async function fallbackSlicesFor(lang: string, points: number[], han?: HanPreference): Promise<{ fonts: Font[]; missing: number[] }> {
  // satori names one language when it can tell ("ja-JP" for kana) and several for Han
  // ("ja-JP|zh-CN|zh-TW|zh-HK"); the card's own preference decides between those.
  const langs = lang.split("|");
  const preferred = han && (langs.length > 1 || langs[0] === "unknown") ? han : langs.length === 1 ? langs[0]! : undefined;
  const { slices, dataStart, faces } = await openPack();
  const groups = new Set<string>();
  const missing: number[] = [];
  for (const cp of points) {
    let best: number | undefined;
    for (let i = 0; i < slices.length; i++) {
      const slice = slices[i]!;
      if (!covers(slice, cp)) continue;
      if (best === undefined) best = i;
      if (preferred && slice.langs.includes(preferred)) {
        best = i;
        break;
      }
    }
    if (best === undefined) missing.push(cp);
    else groups.add(faces[best]!);
  }
  const fonts = await Promise.all(
    [...groups].map((key) => {
      let loading = sliceFonts.get(key);
      if (!loading) {
        const members = slices.filter((_, i) => faces[i] === key);
        loading = Promise.all(
          members.map(async (s) => ({
            name: key,
            weight: s.weight as Weight,
            style: "normal" as const,
            data: await Bun.file(fallbackPackPath)
              .slice(dataStart + s.offset, dataStart + s.offset + s.length)
              .arrayBuffer(),
          })),
        );
        sliceFonts.set(key, loading);
      }
      return loading;
    }),
  );
  return { fonts: fonts.flat(), missing };
}

/** Bundled fallback slices this process has read so far (for tests and diagnostics). */
export function loadedFallbackSlices(): string[] {
  return [...sliceFonts.keys()];
}
