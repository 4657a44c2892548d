/**
 * Turns a template's image field (logo_url, speaker_avatar_url, author_avatar_url) into a data:
 * URI satori can draw, or a 422 IMAGE_FETCH_FAILED that names the field and the reason
 * (docs/templates.md, Images). Never a blank hole: every format we accept is one resvg really draws.
 *
 * - data: URIs are decoded locally; http(s) goes through the address guard (src/net) with a
 *   5 s real-time budget, a 5 MiB cap and at most 3 redirects.
 * - The format is sniffed from the bytes; Content-Type and the data: URI's declared type are
 *   ignored because servers get them wrong and attackers set them on purpose.
 * - PNG, JPEG, GIF (first frame) and SVG are passed through. resvg draws nothing for WebP
 *   (checked with resvg-js 2.6.2, lossy and lossless), so WebP is decoded with libwebp
 *   compiled to wasm (@jsquash/webp, embedded in the compiled binary) and re-encoded as PNG.
 * - Successful http(s) fetches are cached by URL (image-cache.ts); concurrent fetches of one
 *   URL share a single request.
 */
import decodeWebp, { init as initWebpDecoder } from "@jsquash/webp/decode";
// A wasm asset: `with { type: "file" }` gives a path Bun.file() reads, inside the
// executable under `bun build --compile` (typed by `declare module "*.wasm"` in src/render/assets.d.ts).
import webpWasmPath from "@jsquash/webp/codec/dec/webp_dec.wasm" with { type: "file" };

import { ApiError } from "../../errors.ts";
import type { AddressPolicy } from "../../net/address-guard.ts";
import { formatBytes, guardedFetch } from "../../net/guarded-request.ts";
import { OutboundError } from "../../net/outbound-error.ts";
import type { Resolver } from "../../net/resolve.ts";
import type { TlsOptions, Transport } from "../../net/transport.ts";
import { version } from "../../../package.json";
import { createByteBoundedCache, type ImageCache } from "./image-cache.ts";
import { IMAGE_LIMITS } from "../../media/image-limits.ts";
import { sniffImage, type SourceFormat } from "../../media/sniff.ts";
import { encodePng } from "../output/png.ts";
import { checkSvgText } from "../../media/svg-safety.ts";

export { IMAGE_LIMITS, sniffImage };

export type ImageFailureReason =
  | "timeout"
  | "too_large"
  | "not_an_image"
  | "unsupported_format"
  | "blocked_address"
  | "http_error"
  | "network_error"
  | "too_many_redirects";

export type { SniffedImage, SourceFormat } from "../../media/sniff.ts";

export interface FetchedImage {
  /** What to put in satori's `<img src>`. */
  dataUri: string;
  /** The bytes behind dataUri (PNG for a converted WebP); hash them for the render cache. */
  bytes: Uint8Array;
  mime: "image/png" | "image/jpeg" | "image/gif" | "image/svg+xml";
  /** The format that was fetched, before any conversion. */
  sourceFormat: SourceFormat;
  /** Intrinsic size when the header says so (SVG without width/height/viewBox: undefined). */
  width?: number;
  height?: number;
}

export interface FetchImageOptions extends AddressPolicy {
  resolver?: Resolver;
  transport?: Transport;
  tls?: TlsOptions;
  /** Defaults to the process-wide cache; null disables caching. */
  cache?: ImageCache<FetchedImage> | null;
  timeoutMs?: number;
  maxBytes?: number;
  maxRedirects?: number;
}

export function createImageCache(options: { maxBytes?: number; ttlMs?: number; now?: () => number } = {}): ImageCache<FetchedImage> {
  return createByteBoundedCache<FetchedImage>({
    maxBytes: options.maxBytes ?? 64 * 1024 * 1024,
    ttlMs: options.ttlMs ?? 10 * 60 * 1000,
    now: options.now,
    sizeOf: (image) => image.bytes.byteLength + image.dataUri.length,
  });
}

/** The process-wide cache of fetched images. */
export const imageCache = createImageCache();

const inflight = new Map<string, Promise<FetchedImage>>();

/** A failure before it is tied to a field. */
class ImageProblem extends Error {
  constructor(
    readonly reason: ImageFailureReason,
    message: string,
  ) {
    super(message);
  }
}

export async function fetchImage(field: string, url: string, options: FetchImageOptions): Promise<FetchedImage> {
  try {
    if (/^data:/i.test(url)) return await fromDataUri(url, options.maxBytes ?? IMAGE_LIMITS.maxBytes);
    const cache = options.cache === undefined ? imageCache : options.cache;
    const cached = cache?.get(url);
    if (cached) return cached;
    let pending = inflight.get(url);
    if (!pending) {
      pending = download(url, options).finally(() => inflight.delete(url));
      inflight.set(url, pending);
    }
    const image = await pending;
    cache?.set(url, image);
    return image;
  } catch (error) {
    const problem = asProblem(error);
    throw new ApiError("IMAGE_FETCH_FAILED", `Could not use ${field}: ${problem.message}`, [{ field, message: problem.message, reason: problem.reason }]);
  }
}

function asProblem(error: unknown): ImageProblem {
  if (error instanceof ImageProblem) return error;
  if (error instanceof OutboundError) {
    // A redirect to a non-http(s) or malformed URL is the server's fault, like a bad status.
    return new ImageProblem(error.reason === "invalid_url" ? "http_error" : error.reason, error.message);
  }
  throw error;
}

