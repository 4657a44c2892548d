/**
 * Which characters a font really has: the code points its character map (cmap) maps to a
 * glyph. scripts/pack-fonts.ts uses it to record each fallback slice's coverage, and fonts.ts
 * to know which Inter subset draws a character before reading that subset's faces.
 */
import { inflateSync } from "node:zlib";

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
