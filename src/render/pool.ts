/**
 * The render worker pool: `OG_RENDER_WORKERS` Bun Workers, each running
 * render-worker.ts, and a bounded queue in front of them.
 *
 * - One job per worker at a time; at most `maxQueue` more wait (workers + maxQueue in all, so
 *   jobs arriving while workers are still starting are not refused). A job that finds it full
 *   fails at once with 503 SERVER_BUSY + `Retry-After: 1`: under overload callers get a fast
 *   answer they can retry instead of a latency that grows without bound.
 * - The main thread never renders, so HTTP handling (auth, usage, webhooks) stays responsive
 *   however many renders are queued.
 * - A worker that dies (uncaught error, native crash, `process.exit`) or overruns the job
 *   timeout is terminated and replaced; the job it held fails with 500 INTERNAL_ERROR, and the
 *   queue carries on with the replacement. If workers keep dying before they finish starting
 *   (a broken build), the pool stops respawning and fails jobs instead of looping.
 */
import { isCompiledBinary } from "../compiled.ts";
import { ApiError, apiErrorFrom, type PlainError } from "../errors.ts";
import type { Logger } from "../logger.ts";
import type { Theme } from "../templates/types.ts";
import type { ImageFormat } from "./encode.ts";
import type { RenderedImage, RenderTimings } from "./engine.ts";
import { layoutModule } from "./layout-wasm.ts";

/** What a worker needs to draw one image: images are already data: URIs. */
export interface RenderJob {
  template: string;
  theme: Theme;
  fields: Record<string, string | undefined>;
  images: Record<string, string | undefined>;
  width: number;
  height: number;
  /** Encoding happens in the worker too, off the HTTP thread. Default png. */
  format?: ImageFormat;
  /** 1–100 for jpeg and webp. */
  quality?: number;
}

// ---- The message protocol between the pool and render-worker.ts. ----
export interface WorkerInit {
  type: "init";
  templatesDir: string | undefined;
  fontsDir: string | undefined;
  /** Force a full GC every this many renders (0: never). */
  gcEvery: number;
  warmUp: boolean;
  /** satori's layout engine, compiled once by the main thread (layout-wasm.ts). */
  layout: WebAssembly.Module;
}
export type WorkerRequest = WorkerInit | { type: "render"; id: number; job: RenderJob };
export type WorkerReply =
  | { type: "ready"; templates: string[] }
  | { type: "init_failed"; message: string }
  | { type: "done"; id: number; bytes: Uint8Array; timings: RenderTimings; missingGlyphs: number[] }
  | { type: "failed"; id: number; error: PlainError };

export interface RenderPoolOptions {
  /** Worker threads (OG_RENDER_WORKERS). */
  workers: number;
  /** Jobs allowed to wait for a free worker; more is SERVER_BUSY. Default 4 × workers. */
  maxQueue?: number;
  templatesDir?: string;
  fontsDir?: string;
  logger: Logger;
  /** A full GC in each worker every N renders (a young-generation one after every render); 0: never. See render-worker.ts. */
  gcEvery?: number;
  /** A render running longer than this is killed with its worker (real time). */
  jobTimeoutMs?: number;
  /** Render one card in each worker at start-up so the first request is not slow. Default true. */
  warmUp?: boolean;
  /** The worker script; tests substitute a fixture that speaks the same protocol. */
  workerUrl?: string | URL;
  /** Compiles satori's layout engine for the workers (layout-wasm.ts); tests substitute a failing one. */
  layout?: () => Promise<WebAssembly.Module>;
}

export interface RenderPoolStats {
  workers: number;
  ready: number;
  busy: number;
  queued: number;
  maxQueue: number;
  rendered: number;
  /** Workers that died or were killed and replaced. */
  replaced: number;
}

interface Pending {
  job: RenderJob;
  resolve(result: RenderedImage): void;
  reject(error: unknown): void;
}

interface Slot {
  index: number;
  worker: Worker;
  ready: boolean;
  /** Set once the worker is gone (or being killed) so its late events are ignored. */
  dead: boolean;
  current?: { id: number; pending: Pending; timer: ReturnType<typeof setTimeout> };
}

/** Consecutive start-up failures after which the pool gives up respawning. */
const MAX_STARTUP_FAILURES = 3;