async function download(url: string, { cache: _, ...options }: FetchImageOptions): Promise<FetchedImage> {
  const response = await guardedFetch(url, {
    ...options,
    method: "GET",
    headers: {
      accept: "image/png,image/jpeg,image/gif,image/webp,image/svg+xml;q=0.9,*/*;q=0.1",
      "user-agent": `ogsmith/${version} (image fetcher)`,
    },
    timeoutMs: options.timeoutMs ?? IMAGE_LIMITS.timeoutMs,
    maxBytes: options.maxBytes ?? IMAGE_LIMITS.maxBytes,
    maxRedirects: options.maxRedirects ?? IMAGE_LIMITS.maxRedirects,
    followRedirects: true,
  });
  if (response.status < 200 || response.status > 299) {
    throw new ImageProblem("http_error", `the server answered HTTP ${response.status}`);
  }
  return toDrawable(response.bytes);
}

async function fromDataUri(uri: string, maxBytes: number): Promise<FetchedImage> {
  const match = /^data:[^,]*;base64,/i.exec(uri);
  if (!match) throw new ImageProblem("not_an_image", "data: URIs must be base64-encoded images");
  const payload = uri.slice(match[0].length);
  // Check the decoded size before decoding: base64 is 4 characters per 3 bytes.
  if (Math.floor((payload.length * 3) / 4) > maxBytes + 2) throw new ImageProblem("too_large", `image is larger than ${formatBytes(maxBytes)}`);
  const bytes = new Uint8Array(Buffer.from(payload, "base64"));
  if (bytes.byteLength > maxBytes) throw new ImageProblem("too_large", `image is larger than ${formatBytes(maxBytes)}`);
  return toDrawable(bytes);
}

/** Sniffs, checks and (for WebP) converts bytes into something resvg draws. */
async function toDrawable(bytes: Uint8Array): Promise<FetchedImage> {
  const sniffed = sniffImage(bytes);
  if (!sniffed) throw await unrecognised(bytes);
  const { format, width, height } = sniffed;
  if (width !== undefined && height !== undefined && width * height > IMAGE_LIMITS.maxPixels) {
    throw new ImageProblem("too_large", `image is ${width}×${height} pixels; the limit is ${IMAGE_LIMITS.maxPixels / 1e6} megapixels`);
  }
  if (format === "svg") checkSvg(bytes);
  if (format === "webp") return webpToPng(bytes);
  const mime = ({ png: "image/png", jpeg: "image/jpeg", gif: "image/gif", svg: "image/svg+xml" } as const)[format];
  return { dataUri: `data:${mime};base64,${Buffer.from(bytes).toString("base64")}`, bytes, mime, sourceFormat: format, width, height };
}

async function unrecognised(bytes: Uint8Array): Promise<ImageProblem> {
  // Loaded on first use: it is only needed to name a format we refuse, and importing it costs
  // start-up time (≈ 10 % of `serve`'s time to the first 200).
  const { fileTypeFromBuffer } = await import("file-type");
  const type = await fileTypeFromBuffer(bytes).catch(() => undefined);
  if (type?.mime.startsWith("image/")) {
    return new ImageProblem("unsupported_format", `${type.ext.toUpperCase()} images are not supported (use PNG, JPEG, GIF, WebP or SVG)`);
  }
  const head = new TextDecoder().decode(bytes.subarray(0, 512)).trimStart().toLowerCase();
  if (head.startsWith("<!doctype html") || head.startsWith("<html")) return new ImageProblem("not_an_image", "the URL returned an HTML page, not an image");
  return new ImageProblem("not_an_image", type ? `the URL returned ${type.mime}, not an image` : "the content is not an image");
}

// ---------------------------------------------------------------------------------------------
// WebP → PNG.

let webpReady: Promise<void> | undefined;

/** Compiles the decoder once per process (or worker), on first use. */
function loadWebpDecoder(): Promise<void> {
  webpReady ??= (async () => {
    const module = await WebAssembly.compile(await Bun.file(webpWasmPath as string).arrayBuffer());
    await initWebpDecoder(module);
  })();
  return webpReady;
}

async function webpToPng(webp: Uint8Array): Promise<FetchedImage> {
  await loadWebpDecoder();
  let image: ImageData;
  try {
    image = await decodeWebp(webp.slice().buffer as ArrayBuffer);
  } catch {
    throw new ImageProblem("unsupported_format", "this WebP image could not be decoded (animated WebP is not supported)");
  }
  const png = encodePng(new Uint8Array(image.data.buffer, image.data.byteOffset, image.data.byteLength), image.width, image.height);
  return {
    dataUri: `data:image/png;base64,${Buffer.from(png).toString("base64")}`,
    bytes: png,
    mime: "image/png",
    sourceFormat: "webp",
    width: image.width,
    height: image.height,
  };
}

/**
 * resvg-js reads files named by an SVG's hrefs (verified: <image href="/some/file.gif"> drew
 * the file), so an SVG is parsed (namespace-aware, so a prefixed <s:image> is seen for what it
 * is) and refused when anything in it reaches outside the document; see svg-safety.ts.
 */
function checkSvg(bytes: Uint8Array): void {
  const problem = checkSvgText(Buffer.from(bytes).toString("utf8"), "fetched");
  if (problem) throw new ImageProblem("unsupported_format", `this SVG cannot be drawn safely: ${problem.message}`);
}
