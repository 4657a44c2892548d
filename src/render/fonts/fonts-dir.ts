/**
 * The operator's fonts (OG_FONTS_DIR): every .ttf/.otf/.woff/.woff2/.ttc file of the directory,
 * read at start-up, checked (format, character map, a collection's first font, a truncated
 * WOFF2) and named by its file name, with a report of what was loaded and what was skipped and
 * why. fonts.ts puts them after the bundled faces.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Weight } from "./bundled-fonts.ts";
import { sfntTables } from "./cmap.ts";

/** A font file from OG_FONTS_DIR, registered after the bundled ones so Inter wins where both have a glyph. */
export interface ExtraFont {
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
 * Reads every font file in `dir` (OG_FONTS_DIR; see `useExtraFonts` in fonts.ts). Files are
 * read synchronously, so a bad directory is reported at start-up, not at the first render.
 */
export function readFontsDir(dir: string | undefined): { fonts: ExtraFont[]; report: ExtraFontsReport } {
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
  return { fonts, report };
}
