/**
 * The renderer `ogsmith serve` uses (the CLI and the benchmark baseline keep the in-process one
 * of engine.ts). Per request:
 *
 *   1. images: each image field is fetched (or its data: URI decoded) on the main thread,
 *      where I/O belongs, through fetchImage and the address guard, with a per-service LRU
 *      of fetched images; a failure is 422 IMAGE_FETCH_FAILED before any render work;
 *   2. cache: the content-addressed in-memory cache (png-cache.ts) answers a repeated
 *      request without rendering; behind it the persistent cache under OG_CACHE_DIR
 *      (disk-cache.ts) does the same across restarts; identical requests already reading
 *      the disk or rendering share that one attempt (single-flight); all report `cached: true`
 *      except the one that rendered;
 *   3. pool: otherwise the job (fields + data: URIs) goes to a render worker (pool.ts), or is
 *      refused with 503 SERVER_BUSY when the queue is full.
 *
 * The route meters every success, cached or not, so a cache hit still counts as a generation.
 */
import { ConfigError, type Config } from "../config.ts";
import type { Logger } from "../logger.ts";
import { CONTENT_TYPES } from "./encode.ts";
import { DiskCache } from "./disk-cache.ts";
import { createImageCache, fetchImage, type FetchedImage, type FetchImageOptions } from "./fetch-image.ts";
import { createPngCache, DEFAULT_PNG_CACHE_BYTES, renderCacheKey, type PngCache } from "./png-cache.ts";
import { RenderPool, type RenderPoolOptions } from "./pool.ts";
import type { RenderRequest, RenderResult, Renderer } from "./types.ts";

export interface ServiceRendererOptions {
  config: Pick<Config, "renderWorkers" | "allowPrivateNetworks" | "templatesDir" | "fontsDir"> & Partial<Pick<Config, "cacheDir" | "cacheMaxBytes">>;
  logger: Logger;
  /** Pool knobs beyond the config (queue length, GC cadence, job timeout); tests set these. */
  pool?: Partial<Omit<RenderPoolOptions, "workers" | "logger" | "templatesDir" | "fontsDir">>;
  /** Byte budget of the rendered-PNG cache; 0 disables it. */
  pngCacheBytes?: number;
  /** Extra fetch options (tests inject a resolver, transport or allow-list). */
  fetch?: Omit<FetchImageOptions, "allowPrivate">;
}

/** A request whose images are fetched and whose content address is known, not yet rendered. */
export interface PreparedRender {
  /** The content address (the cache key): SHA-256 hex of everything that decides the bytes. */
  contentAddress: string;
  /** The bytes, from the cache or a render (shared with identical requests in flight). */
  render(): Promise<RenderResult>;
}

export interface ServiceRenderer extends Renderer {
  /** Fetches the images and computes the content address; nothing is rendered yet. */
  prepare(request: RenderRequest): Promise<PreparedRender>;
  readonly pool: RenderPool;
  readonly pngCache: PngCache | undefined;
  readonly diskCache: DiskCache | undefined;
}

