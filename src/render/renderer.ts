/**
 * The renderer `ogsmith serve` and `ogsmith render --batch` use (a single `ogsmith render` and the
 * benchmark baseline keep the in-process one of engines/in-process.ts). Per request:
 *
 *   1. images: each image field is fetched (or its data: URI decoded) on the main thread,
 *      where I/O belongs, through fetchImage and the address guard, with a per-service LRU
 *      of fetched images; a failure is 422 IMAGE_FETCH_FAILED before any render work;
 *   2. cache: the content-addressed in-memory cache (png-cache.ts) answers a repeated
 *      request without rendering; behind it the persistent cache under OG_CACHE_DIR
 *      (disk-cache.ts) does the same across restarts; identical requests already reading
 *      the disk or rendering share that one attempt (single-flight); all report `cached: true`
 *      except the one that rendered;
 *   3. pool: otherwise the job (fields + data: URIs, and an account template's definition as
 *      plain JSON) goes to a render process (pool.ts), or is refused with 503 SERVER_BUSY when
 *      its expected wait for a process is over the bound.
 *
 * Steps 1 and 2's memory cache are the "front"; the persistent cache and the pool are the
 * "backend" it calls on a miss.
 *
 * The route meters every success, cached or not, so a cache hit still counts as a generation.
 */
import { LRUCache } from "lru-cache";
import { ConfigError, type Config } from "../config.ts";
import type { Logger } from "../logger.ts";
import { CONTENT_TYPES } from "./output/encode.ts";
import { DiskCache } from "./caches/disk-cache.ts";
import { createImageCache, fetchImage, type FetchedImage, type FetchImageOptions } from "./images/fetch-image.ts";
import type { RenderEngine } from "./engines/engine.ts";
import { createPngCache, DEFAULT_PNG_CACHE_BYTES, engineCacheKey, renderCacheKey, type PngCache } from "./caches/png-cache.ts";
import { RenderPool, type RenderJob, type RenderPoolOptions } from "./sandbox/pool.ts";
import type { RenderRequest, RenderResult, Renderer } from "./types.ts";

/** Cards with missing glyphs whose code points a cache hit reports (the image caches keep bytes only). */
const MISSING_GLYPHS_KEPT = 4096;

export interface ServiceRendererOptions {
  config: Pick<Config, "renderWorkers" | "allowPrivateNetworks" | "templatesDir" | "fontsDir"> &
    Partial<Pick<Config, "cacheDir" | "cacheMaxBytes" | "renderEngine" | "renderTimeoutMs" | "renderMemoryMb">>;
  logger: Logger;
  /** Pool knobs beyond the config (queue length, GC cadence, job timeout); tests set these. */
  pool?: Partial<Omit<RenderPoolOptions, "workers" | "logger" | "templatesDir" | "fontsDir">>;
  /** Byte budget of the rendered-PNG cache; 0 disables it. */
  pngCacheBytes?: number;
  /** Extra fetch options (tests inject a resolver, transport or allow-list). */
  fetch?: Omit<FetchImageOptions, "allowPrivate">;
  /** Account font files by digest (AccountFontService.bytes), for render processes that ask for them. */
  fontBytes?: (digests: string[]) => Promise<Map<string, Uint8Array>>;
}

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

export interface ServiceRenderer extends RenderFront {
  readonly pool: RenderPool;
  /** Starts the render processes (the first render would too). */
  start(): void;
  readonly diskCache: DiskCache | undefined;
}

export function createServiceRenderer(options: ServiceRendererOptions): ServiceRenderer {
  const { config, logger } = options;
  const pool = new RenderPool({
    workers: config.renderWorkers,
    templatesDir: config.templatesDir,
    fontsDir: config.fontsDir,
    engine: config.renderEngine,
    timeoutMs: config.renderTimeoutMs,
    // `ogsmith serve` starts them once it listens (serve.ts); anything else, at its first render.
    startLater: true,
    memoryBytes: config.renderMemoryMb === undefined ? undefined : config.renderMemoryMb * 1024 * 1024,
    logger,
    fontBytes: options.fontBytes,
    ...options.pool,
  });
  let closed = false;
  const started = () =>
    pool.ready().catch((error) => {
      if (!closed) logger.error("render processes did not start", { error: error instanceof Error ? error.message : String(error) });
    });
  let diskCache: DiskCache | undefined;
  if (config.cacheDir) {
    try {
      diskCache = new DiskCache({ dir: config.cacheDir, maxBytes: config.cacheMaxBytes, logger });
    } catch (error) {
      void pool.close();
      throw new ConfigError(`OG_CACHE_DIR is not a writable directory: ${config.cacheDir} (${error instanceof Error ? error.message : String(error)})`);
    }
  }
  const backend = createRenderBackend(pool, diskCache);
  const front = createRenderFront({
    backend,
    logger,
    allowPrivateNetworks: config.allowPrivateNetworks,
    pngCacheBytes: options.pngCacheBytes,
    fetch: options.fetch,
    engine: config.renderEngine,
  });
  return {
    ...front,
    pool,
    diskCache,
    start() {
      void started();
    },
    async close() {
      closed = true;
      await pool.close();
      await diskCache?.flush();
    },
  };
}

/** What a render costs once the in-memory cache in front has missed: where the bytes come from. */
export interface ProducedImage {
  bytes: Uint8Array;
  /** False when the bytes came from the persistent cache or an identical render already under way. */
  rendered: boolean;
  missingGlyphs: number[];
}

/** Behind the in-memory cache: the persistent cache, then the render pool. */
interface RenderBackend {
  /** The image at this content address: from disk, from an identical render in flight, or rendered now. */
  produce(key: string, job: RenderJob, account: string | undefined, background?: boolean): Promise<ProducedImage>;
  /** An in-memory hit in front: keeps the file's place in the persistent cache's recency order. */
  used(key: string): void;
}

function createRenderBackend(pool: RenderPool, diskCache: DiskCache | undefined): RenderBackend {
  /** One attempt per key at a time: a disk read, then a render if the disk has nothing. */
  const inflight = new Map<string, Promise<ProducedImage>>();
  return {
    used: (key) => diskCache?.used(key),
    async produce(key, job, account, background) {
      const shared = inflight.get(key);
      if (shared) return { ...(await shared), rendered: false };
      const attempt = (async (): Promise<ProducedImage> => {
        // Previews are drafts: never stored, never answered from storage.
        const disk = job.preview ? undefined : diskCache;
        const stored = await disk?.get(key);
        if (stored) return { bytes: stored.bytes, rendered: false, missingGlyphs: stored.missingGlyphs };
        const { bytes, missingGlyphs } = await pool.render(job, { address: key, account, ...(background ? { background: true } : {}) });
        // Not awaited: the answer need not wait for the disk; close() does.
        void disk?.set(key, bytes, missingGlyphs);
        return { bytes, rendered: true, missingGlyphs };
      })();
      inflight.set(key, attempt);
      try {
        return await attempt;
      } finally {
        inflight.delete(key);
      }
    },
  };
}

interface RenderFrontOptions {
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
type RenderFront = Renderer &
  Required<Pick<Renderer, "cached">> & {
    /**
     * Fetches the images and computes the content address; nothing is rendered yet. `background`:
     * a render it needs waits below interactive ones (a batch's items).
     */
    prepare(request: RenderRequest, options?: PrepareOptions): Promise<PreparedRender>;
    readonly pngCache: PngCache | undefined;
  };

/** Everything before the backend. */
function createRenderFront(options: RenderFrontOptions): RenderFront {
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
