/**
 * The renderer `ogsmith serve` uses (the CLI and the benchmark baseline keep the in-process one
 * of engine.ts). Per request:
 *
 *   1. images: each image field is fetched (or its data: URI decoded) on the main thread,
 *      where I/O belongs, through fetchImage and the address guard, with a per-service LRU
 *      of fetched images; a failure is 422 IMAGE_FETCH_FAILED before any render work;
 *   2. cache: the content-addressed PNG cache (png-cache.ts) answers a repeated request
 *      without rendering, and identical requests already rendering share that one render
 *      (single-flight); both report `cached: true`;
 *   3. pool: otherwise the job (fields + data: URIs) goes to a render worker (pool.ts), or is
 *      refused with 503 SERVER_BUSY when the queue is full.
 *
 * The route meters every success, cached or not, so a cache hit still counts as a generation.
 */
import type { Config } from "../config.ts";
import { ApiError } from "../errors.ts";
import type { Logger } from "../logger.ts";
import type { TemplateDefinition } from "../templates/types.ts";
import { CONTENT_TYPES } from "./encode.ts";
import type { RenderedImage } from "./engine.ts";
import { createImageCache, fetchImage, type FetchedImage, type FetchImageOptions } from "./fetch-image.ts";
import { createPngCache, DEFAULT_PNG_CACHE_BYTES, renderCacheKey, type PngCache } from "./png-cache.ts";
import { RenderPool, type RenderPoolOptions } from "./pool.ts";
import { MAX_SIZE, MIN_SIZE } from "./request.ts";
import type { RenderRequest, RenderResult, Renderer } from "./types.ts";

export interface ServiceRendererOptions {
  templates: { get(id: string): TemplateDefinition | undefined };
  config: Pick<Config, "renderWorkers" | "allowPrivateNetworks" | "templatesDir" | "fontsDir">;
  logger: Logger;
  /** Pool knobs beyond the config (queue length, GC cadence, job timeout); tests set these. */
  pool?: Partial<Omit<RenderPoolOptions, "workers" | "logger" | "templatesDir" | "fontsDir">>;
  /** Byte budget of the rendered-PNG cache; 0 disables it. */
  pngCacheBytes?: number;
  /** Extra fetch options (tests inject a resolver, transport or allow-list). */
  fetch?: Omit<FetchImageOptions, "allowPrivate">;
}

export interface ServiceRenderer extends Renderer {
  readonly pool: RenderPool;
  readonly pngCache: PngCache | undefined;
}

export function createServiceRenderer(options: ServiceRendererOptions): ServiceRenderer {
  const { templates, config, logger } = options;
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
  const inflight = new Map<string, Promise<RenderedImage>>();

  async function loadImages(request: RenderRequest, template: TemplateDefinition): Promise<Record<string, FetchedImage>> {
    const names = template.fields.filter((f) => f.type === "image_url" && request.fields[f.name]).map((f) => f.name);
    const fetched = await Promise.all(names.map((name) => fetchImage(name, request.fields[name]!, fetchOptions)));
    return Object.fromEntries(names.map((name, i) => [name, fetched[i]!]));
  }

  return {
    pool,
    pngCache,
    async render(request: RenderRequest): Promise<RenderResult> {
      const started = performance.now();
      const template = templates.get(request.template);
      if (!template) throw new ApiError("UNKNOWN_TEMPLATE", `Unknown template: ${request.template}.`);
      const { width, height } = request;
      if (!isValidSize(width) || !isValidSize(height)) {
        throw new RangeError(`width and height must be integers in ${MIN_SIZE}–${MAX_SIZE}, got ${width}×${height}`);
      }

      const images = await loadImages(request, template);
      const key = renderCacheKey(request, Object.fromEntries(Object.entries(images).map(([name, image]) => [name, image.bytes])));
      const result = (bytes: Uint8Array, cached: boolean): RenderResult => ({
        bytes,
        contentType: CONTENT_TYPES[request.format],
        width,
        height,
        generationTimeMs: Math.round(performance.now() - started),
        contentAddress: key,
        cached,
      });

      const hit = pngCache?.get(key);
      if (hit) return result(hit, true);
      const shared = inflight.get(key);
      if (shared) return result((await shared).bytes, true);

      const rendering = pool.render({
        template: request.template,
        theme: request.theme,
        fields: request.fields,
        images: Object.fromEntries(Object.entries(images).map(([name, image]) => [name, image.dataUri])),
        width,
        height,
        format: request.format,
        quality: request.quality,
      });
      inflight.set(key, rendering);
      try {
        const { bytes } = await rendering;
        pngCache?.set(key, bytes);
        return result(bytes, false);
      } finally {
        inflight.delete(key);
      }
    },
    close() {
      closed = true;
      return pool.close();
    },
  };
}

function isValidSize(n: number): boolean {
  return Number.isInteger(n) && n >= MIN_SIZE && n <= MAX_SIZE;
}
