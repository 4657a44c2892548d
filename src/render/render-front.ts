/**
 * The front of the service renderer (renderer.ts): a request's image fields fetched (or their
 * data: URIs decoded) through fetchImage and the address guard, with an LRU of fetched images;
 * its content address; the content-addressed in-memory cache (png-cache.ts), which answers a
 * repeated request without rendering; and identical requests in flight sharing one trip to the
 * backend. The backend is what it calls on a miss (the persistent cache, then the render pool):
 * this file says what it needs of one, renderer.ts builds it.
 */
import { LRUCache } from "lru-cache";
import type { Logger } from "../logger.ts";
import { createPngCache, DEFAULT_PNG_CACHE_BYTES, engineCacheKey, renderCacheKey, type PngCache } from "./caches/png-cache.ts";
import type { RenderEngine } from "./engines/engine.ts";
import { createImageCache, fetchImage, type FetchedImage, type FetchImageOptions } from "./images/fetch-image.ts";
import { CONTENT_TYPES } from "./output/encode.ts";
import type { RenderJob } from "./sandbox/pool.ts";
import type { RenderRequest, RenderResult, Renderer } from "./types.ts";

/** Cards with missing glyphs whose code points a cache hit reports (the image caches keep bytes only). */
const MISSING_GLYPHS_KEPT = 4096;

export interface PrepareOptions {
  /** Render in the pool's background lane, below every interactive render (batch items). */
  background?: boolean;
}

/** A request whose images are fetched and whose content address is known, not yet rendered. */
export interface PreparedRender {
  /**
   * The content address: SHA-256 hex of everything in the request that decides the image (what
   * a public URL's image is counted by). The caches key the bytes by it and the engine
   * (`engineCacheKey`); the result's `contentAddress` is that key.
   */
  contentAddress: string;
  /** The bytes, from the cache or a render (shared with identical requests in flight). */
  render(): Promise<RenderResult>;
}

/** What a render costs once the in-memory cache in front has missed: where the bytes come from. */
export interface ProducedImage {
  bytes: Uint8Array;
  /** False when the bytes came from the persistent cache or an identical render already under way. */
  rendered: boolean;
  missingGlyphs: number[];
}

/** Behind the in-memory cache: the persistent cache, then the render pool. */
export interface RenderBackend {
  /** The image at this content address: from disk, from an identical render in flight, or rendered now. */
  produce(key: string, job: RenderJob, account: string | undefined, background?: boolean): Promise<ProducedImage>;
  /** An in-memory hit in front: keeps the file's place in the persistent cache's recency order. */
  used(key: string): void;
}

export interface RenderFrontOptions {
  backend: RenderBackend;
  logger: Logger;
  allowPrivateNetworks: boolean;
  /** Byte budget of the rendered-image cache; 0 disables it. */
  pngCacheBytes?: number;
  fetch?: Omit<FetchImageOptions, "allowPrivate">;
  /** The engine the backend draws with (OG_RENDER_ENGINE): part of every cache key. Default satori. */
  engine?: RenderEngine;
}

/** The side of rendering in front of the backend: fetched images, content addresses and the in-memory cache. */
export type RenderFront = Renderer &
  Required<Pick<Renderer, "cached">> & {
    /**
     * Fetches the images and computes the content address; nothing is rendered yet. `background`:
     * a render it needs waits below interactive ones (a batch's items).
     */
    prepare(request: RenderRequest, options?: PrepareOptions): Promise<PreparedRender>;
    readonly pngCache: PngCache | undefined;
  };