export function createServiceRenderer(options: ServiceRendererOptions): ServiceRenderer {
  const { config, logger } = options;
  const pool = new RenderPool({
    workers: config.renderWorkers,
    templatesDir: config.templatesDir,
    fontsDir: config.fontsDir,
    logger,
    ...options.pool,
  });
  let closed = false;
  pool.ready().catch((error) => {
    if (!closed) logger.error("render workers did not start", { error: error instanceof Error ? error.message : String(error) });
  });
  const cacheBytes = options.pngCacheBytes ?? DEFAULT_PNG_CACHE_BYTES;
  const pngCache = cacheBytes > 0 ? createPngCache(cacheBytes) : undefined;
  const fetchOptions: FetchImageOptions = {
    // One cache per service rather than the process-wide one, so two services in one process
    // (tests) with different address policies never serve each other's fetched images.
    cache: createImageCache(),
    ...options.fetch,
    allowPrivate: config.allowPrivateNetworks,
  };
  let diskCache: DiskCache | undefined;
  if (config.cacheDir) {
    try {
      diskCache = new DiskCache({ dir: config.cacheDir, maxBytes: config.cacheMaxBytes, logger });
    } catch (error) {
      void pool.close();
      throw new ConfigError(`OG_CACHE_DIR is not a writable directory: ${config.cacheDir} (${error instanceof Error ? error.message : String(error)})`);
    }
  }
  /** One attempt per key at a time: a disk read, then a render if the disk has nothing. */
  const inflight = new Map<string, Promise<{ bytes: Uint8Array; rendered: boolean }>>();
  // The image caches keep bytes only; a cached card with missing glyphs must still say so.
  // Bounded: only cards with missing glyphs are kept, oldest dropped first. (A disk-cache hit
  // after a restart does not know its count: the count lives in memory.)
  const missingByKey = new Map<string, number[]>();
  const rememberMissing = (key: string, missing: number[]) => {
    if (missing.length === 0) return;
    missingByKey.set(key, missing);
    if (missingByKey.size > 4096) missingByKey.delete(missingByKey.keys().next().value!);
  };

  async function loadImages(request: RenderRequest): Promise<Record<string, FetchedImage>> {
    const names = request.definition.fields.filter((f) => f.type === "image_url" && request.fields[f.name]).map((f) => f.name);
    const fetched = await Promise.all(names.map((name) => fetchImage(name, request.fields[name]!, fetchOptions)));
    return Object.fromEntries(names.map((name, i) => [name, fetched[i]!]));
  }

  async function prepare(request: RenderRequest): Promise<PreparedRender> {
    const started = performance.now();
    const { width, height } = request;
    const images = await loadImages(request);
    const key = renderCacheKey(request, Object.fromEntries(Object.entries(images).map(([name, image]) => [name, image.bytes])));
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
      contentAddress: key,
      async render() {
        const from = since;
        since = performance.now();
        const hit = pngCache?.get(key);
        if (hit) {
          diskCache?.used(key);
          return result(hit, true, from);
        }
        const shared = inflight.get(key);
        if (shared) return result((await shared).bytes, true, from);

        const attempt = (async () => {
          const stored = await diskCache?.get(key);
          if (stored) {
            pngCache?.set(key, stored);
            return { bytes: stored, rendered: false };
          }
          const { bytes, missingGlyphs } = await pool.render({
            template: request.template,
            theme: request.theme,
            fields: request.fields,
            images: Object.fromEntries(Object.entries(images).map(([name, image]) => [name, image.dataUri])),
            width,
            height,
            format: request.format,
            quality: request.quality,
          });
          pngCache?.set(key, bytes);
          rememberMissing(key, missingGlyphs);
          if (missingGlyphs.length > 0) {
            logger.warn("no font has these characters; drawn as boxes", { template: request.template, codePoints: formatCodePoints(missingGlyphs) });
          }
          // Not awaited: the answer need not wait for the disk; close() does.
          void diskCache?.set(key, bytes);
          return { bytes, rendered: true };
        })();
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
    pool,
    pngCache,
    diskCache,
    prepare,
    cached(request: RenderRequest): RenderResult | undefined {
      if (!pngCache) return undefined;
      const started = performance.now();
      if (request.definition.fields.some((f) => f.type === "image_url" && request.fields[f.name])) return undefined;
      const key = renderCacheKey(request, {});
      const hit = pngCache.get(key);
      if (!hit) return undefined;
      diskCache?.used(key);
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
    async close() {
      closed = true;
      await pool.close();
      await diskCache?.flush();
    },
  };
}

/** "U+0FFF U+1F8FF" — how missing glyphs are named in logs and the CLI's warning. */
export function formatCodePoints(codePoints: number[]): string {
  return codePoints.map((cp) => `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`).join(" ");
}
