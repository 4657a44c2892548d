/**
 * The content-addressed in-memory cache of rendered images (docs/templates.md, caching). The key
 * is a SHA-256 over everything that decides the bytes: template id, theme, size, format and quality, the fields (keys
 * sorted, unset ones dropped), the bytes of every fetched image and, for an account's own
 * template, the account, the version and the stored definition's digest, and the digests of the
 * account's fonts it names. The same logo URL serving
 * new bytes is a new key, and two URLs serving the same bytes with otherwise equal fields
 * still differ (the URL is a field), which keeps the key honest for templates that print a URL.
 *
 * Bounded by total bytes, least recently used first out (the LRU of ../images/image-cache.ts,
 * without expiry: an entry can never go stale, its key is its content).
 */
import { fontDigests } from "../fonts/account-fonts.ts";
import type { RenderEngine } from "../engines/engine.ts";
import { createByteBoundedCache, type ImageCache } from "../images/image-cache.ts";
import type { RenderRequest } from "../types.ts";

export const DEFAULT_PNG_CACHE_BYTES = 24 * 1024 * 1024;

export type PngCache = ImageCache<Uint8Array>;

export function createPngCache(maxBytes = DEFAULT_PNG_CACHE_BYTES): PngCache {
  return createByteBoundedCache<Uint8Array>({ maxBytes, sizeOf: (png) => png.byteLength });
}

/** Digests of image bytes, remembered per byte array: the image cache hands back the same array for a repeated URL. */
const digests = new WeakMap<Uint8Array, string>();

function digestOf(bytes: Uint8Array): string {
  let digest = digests.get(bytes);
  if (digest === undefined) {
    digest = new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
    digests.set(bytes, digest);
  }
  return digest;
}

/** The cache key of one request once its images are fetched (`images`: field → image bytes). */
export function renderCacheKey(request: RenderRequest, images: Record<string, Uint8Array>): string {
  const fields = Object.keys(request.fields)
    .filter((name) => request.fields[name] !== undefined)
    .sort()
    .map((name) => [name, request.fields[name]]);
  const imageDigests = Object.keys(images)
    .sort()
    .map((name) => [name, digestOf(images[name]!)]);
  const parts: unknown[] = [request.template, request.theme, request.width, request.height, request.format, request.quality ?? null, fields, imageDigests];
  // An account's own template: whose, which version, which stored content. Appended only then, so
  // the addresses (ETags, cached files) of built-in and operator templates stay what they were.
  const own = request.accountTemplate;
  if (own) parts.push(["account", own.accountId, request.template, own.version, own.revision ?? null]);
  // The account's fonts it draws with, by content: a replaced font draws the card again.
  const fonts = fontDigests(request.fonts);
  if (fonts.length > 0) parts.push(["fonts", fonts]);
  const canonical = JSON.stringify(parts);
  return new Bun.CryptoHasher("sha256").update(canonical).digest("hex");
}

/**
 * The key an image is cached under (memory and OG_CACHE_DIR) for one engine. Two engines draw
 * slightly different bytes for the same request, so neither may be served as the other's: for
 * satori it is the content address itself (as before there were two engines, so existing caches
 * stay valid), for takumi the address hashed with the engine's name. Counting a public URL's
 * image once a month goes by the content address alone, so switching engines counts nothing again.
 */
export function engineCacheKey(contentAddress: string, engine: RenderEngine = "satori", accountTemplate = false): string {
  if (engine === "satori" && !accountTemplate) return contentAddress;
  const drawing = accountTemplate ? `account-drawing-${ACCOUNT_DRAWING_REVISION}:` : "";
  return new Bun.CryptoHasher("sha256").update(`${engine}:${drawing}${contentAddress}`).digest("hex");
}

/**
 * Raised when the account-template language starts drawing a stored template differently (2:
 * whitespace between inline content is kept as a space, text with inline elements in it
 * wraps as one paragraph, and `<i>`, `<em>` and `font-style: italic` draw Inter's italic; 3:
 * Cyrillic, Greek and Vietnamese italics too; 4: Tailwind border classes over Tailwind's border
 * reset, and `<br>` breaking the line of the text it is in; 5: `serif`, `monospace`, `font-serif` and
 * `font-mono` draw the bundled serif and monospace faces, not Inter). It is part of the cache key and so of
 * the ETag of every account-template image, so images drawn the old way are neither served from
 * a cache nor kept by a client's revalidation; counting is by content address and is unchanged.
 */
export const ACCOUNT_DRAWING_REVISION = 5;
