/**
 * What an image is, from its bytes: magic numbers plus the intrinsic size from the header,
 * without decoding pixels. Shared by the image fetcher (src/render/images/fetch-image.ts) and the
 * template language's embedded images (src/templates/account/images.ts).
 */

export type SourceFormat = "png" | "jpeg" | "gif" | "webp" | "svg";

export interface SniffedImage {
  format: SourceFormat;
  width?: number;
  height?: number;
}

export function sniffImage(bytes: Uint8Array): SniffedImage | undefined {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (b.length >= 24 && b.readUInt32BE(0) === 0x89504e47 && b.readUInt32BE(4) === 0x0d0a1a0a) {
    return { format: "png", width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
  }
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return { format: "jpeg", ...jpegSize(b) };
  if (b.length >= 10 && (b.toString("latin1", 0, 6) === "GIF87a" || b.toString("latin1", 0, 6) === "GIF89a")) {
    return { format: "gif", width: b.readUInt16LE(6), height: b.readUInt16LE(8) };
  }
  if (b.length >= 16 && b.toString("latin1", 0, 4) === "RIFF" && b.toString("latin1", 8, 12) === "WEBP") return { format: "webp", ...webpSize(b) };
  const svg = svgSize(b);
  if (svg) return { format: "svg", ...svg };
  return undefined;
}

type Size = { width?: number; height?: number };

/** Walks JPEG segments to the first start-of-frame marker. */
function jpegSize(b: Buffer): Size {
  let i = 2;
  while (i + 9 < b.length) {
    if (b[i] !== 0xff) return {};
    const marker = b[i + 1]!;
    if (marker === 0xff) {
      i += 1; // fill byte
      continue;
    }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      i += 2; // markers without a length
      continue;
    }
    // SOF0–SOF15 carry the frame size, except DHT (C4), JPG (C8) and DAC (CC).
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: b.readUInt16BE(i + 5), width: b.readUInt16BE(i + 7) };
    }
    i += 2 + b.readUInt16BE(i + 2);
  }
  return {};
}

function webpSize(b: Buffer): Size {
  const chunk = b.toString("latin1", 12, 16);
  if (chunk === "VP8X" && b.length >= 30) return { width: 1 + b.readUIntLE(24, 3), height: 1 + b.readUIntLE(27, 3) };
  if (chunk === "VP8L" && b.length >= 25 && b[20] === 0x2f) {
    const bits = b.readUInt32LE(21);
    return { width: 1 + (bits & 0x3fff), height: 1 + ((bits >>> 14) & 0x3fff) };
  }
  if (chunk === "VP8 " && b.length >= 30) return { width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff };
  return {};
}

/** An SVG document: optional XML declaration, comments and doctype, then an <svg> root. */
const SVG_ROOT = /^\s*(?:<\?xml[^>]*\?>\s*)?(?:(?:<!--[\s\S]*?-->|<!DOCTYPE[^>[]*(?:\[[\s\S]*?\])?\s*>)\s*)*<svg(?=[\s>/])([^>]*)>/;

function svgSize(b: Buffer): Size | undefined {
  const head = b.toString("utf8", 0, Math.min(b.length, 8192)).replace(/^\uFEFF/, "");
  const root = SVG_ROOT.exec(head);
  if (!root) return undefined;
  const attrs = root[1]!;
  const attr = (name: string) => new RegExp(`(?:^|\\s)${name}\\s*=\\s*["']\\s*([\\d.]+)(?:px)?\\s*["']`).exec(attrs)?.[1];
  const width = Number(attr("width"));
  const height = Number(attr("height"));
  if (width > 0 && height > 0) return { width, height };
  const viewBox = /(?:^|\s)viewBox\s*=\s*["']([^"']*)["']/
    .exec(attrs)?.[1]
    ?.trim()
    .split(/[\s,]+/)
    .map(Number);
  if (viewBox?.length === 4 && viewBox[2]! > 0 && viewBox[3]! > 0) return { width: viewBox[2], height: viewBox[3] };
  return {};
}