/**
 * Where the worker script is. From source it sits next to this file. In a `bun build
 * --compile` binary every entrypoint lands in the embedded filesystem relative to the common
 * root of the entrypoints (src/), and a relative specifier resolves from there; a URL built
 * from this (bundled) module's import.meta.url would point at the binary itself, or with
 * `--bytecode` at the build machine's source tree.
 */
export function defaultWorkerUrl(): string | URL {
  return isCompiledBinary ? "./render/render-worker.ts" : new URL("./render-worker.ts", import.meta.url);
}

export class RenderPool {
  readonly size: number;
  readonly maxQueue: number;
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private readonly options: Required<Pick<RenderPoolOptions, "gcEvery" | "jobTimeoutMs" | "warmUp">> & RenderPoolOptions;
  private nextId = 1;
  private rendered = 0;
  private replaced = 0;
  private startupFailures = 0;
  private broken: string | undefined;
  private closing = false;
  private readyWaiters: { resolve(): void; reject(error: Error): void }[] = [];

  constructor(options: RenderPoolOptions) {
    if (!Number.isInteger(options.workers) || options.workers < 1) throw new RangeError(`workers must be a positive integer, got ${options.workers}`);
    this.size = options.workers;
    this.maxQueue = options.maxQueue ?? 4 * options.workers;
    this.options = { gcEvery: 32, jobTimeoutMs: 30_000, warmUp: true, ...options };
    for (let i = 0; i < this.size; i++) this.slots.push(this.spawn(i));
  }

  /** Resolves once every worker has loaded fonts and templates; rejects if they cannot start. */
  ready(): Promise<void> {
    if (this.broken) return Promise.reject(new Error(this.broken));
    if (this.slots.every((s) => s.ready)) return Promise.resolve();
    return new Promise((resolve, reject) => this.readyWaiters.push({ resolve, reject }));
  }

  render(job: RenderJob): Promise<RenderedImage> {
    if (this.closing) return Promise.reject(busy("The renderer is shutting down; retry shortly."));
    if (this.broken) return Promise.reject(new ApiError("INTERNAL_ERROR", "Internal server error: the renderer is unavailable."));
    const idle = this.slots.find((s) => s.ready && !s.dead && !s.current);
    // Capacity is workers + maxQueue jobs in all, busy or waiting: a worker still starting up
    // (or being replaced) holds no job, so its share may wait in the queue instead.
    const outstanding = this.queue.length + this.slots.filter((s) => s.current).length;
    if (!idle && outstanding >= this.size + this.maxQueue) {
      return Promise.reject(busy("Too many images are being rendered right now; retry shortly."));
    }
    return new Promise<RenderedImage>((resolve, reject) => {
      const pending: Pending = { job, resolve, reject };
      if (idle) this.dispatch(idle, pending);
      else this.queue.push(pending);
    });
  }

  get stats(): RenderPoolStats {
    return {
      workers: this.size,
      ready: this.slots.filter((s) => s.ready && !s.dead).length,
      busy: this.slots.filter((s) => s.current).length,
      queued: this.queue.length,
      maxQueue: this.maxQueue,
      rendered: this.rendered,
      replaced: this.replaced,
    };
  }

