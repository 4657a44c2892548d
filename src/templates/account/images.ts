/**
 * Images in account templates: `data:` URIs written into the HTML are checked when the
 * template is saved (a real image in a format the renderer draws, not too large), and each
 * render counts the pixels its images decode to, so a card cannot make a worker decode more
 * than the per-render budget.
 */
import { IMAGE_LIMITS } from "../../media/image-limits.ts";
import { sniffImage } from "../../media/sniff.ts";

/** Decoded pixels one render may draw, all images together. */
export const PIXEL_BUDGET = IMAGE_LIMITS.maxPixels;

const DATA_URI = /^data:([a-z0-9.+/-]+)((?:;[a-z0-9=.+-]*)*?)(;base64)?,/i;

/** The bytes of a data: URI, or only its first `limit` bytes when that is all a header needs. */
function bytesOf(uri: string, limit = Infinity): Uint8Array | undefined {
  const match = DATA_URI.exec(uri);
  if (!match) return undefined;
  let payload = uri.slice(match[0].length);
  try {
    if (match[3]) {
      if (Number.isFinite(limit)) payload = payload.slice(0, Math.ceil(limit / 3) * 4);
      return new Uint8Array(Buffer.from(payload, "base64"));
    }
    return new TextEncoder().encode(decodeURIComponent(payload));
  } catch {
    return undefined;
  }
}

/** Why an image written into the template cannot be drawn, or undefined. */
export function embeddedImageProblem(uri: string): string | undefined {
  const bytes = bytesOf(uri);
  if (!bytes) return "is not a data: URI that decodes";
  const sniffed = sniffImage(bytes);
  if (!sniffed) return "is not a PNG, JPEG, GIF or SVG image";
  if (sniffed.format === "webp") return "is WebP, which the renderer does not draw; embed PNG, JPEG, GIF or SVG";
  const { width, height } = sniffed;
  if (sniffed.format !== "svg" && (width === undefined || height === undefined)) return "has no readable size";
  if (width !== undefined && height !== undefined && width * height > PIXEL_BUDGET)
    return `is ${width}×${height} pixels; at most ${PIXEL_BUDGET / 1e6} megapixels`;
  return undefined;
}

/** Pixels a raster data: URI decodes to (0 for SVG, which is drawn at its box's size). */
export function decodedPixels(uri: string): number {
  // Every header we read fits in the first 128 KiB but a JPEG's, whose frame header can follow large metadata.
  let sniffed = sniffImage(bytesOf(uri, 128 * 1024) ?? new Uint8Array());
  if (sniffed?.format === "jpeg" && sniffed.width === undefined) sniffed = sniffImage(bytesOf(uri) ?? new Uint8Array());
  if (!sniffed || sniffed.format === "svg") return 0;
  return (sniffed.width ?? 0) * (sniffed.height ?? 0);
}
