/**
 * A small PNG decoder for tests: 8-bit RGB/RGBA, non-interlaced, all five filters. Enough to
 * read what ogsmith and resvg write, and to assert on pixels without a dependency.
 */
import { crc32, deflateSync, inflateSync } from "node:zlib";

export interface DecodedPng {
  width: number;
  height: number;
  /** Straight RGBA8, row-major. */
  pixels: Uint8Array;
}

export function decodePng(bytes: Uint8Array): DecodedPng {
  const sig = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (!sig.every((b, i) => bytes[i] === b)) throw new Error("not a PNG");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let offset = 8;
  let width = 0;
  let height = 0;
  let colourType = 0;
  let depth = 8;
  let palette: Uint8Array = new Uint8Array();
  let paletteAlpha: Uint8Array = new Uint8Array();
  const idat: Uint8Array[] = [];
  while (offset < bytes.length) {
    const length = view.getUint32(offset);
    const type = String.fromCharCode(...bytes.subarray(offset + 4, offset + 8));
    const data = bytes.subarray(offset + 8, offset + 8 + length);
    if (type === "IHDR") {
      width = view.getUint32(offset + 8);
      height = view.getUint32(offset + 12);
      depth = data[8]!;
      colourType = data[9]!;
      // 8-bit RGB/RGBA (ours, resvg's), and the reductions takumi's encoder makes: palette
      // (1–8 bits, with tRNS), grey and grey with alpha.
      const ok = colourType === 3 || colourType === 0 ? [1, 2, 4, 8].includes(depth) : depth === 8 && [2, 4, 6].includes(colourType);
      if (!ok || data[12] !== 0) throw new Error(`unsupported PNG: depth ${depth}, colour type ${colourType}, interlace ${data[12]}`);
    } else if (type === "PLTE") palette = data;
    else if (type === "tRNS") paletteAlpha = data;
    else if (type === "IDAT") idat.push(data);
    else if (type === "IEND") break;
    offset += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const channels = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 }[colourType]!;
  const bpp = Math.max(1, (channels * depth) >> 3);
  const stride = Math.ceil((width * channels * depth) / 8);
  const un = new Uint8Array(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const src = y * (stride + 1) + 1;
    const dst = y * stride;
    for (let x = 0; x < stride; x++) {
      const a = x >= bpp ? un[dst + x - bpp]! : 0;
      const b = y > 0 ? un[dst - stride + x]! : 0;
      const c = x >= bpp && y > 0 ? un[dst - stride + x - bpp]! : 0;
      let v = raw[src + x]!;
      if (filter === 1) v += a;
      else if (filter === 2) v += b;
      else if (filter === 3) v += (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      } else if (filter !== 0) throw new Error(`bad filter ${filter} on row ${y}`);
      un[dst + x] = v & 0xff;
    }
  }
  if (colourType === 6) return { width, height, pixels: un };
  const rgba = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const j = (y * width + x) * 4;
      const row = y * stride;
      if (colourType === 2) {
        rgba.set([un[row + x * 3]!, un[row + x * 3 + 1]!, un[row + x * 3 + 2]!, 255], j);
      } else if (colourType === 4) {
        const grey = un[row + x * 2]!;
        rgba.set([grey, grey, grey, un[row + x * 2 + 1]!], j);
      } else {
        // Palette index or grey level, `depth` bits each, most significant first.
        const bit = x * depth;
        const sample = (un[row + (bit >> 3)]! >> (8 - depth - (bit & 7))) & ((1 << depth) - 1);
        if (colourType === 3) rgba.set([palette[sample * 3]!, palette[sample * 3 + 1]!, palette[sample * 3 + 2]!, paletteAlpha[sample] ?? 255], j);
        else {
          const grey = Math.round((sample * 255) / ((1 << depth) - 1));
          rgba.set([grey, grey, grey, 255], j);
        }
      }
    }
  }
  return { width, height, pixels: rgba };
}

export type Rgba = [number, number, number, number];

export function pixelAt(png: DecodedPng, x: number, y: number): Rgba {
  const i = (y * png.width + x) * 4;
  const p = png.pixels;
  return [p[i], p[i + 1], p[i + 2], p[i + 3]];
}

