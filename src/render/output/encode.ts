/**
 * Encoders for the three output formats. PNG is our own writer over zlib (png.ts); JPEG is
 * MozJPEG and WebP is libwebp, both compiled to wasm (@jsquash/jpeg, @jsquash/webp). The wasm
 * files are imported `with { type: "file" }`, so `bun build --compile` embeds them and the
 * binary needs nothing on disk. Why these and not jpeg-js or sharp: `bun run bench:encoders`
 * (bench/encoders.ts) and bench/RESULTS.md have the numbers.
 *
 * Each wasm module (and its Emscripten glue) is imported, compiled and instantiated once per
 * thread, on first use: a render worker that only ever draws PNGs never pays for them.
 */
import { defaultOptions as jpegDefaults } from "@jsquash/jpeg/meta.js";
import { defaultOptions as webpDefaults } from "@jsquash/webp/meta.js";
import { encodePng } from "./png.ts";

export const IMAGE_FORMATS = ["png", "jpeg", "webp"] as const;
export type ImageFormat = (typeof IMAGE_FORMATS)[number];
export type ImageContentType = "image/png" | "image/jpeg" | "image/webp";

export const DEFAULT_QUALITY = 85;

export const CONTENT_TYPES: Record<ImageFormat, ImageContentType> = {
  png: "image/png",
  jpeg: "image/jpeg",
  webp: "image/webp",
};

/** File extensions, as the signed URL form and `ogsmith render` name them. */
export const EXTENSIONS: Record<ImageFormat, string> = { png: "png", jpeg: "jpg", webp: "webp" };

/** The quality a request ends up with: ignored (undefined) for PNG, 85 when not given. */
export function effectiveQuality(format: ImageFormat, quality: number | undefined): number | undefined {
  return format === "png" ? undefined : (quality ?? DEFAULT_QUALITY);
}

interface WasmEncoder {
  encode(data: Uint8Array, width: number, height: number, options: object): Uint8Array | null;
}

let jpegEncoder: Promise<WasmEncoder> | undefined;
let webpEncoder: Promise<WasmEncoder> | undefined;

/** The wasm modules and their glue are imported on first use (wasm-codecs.ts), not with this file. */
function encoderFor(format: "jpeg" | "webp"): Promise<WasmEncoder> {
  if (format === "jpeg") return (jpegEncoder ??= import("./wasm-codecs.ts").then((codecs) => codecs.loadJpegEncoder()));
  return (webpEncoder ??= import("./wasm-codecs.ts").then((codecs) => codecs.loadWebpEncoder()));
}

/**
 * MozJPEG as Squoosh configures it (optimised Huffman tables, trellis quantisation, 4:2:0
 * chroma), except baseline instead of progressive: progressive scans tripled the encode time
 * (≈190 ms against ≈60 ms for an event card) for 7 % fewer bytes, and link-preview crawlers
 * fetch the whole image before showing anything anyway.
 */
export const JPEG_OPTIONS = {
  ...jpegDefaults,
  progressive: false,
  // Clamp quantisation tables to 8 bits at low qualities (libjpeg's force_baseline): otherwise
  // quality ≲ 25 writes 16-bit tables, an extended-sequential JPEG some decoders refuse.
  baseline: true,
};

/**
 * libwebp lossy at method 2 (cwebp -m 2) rather than its default 4: half the encode time
 * (≈40 ms against ≈90 ms for an event card) for ≈5 % more bytes. bench/encoders.ts measures both.
 */
export const WEBP_OPTIONS = { ...webpDefaults, method: 2 };

/** One wasm encoder with explicit libjpeg/libwebp options (the benchmark compares settings with this). */
export async function encodeWithOptions(format: "jpeg" | "webp", rgba: Uint8Array, width: number, height: number, options: object): Promise<Uint8Array> {
  const encoder = await encoderFor(format);
  const out = encoder.encode(rgba, width, height, options);
  if (!out) throw new Error(`${format} encoding failed`);
  // The result is a view into the wasm heap, which the next encode overwrites.
  return out.slice();
}

/**
 * Encodes straight-alpha RGBA8 pixels. JPEG has no alpha: callers flatten first
 * (flattenPremultiplied), otherwise MozJPEG would drop alpha and keep whatever colour a
 * transparent pixel happens to carry.
 */
export async function encodeImage(rgba: Uint8Array, width: number, height: number, format: ImageFormat, quality = DEFAULT_QUALITY): Promise<Uint8Array> {
  if (rgba.length !== width * height * 4) throw new Error(`expected ${width * height * 4} bytes of RGBA, got ${rgba.length}`);
  if (format === "png") return encodePng(rgba, width, height);
  if (!Number.isInteger(quality) || quality < 1 || quality > 100) throw new RangeError(`quality must be an integer from 1 to 100, got ${quality}`);
  if (format === "jpeg") return encodeWithOptions("jpeg", rgba, width, height, { ...JPEG_OPTIONS, quality, chroma_quality: quality });
  return encodeWithOptions("webp", rgba, width, height, { ...WEBP_OPTIONS, quality });
}

/**
 * Composites premultiplied RGBA onto an opaque colour, in place: what a JPEG of a card with
 * transparent parts must show (the card's own background, never black). Opaque pixels are
 * untouched; resvg already draws onto the background colour when it is given one, so this
 * only has work to do where that colour itself is not opaque or could not be parsed.
 */
export function flattenPremultiplied(rgba: Uint8Array, background: [number, number, number]): Uint8Array {
  const [r, g, b] = background;
  for (let i = 3; i < rgba.length; i += 4) {
    const a = rgba[i]!;
    if (a === 255) continue;
    const rest = 255 - a;
    rgba[i - 3] = Math.min(255, rgba[i - 3]! + Math.round((r * rest) / 255));
    rgba[i - 2] = Math.min(255, rgba[i - 2]! + Math.round((g * rest) / 255));
    rgba[i - 1] = Math.min(255, rgba[i - 1]! + Math.round((b * rest) / 255));
    rgba[i] = 255;
  }
  return rgba;
}