/** Everything before the backend. */
export function createRenderFront(options: RenderFrontOptions): RenderFront {
  const { backend, logger } = options;
  const cacheBytes = options.pngCacheBytes ?? DEFAULT_PNG_CACHE_BYTES;
  const pngCache = cacheBytes > 0 ? createPngCache(cacheBytes) : undefined;
  const fetchOptions: FetchImageOptions = {
    // One cache per service rather than the process-wide one, so two services in one process
    // (tests) with different address policies never serve each other's fetched images.
    cache: createImageCache(),
    ...options.fetch,
    allowPrivate: options.allowPrivateNetworks,
  };
  /** Identical requests share one trip to the backend. */
  const inflight = new Map<string, Promise<ProducedImage>>();
  // The image caches keep bytes only; a cached card with missing glyphs must still say so.
  // Bounded: only cards with missing glyphs are kept, the least recently used dropped first. (The persistent
  // cache stores them with the image, so a disk hit after a restart knows them too.)
  const missingByKey = new LRUCache<string, number[]>({ max: MISSING_GLYPHS_KEPT });
  const rememberMissing = (key: string, missing: number[]) => {
    if (missing.length > 0) missingByKey.set(key, missing);
  };

  async function loadImages(request: RenderRequest): Promise<Record<string, FetchedImage>> {
    const names = request.definition.fields.filter((f) => f.type === "image_url" && request.fields[f.name]).map((f) => f.name);
    const fetched = await Promise.all(names.map((name) => fetchImage(name, request.fields[name]!, fetchOptions)));
    return Object.fromEntries(names.map((name, i) => [name, fetched[i]!]));
  }

  async function prepare(request: RenderRequest, prepareOptions: PrepareOptions = {}): Promise<PreparedRender> {
    const started = performance.now();
    const { width, height } = request;
    const images = await loadImages(request);
    const address = contentAddress(request, Object.fromEntries(Object.entries(images).map(([name, image]) => [name, image.bytes])));
    const key = engineCacheKey(address, options.engine, request.accountTemplate !== undefined);
    // A preview neither reads nor fills the image caches (its key only joins identical previews in flight).
    const cache = request.preview ? undefined : pngCache;
    // The first render() includes the image fetching above; a prepared request rendered again
    // later (a public URL's repeat) times only itself.
    let since = started;
    const result = (bytes: Uint8Array, cached: boolean, from: number): RenderResult => ({
      missingGlyphs: missingByKey.get(key) ?? [],
      bytes,
      contentType: CONTENT_TYPES[request.format],
      width,
      height,
      generationTimeMs: Math.round(performance.now() - from),
      contentAddress: key,
      cached,
    });

    return {
      contentAddress: address,
      async render() {
        const from = since;
        since = performance.now();
        const hit = cache?.get(key);
        if (hit) {
          backend.used(key);
          return result(hit, true, from);
        }
        const shared = inflight.get(key);
        if (shared) return result((await shared).bytes, true, from);

        const attempt = backend
          .produce(
            key,
            {
              template: request.template,
              theme: request.theme,
              fields: request.fields,
              images: Object.fromEntries(Object.entries(images).map(([name, image]) => [name, image.dataUri])),
              width,
              height,
              format: request.format,
              quality: request.quality,
              ...(request.accountTemplate ? { accountTemplate: request.accountTemplate } : {}),
              ...(request.fonts ? { fonts: request.fonts } : {}),
              ...(request.preview ? { preview: true } : {}),
            },
            request.requester,
            prepareOptions.background,
          )
          .then((produced) => {
            cache?.set(key, produced.bytes);
            rememberMissing(key, produced.missingGlyphs);
            if (produced.rendered && produced.missingGlyphs.length > 0) {
              logger.warn("no font has these characters; drawn as boxes", { template: request.template, codePoints: formatCodePoints(produced.missingGlyphs) });
            }
            return produced;
          });
        inflight.set(key, attempt);
        try {
          const { bytes, rendered } = await attempt;
          return result(bytes, !rendered, from);
        } finally {
          inflight.delete(key);
        }
      },
    };
  }

  return {
    pngCache,
    prepare,
    cached(request: RenderRequest): RenderResult | undefined {
      if (!pngCache || request.preview) return undefined;
      const started = performance.now();
      if (request.definition.fields.some((f) => f.type === "image_url" && request.fields[f.name])) return undefined;
      const key = engineCacheKey(renderCacheKey(request, {}), options.engine, request.accountTemplate !== undefined);
      const hit = pngCache.get(key);
      if (!hit) return undefined;
      backend.used(key);
      return {
        missingGlyphs: missingByKey.get(key) ?? [],
        bytes: hit,
        contentType: CONTENT_TYPES[request.format],
        width: request.width,
        height: request.height,
        generationTimeMs: Math.round(performance.now() - started),
        contentAddress: key,
        cached: true,
      };
    },
    async render(request: RenderRequest): Promise<RenderResult> {
      return (await prepare(request)).render();
    },
    async close() {},
  };
}

/**
 * The cache key of a request. A preview's also covers its whole definition (an unsaved one has
 * no version to tell two drafts apart) and can never equal a real render's.
 */
function contentAddress(request: RenderRequest, images: Record<string, Uint8Array>): string {
  const key = renderCacheKey(request, images);
  if (!request.preview) return key;
  return new Bun.CryptoHasher("sha256").update(JSON.stringify(["preview", key, request.accountTemplate?.spec ?? null])).digest("hex");
}

/** "U+0FFF U+1F8FF" — how missing glyphs are named in logs and the CLI's warning. */
export function formatCodePoints(codePoints: number[]): string {
  return codePoints.map((cp) => `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`).join(" ");
}
