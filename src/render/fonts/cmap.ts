/**
 * Which characters a font really has: the code points its character map (cmap) maps to a
 * glyph, from TrueType/OpenType, WOFF or WOFF2 bytes. scripts/pack-fonts.ts uses it to record
 * each fallback slice's coverage, and fonts.ts to know which Inter subset draws a character
 * before reading that subset's faces, and what the fonts of OG_FONTS_DIR draw.
 */
import { brotliDecompressSync, inflateSync } from "node:zlib";

/** Every code point a cmap maps to a glyph (formats 4 and 12, the Unicode subtables). */
export function cmapCodePoints(cmap: Uint8Array): Set<number> {
  const view = new DataView(cmap.buffer, cmap.byteOffset, cmap.byteLength);
  const points = new Set<number>();
  const count = view.getUint16(2);
  for (let i = 0; i < count; i++) {
    const platform = view.getUint16(4 + i * 8);
    const encoding = view.getUint16(6 + i * 8);
    if (!(platform === 0 || (platform === 3 && (encoding === 1 || encoding === 10)))) continue;
    const sub = view.getUint32(8 + i * 8);
    const format = view.getUint16(sub);
    if (format === 4) {
      const segX2 = view.getUint16(sub + 6);
      const ends = sub + 14;
      const starts = ends + segX2 + 2;
      const deltas = starts + segX2;
      const rangeOffsets = deltas + segX2;
      for (let s = 0; s < segX2 / 2; s++) {
        const end = view.getUint16(ends + s * 2);
        const start = view.getUint16(starts + s * 2);
        const delta = view.getUint16(deltas + s * 2);
        const ro = view.getUint16(rangeOffsets + s * 2);
        for (let c = start; c <= end && c !== 0xffff; c++) {
          const glyph = ro === 0 ? (c + delta) & 0xffff : view.getUint16(rangeOffsets + s * 2 + ro + (c - start) * 2);
          if (glyph !== 0) points.add(c);
        }
      }
    } else if (format === 12) {
      const groups = view.getUint32(sub + 12);
      for (let g = 0; g < groups; g++) {
        const start = view.getUint32(sub + 16 + g * 12);
        const end = view.getUint32(sub + 20 + g * 12);
        const glyph = view.getUint32(sub + 24 + g * 12);
        for (let c = start; c <= end; c++) if (glyph + (c - start) !== 0) points.add(c);
      }
    }
  }
  return points;
}

/**
 * One table of a WOFF (version 1) font, decompressed: its directory lists each table's offset,
 * compressed and original length, and a table is zlib-compressed when the two lengths differ.
 */
export function woffTable(font: Uint8Array, tag: string): Uint8Array {
  const view = new DataView(font.buffer, font.byteOffset, font.byteLength);
  if (view.getUint32(0) !== 0x774f4646) throw new Error("not a WOFF font");
  const numTables = view.getUint16(12);
  for (let i = 0; i < numTables; i++) {
    const at = 44 + i * 20;
    if (String.fromCharCode(...font.subarray(at, at + 4)) !== tag) continue;
    const offset = view.getUint32(at + 4);
    const compressed = view.getUint32(at + 8);
    const original = view.getUint32(at + 12);
    const bytes = font.subarray(offset, offset + compressed);
    return compressed === original ? bytes : new Uint8Array(inflateSync(bytes));
  }
  throw new Error(`no ${tag} table`);
}

/** Table tags of a TrueType/OpenType font (sfnt) starting at `offset`, or undefined when the directory is cut short. */
export function sfntTables(data: Uint8Array, offset = 0): Map<string, { offset: number; length: number }> | undefined {
  if (data.length < offset + 12) return undefined;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const count = view.getUint16(offset + 4);
  if (data.length < offset + 12 + count * 16) return undefined;
  const tables = new Map<string, { offset: number; length: number }>();
  for (let i = 0; i < count; i++) {
    const at = offset + 12 + i * 16;
    const tag = String.fromCharCode(...data.subarray(at, at + 4));
    const start = view.getUint32(at + 8);
    const length = view.getUint32(at + 12);
    if (start + length > data.length) return undefined;
    tables.set(tag, { offset: start, length });
  }
  return tables;
}

/** UIntBase128 of the WOFF2 table directory. */
function base128(bytes: Uint8Array, at: { i: number }): number {
  let value = 0;
  for (let k = 0; k < 5; k++) {
    const b = bytes[at.i++]!;
    value = value * 128 + (b & 0x7f);
    if (!(b & 0x80)) return value;
  }
  throw new Error("bad UIntBase128");
}

/** The WOFF2 known-table tags, by their 6-bit index (names padded to 4 characters). */
const WOFF2_KNOWN_TAGS =
  "cmap head hhea hmtx maxp name OS/2 post cvt fpgm glyf loca prep CFF VORG EBDT EBLC gasp hdmx kern LTSH PCLT VDMX vhea vmtx BASE GDEF GPOS GSUB EBSC JSTF MATH CBDT CBLC COLR CPAL SVG sbix acnt avar bdat bloc bsln cvar fdsc feat fmtx fvar gvar hsty just lcar mort morx opbd prop trak Zapf Silf Glat Gloc Feat Sill"
    .split(" ")
    .map((t) => t.padEnd(4, " "));

/** The `cmap` table of a WOFF2 font (never transformed, so it is plain bytes in the brotli stream). */
export function woff2Cmap(font: Uint8Array): Uint8Array {
  const view = new DataView(font.buffer, font.byteOffset, font.byteLength);
  const numTables = view.getUint16(12);
  const totalCompressed = view.getUint32(20);
  const at = { i: 48 };
  let offset = 0;
  let cmap: { offset: number; length: number } | undefined;
  for (let t = 0; t < numTables; t++) {
    const flags = font[at.i++]!;
    let tag: string;
    if ((flags & 0x3f) === 0x3f) {
      tag = String.fromCharCode(...font.subarray(at.i, at.i + 4));
      at.i += 4;
    } else {
      tag = WOFF2_KNOWN_TAGS[flags & 0x3f]!;
    }
    const origLength = base128(font, at);
    const transformVersion = (flags >> 6) & 3;
    const transformed = tag === "glyf" || tag === "loca" ? transformVersion === 0 : transformVersion !== 0;
    const length = transformed ? base128(font, at) : origLength;
    if (tag === "cmap") cmap = { offset, length };
    offset += length;
  }
  if (!cmap) throw new Error("no cmap table");
  const stream = brotliDecompressSync(font.subarray(at.i, at.i + totalCompressed));
  return new Uint8Array(stream.buffer, stream.byteOffset + cmap.offset, cmap.length);
}

/**
 * The code points a whole font file maps to glyphs (TrueType, OpenType, WOFF or WOFF2; a
 * collection is unpacked by the caller first), or undefined when its character map cannot be read.
 */
export function fontCodePoints(font: Uint8Array): Set<number> | undefined {
  try {
    const tag = String.fromCharCode(...font.subarray(0, 4));
    if (tag === "wOFF") return cmapCodePoints(woffTable(font, "cmap"));
    if (tag === "wOF2") return cmapCodePoints(woff2Cmap(font));
    const cmap = sfntTables(font)?.get("cmap");
    return cmap ? cmapCodePoints(font.subarray(cmap.offset, cmap.offset + cmap.length)) : undefined;
  } catch {
    return undefined;
  }
}
