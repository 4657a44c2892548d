/**
 * Small font files for the account-font tests, made here from what the repository has: a blocky
 * "pixel" font written by opentype.js (OpenType/CFF, every letter a filled box, so a card drawn in
 * it is unmistakable), TrueType unwrapped from a bundled WOFF, and WOFF2 written by wawoff2 (a
 * WebAssembly build of the reference WOFF2 encoder, a test-only dependency).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { inflateSync } from "node:zlib";
import opentype from "opentype.js";

export const REPO_ROOT = join(import.meta.dir, "../..");
export const asset = (name: string): Uint8Array => new Uint8Array(readFileSync(join(REPO_ROOT, "assets/fonts", name)));

/**
 * An OTF whose letters and digits are boxes: `hollow` draws a frame instead of a filled box, so
 * two pixel fonts tell apart by their ink. Family and weight go into its name and OS/2 tables.
 */
export function pixelFont(family: string, options: { weight?: number; italic?: boolean; hollow?: boolean; variable?: boolean } = {}): Uint8Array {
  const advance = 600;
  const notdef = new opentype.Glyph({ name: ".notdef", unicode: 0, advanceWidth: advance, path: new opentype.Path() });
  const glyphs = [notdef, new opentype.Glyph({ name: "space", unicode: 32, advanceWidth: advance, path: new opentype.Path() })];
  const chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  for (const ch of chars) {
    const path = new opentype.Path();
    const box = (x0: number, y0: number, x1: number, y1: number, clockwise: boolean) => {
      if (clockwise) {
        path.moveTo(x0, y0);
        path.lineTo(x0, y1);
        path.lineTo(x1, y1);
        path.lineTo(x1, y0);
      } else {
        path.moveTo(x0, y0);
        path.lineTo(x1, y0);
        path.lineTo(x1, y1);
        path.lineTo(x0, y1);
      }
      path.close();
    };
    box(50, 0, 550, 700, false);
    if (options.hollow) box(150, 100, 450, 600, true);
    glyphs.push(new opentype.Glyph({ name: `g${ch.codePointAt(0)}`, unicode: ch.codePointAt(0)!, advanceWidth: advance, path }));
  }
  const font = new opentype.Font({
    familyName: family,
    styleName: options.italic ? "Italic" : "Regular",
    unitsPerEm: 1000,
    ascender: 800,
    descender: -200,
    glyphs,
    weightClass: options.weight ?? 400,
    italicAngle: options.italic ? -10 : 0,
  });
  // A weight axis (and no variations): enough for the file to say it is a variable font.
  if (options.variable)
    (font.tables as Record<string, unknown>).fvar = {
      axes: [{ tag: "wght", minValue: 100, defaultValue: 400, maxValue: 900, name: { en: "Weight" } }],
      instances: [],
    };
  return new Uint8Array(font.toArrayBuffer());
}

/** The TrueType (or CFF) font inside a WOFF file. */
export function sfntFromWoff(woff: Uint8Array): Uint8Array {
  const view = new DataView(woff.buffer, woff.byteOffset, woff.byteLength);
  const flavor = view.getUint32(4);
  const numTables = view.getUint16(12);
  const tables: { tag: number; checksum: number; data: Uint8Array }[] = [];
  for (let i = 0; i < numTables; i++) {
    const at = 44 + i * 20;
    const tag = view.getUint32(at);
    const offset = view.getUint32(at + 4);
    const compLength = view.getUint32(at + 8);
    const origLength = view.getUint32(at + 12);
    const checksum = view.getUint32(at + 16);
    const raw = woff.subarray(offset, offset + compLength);
    tables.push({ tag, checksum, data: compLength < origLength ? new Uint8Array(inflateSync(raw)) : raw });
  }
  let size = 12 + numTables * 16;
  for (const t of tables) size += (t.data.length + 3) & ~3;
  const out = new Uint8Array(size);
  const o = new DataView(out.buffer);
  o.setUint32(0, flavor);
  o.setUint16(4, numTables);
  let power = 1;
  while (power * 2 <= numTables) power *= 2;
  o.setUint16(6, power * 16);
  o.setUint16(8, Math.log2(power));
  o.setUint16(10, numTables * 16 - power * 16);
  let at = 12 + numTables * 16;
  tables.forEach((t, i) => {
    o.setUint32(12 + i * 16, t.tag);
    o.setUint32(12 + i * 16 + 4, t.checksum);
    o.setUint32(12 + i * 16 + 8, at);
    o.setUint32(12 + i * 16 + 12, t.data.length);
    out.set(t.data, at);
    at += (t.data.length + 3) & ~3;
  });
  return out;
}

/** WOFF2 of a TrueType or OpenType font. */
export async function woff2Of(sfnt: Uint8Array): Promise<Uint8Array> {
  const wawoff2 = (await import("wawoff2")) as unknown as { compress(data: Uint8Array): Promise<Uint8Array> };
  return new Uint8Array(await wawoff2.compress(sfnt));
}

/** Dark pixels (luminance under 96) of straight RGBA in a box. */
export function inkIn(pixels: Uint8Array, width: number, box: { x: number; y: number; w: number; h: number }): number {
  let ink = 0;
  for (let y = box.y; y < box.y + box.h; y++) {
    for (let x = box.x; x < box.x + box.w; x++) {
      const i = (y * width + x) * 4;
      if (0.299 * pixels[i]! + 0.587 * pixels[i + 1]! + 0.114 * pixels[i + 2]! < 96) ink++;
    }
  }
  return ink;
}