/** Average colour of a rectangle. */
export function averageColour(png: DecodedPng, x: number, y: number, w: number, h: number): Rgba {
  const sum = [0, 0, 0, 0];
  for (let yy = y; yy < y + h; yy++) {
    for (let xx = x; xx < x + w; xx++) {
      const px = pixelAt(png, xx, yy);
      for (let k = 0; k < 4; k++) sum[k] += px[k];
    }
  }
  const n = w * h;
  return sum.map((s) => Math.round(s / n)) as Rgba;
}

/** Fraction of pixels in a rectangle within `tolerance` (per channel) of `colour`. */
export function fractionNear(png: DecodedPng, x: number, y: number, w: number, h: number, colour: [number, number, number], tolerance = 24): number {
  let hits = 0;
  for (let yy = y; yy < y + h; yy++) {
    for (let xx = x; xx < x + w; xx++) {
      const [r, g, b] = pixelAt(png, xx, yy);
      if (Math.abs(r - colour[0]) <= tolerance && Math.abs(g - colour[1]) <= tolerance && Math.abs(b - colour[2]) <= tolerance) hits++;
    }
  }
  return hits / (w * h);
}

/** A w×h PNG of one opaque colour, as a data: URI — test fixture for logo/avatar fields. */
export function solidPngDataUri(w: number, h: number, colour: [number, number, number]): string {
  const rgba = new Uint8Array(w * h * 4);
  for (let i = 0; i < rgba.length; i += 4) {
    rgba[i] = colour[0];
    rgba[i + 1] = colour[1];
    rgba[i + 2] = colour[2];
    rgba[i + 3] = 255;
  }
  return `data:image/png;base64,${Buffer.from(encodeRaw(rgba, w, h)).toString("base64")}`;
}

/**
 * A w×h PNG of one opaque colour as a data: URI, `paddingBytes` larger than the image needs: a
 * private ancillary chunk that every decoder skips. A data: value of any length (and decoded
 * size) that still draws as one colour.
 */
export function paddedPngDataUri(w: number, h: number, colour: [number, number, number], paddingBytes: number): string {
  const rgba = new Uint8Array(w * h * 4);
  for (let i = 0; i < rgba.length; i += 4) rgba.set([colour[0], colour[1], colour[2], 255], i);
  return `data:image/png;base64,${Buffer.from(encodeRaw(rgba, w, h, paddingBytes)).toString("base64")}`;
}

/** Independent of src/render/output/png.ts on purpose (filter 0 only), so fixtures don't depend on the code under test. */
function encodeRaw(rgba: Uint8Array, w: number, h: number, paddingBytes = 0): Uint8Array {
  const raw = new Uint8Array((w * 4 + 1) * h);
  for (let y = 0; y < h; y++) raw.set(rgba.subarray(y * w * 4, (y + 1) * w * 4), y * (w * 4 + 1) + 1);
  const chunk = (type: string, data: Uint8Array) => {
    const buf = Buffer.alloc(12 + data.length);
    buf.writeUInt32BE(data.length, 0);
    buf.write(type, 4, "ascii");
    Buffer.from(data).copy(buf, 8);
    buf.writeUInt32BE(crc32(buf.subarray(4, 8 + data.length)) >>> 0, 8 + data.length);
    return buf;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8;
  ihdr[9] = 6;
  // "paDd": ancillary (lower-case first letter), private, safe to copy; skipped by every decoder.
  // In pieces of at most 512 KiB: resvg's PNG decoder drops an image with an ancillary chunk over 1 MiB.
  const padding: Buffer[] = [];
  for (let left = paddingBytes; left > 0; left -= 12 + 512 * 1024) padding.push(chunk("paDd", new Uint8Array(Math.max(0, Math.min(left - 12, 512 * 1024)))));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    ...padding,
    chunk("IDAT", deflateSync(raw)),
    chunk("IEND", new Uint8Array(0)),
  ]);
}

/**
 * For each row, the first column whose pixel is darker than `threshold` (the sum of R, G and
 * B), or `png.width` when the row has none: where text on a light card starts, row by row.
 */
export function firstDarkColumns(png: DecodedPng, threshold = 384): number[] {
  const columns: number[] = [];
  for (let y = 0; y < png.height; y++) {
    let first = png.width;
    for (let x = 0; x < png.width; x++) {
      const i = (y * png.width + x) * 4;
      if (png.pixels[i]! + png.pixels[i + 1]! + png.pixels[i + 2]! < threshold) {
        first = x;
        break;
      }
    }
    columns.push(first);
  }
  return columns;
}
