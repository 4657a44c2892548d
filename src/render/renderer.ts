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
 * Steps 1 and 2's memory cache are the "front" (render-front.ts); the persistent cache and the
 * pool are the "backend" it calls on a miss, built here.
 *
 * The route meters every success, cached or not, so a cache hit still counts as a generation.
 */
import { ConfigError, type Config } from "../config.ts";
import type { Logger } from "../logger.ts";
import { DiskCache } from "./caches/disk-cache.ts";
import type { FetchImageOptions } from "./images/fetch-image.ts";
import { createRenderFront, type ProducedImage, type RenderBackend, type RenderFront } from "./render-front.ts";
import type { RenderPoolOptions } from "./sandbox/pool-options.ts";
import { RenderPool } from "./sandbox/pool.ts";

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