  /** Terminates every worker. Jobs still waiting fail with SERVER_BUSY (retryable). */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    for (const pending of this.queue.splice(0)) pending.reject(busy("The renderer is shutting down; retry shortly."));
    for (const waiter of this.readyWaiters.splice(0)) waiter.reject(new Error("render pool closed"));
    await Promise.all(
      this.slots.map(async (slot) => {
        if (slot.current) {
          clearTimeout(slot.current.timer);
          slot.current.pending.reject(busy("The renderer is shutting down; retry shortly."));
          slot.current = undefined;
        }
        slot.dead = true;
        const closed = new Promise<void>((resolve) => slot.worker.addEventListener("close", () => resolve(), { once: true }));
        slot.worker.terminate();
        await Promise.race([closed, Bun.sleep(2_000)]);
      }),
    );
  }

  private spawn(index: number): Slot {
    const worker = new Worker(this.options.workerUrl ?? defaultWorkerUrl());
    const slot: Slot = { index, worker, ready: false, dead: false };
    worker.addEventListener("message", (event: MessageEvent<WorkerReply>) => this.onMessage(slot, event.data));
    worker.addEventListener("error", (event: ErrorEvent) => {
      this.options.logger.error("render worker error", { worker: index, error: event.message });
      // Bun ends a worker after an uncaught error anyway; make sure, and replace it.
      this.onDeath(slot, `uncaught error: ${event.message}`);
    });
    worker.addEventListener("close", (event: Event) => this.onDeath(slot, `exited with code ${(event as CloseEvent).code}`));
    const init: Omit<WorkerInit, "layout"> = {
      type: "init",
      templatesDir: this.options.templatesDir,
      fontsDir: this.options.fontsDir,
      gcEvery: this.options.gcEvery,
      warmUp: this.options.warmUp,
    };
    // Jobs go to a slot only once it is ready, so the init may follow when the module is compiled.
    (this.options.layout ?? layoutModule)().then(
      (layout) => {
        if (!slot.dead) worker.postMessage({ ...init, layout } satisfies WorkerInit);
      },
      // Only a broken build gets here (the file is embedded): count it as a failed start.
      (error: unknown) => this.onDeath(slot, `layout engine failed to compile: ${error instanceof Error ? error.message : String(error)}`),
    );
    return slot;
  }

  private onMessage(slot: Slot, message: WorkerReply): void {
    if (slot.dead) return;
    switch (message.type) {
      case "ready":
        slot.ready = true;
        this.startupFailures = 0;
        if (this.slots.every((s) => s.ready)) for (const waiter of this.readyWaiters.splice(0)) waiter.resolve();
        this.pump(slot);
        return;
      case "init_failed":
        this.options.logger.error("render worker failed to start", { worker: slot.index, error: message.message });
        this.onDeath(slot, `start-up failed: ${message.message}`);
        return;
      case "done":
      case "failed": {
        const current = slot.current;
        if (!current || current.id !== message.id) return;
        clearTimeout(current.timer);
        slot.current = undefined;
        if (message.type === "done") {
          this.rendered++;
          current.pending.resolve({ bytes: message.bytes, timings: message.timings, missingGlyphs: message.missingGlyphs ?? [] });
        } else if (message.error.code) {
          current.pending.reject(apiErrorFrom(message.error));
        } else {
          // Not ours: the HTTP error mapper logs it (with the request id) and answers a bare 500.
          const error = new Error(`render failed in worker ${slot.index}: ${message.error.message}`);
          if (message.error.stack) error.stack = `${error.message}\n${message.error.stack}`;
          current.pending.reject(error);
        }
        this.pump(slot);
        return;
      }
    }
  }

  private dispatch(slot: Slot, pending: Pending): void {
    const id = this.nextId++;
    const timer = setTimeout(() => {
      this.options.logger.error("render timed out; replacing its worker", { worker: slot.index, timeout_ms: this.options.jobTimeoutMs, template: pending.job.template });
      this.onDeath(slot, "render timed out");
    }, this.options.jobTimeoutMs);
    slot.current = { id, pending, timer };
    const message: WorkerRequest = { type: "render", id, job: pending.job };
    slot.worker.postMessage(message);
  }

  /** Gives an idle, ready worker the next queued job. */
  private pump(slot: Slot): void {
    if (slot.dead || !slot.ready || slot.current) return;
    const next = this.queue.shift();
    if (next) this.dispatch(slot, next);
  }

  /** A worker is gone (or is to go): end it, fail its job, replace it (or give up if it never starts). */
  private onDeath(slot: Slot, why: string): void {
    if (slot.dead) return;
    slot.dead = true;
    slot.worker.terminate();
    const current = slot.current;
    slot.current = undefined;
    if (current) {
      clearTimeout(current.timer);
      this.options.logger.error("render worker died during a render", { worker: slot.index, why, template: current.pending.job.template });
      current.pending.reject(new ApiError("INTERNAL_ERROR", "Internal server error: the renderer failed while drawing this image."));
    }
    if (this.closing) return;
    // Disabled already (a start that was under way failed too): said and done once.
    if (this.broken) return;
    this.replaced++;
    if (!slot.ready && ++this.startupFailures >= MAX_STARTUP_FAILURES) {
      this.broken = `render workers cannot start (${why})`;
      this.options.logger.error("render pool disabled: workers keep failing to start", { why });
      for (const pending of this.queue.splice(0)) pending.reject(new ApiError("INTERNAL_ERROR", "Internal server error: the renderer is unavailable."));
      for (const waiter of this.readyWaiters.splice(0)) waiter.reject(new Error(this.broken));
      return;
    }
    const replacement = this.spawn(slot.index);
    this.slots[slot.index] = replacement;
  }
}

const busy = (message: string) => new ApiError("SERVER_BUSY", message).retryAfter(1);
