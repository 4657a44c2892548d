/**
 * The render worker pool: `OG_RENDER_WORKERS` Bun Workers, each running
 * render-worker.ts, and a queue in front of them.
 *
 * - One job per worker at a time. A job that finds no free worker waits while its expected
 *   wait to start (jobs queued × recent render time ÷ workers) is within `maxWaitMs` (10 s);
 *   beyond that it fails at once with 503 SERVER_BUSY and a `Retry-After` of that estimate.
 *   A burst two workers can finish in a few seconds is served, not refused; under real overload
 *   callers get a fast answer that says when to come back, not a latency that grows without
 *   bound. Memory is bounded too: at most `maxQueue` jobs and `maxQueuedBytes` of their images
 *   and definitions wait.
 * - An account's own templates (data the account wrote, so of any cost the bounds allow) run on
 *   at most half of the ready workers per account at a time: its other jobs wait, and other
 *   accounts' jobs are served by the rest. Such a render is stopped after `accountTemplateTimeoutMs`
 *   (5 s): its worker is terminated and replaced, and the job fails with 422 RENDER_FAILED.
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
import type { RenderedImage, RenderEngine, RenderTimings } from "./engine.ts";
import { layoutModule } from "./layout-wasm.ts";
import type { RenderRequest } from "./types.ts";

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
  /**
   * An account's own template: the worker builds its definition from this plain-JSON spec
   * (`template` is then the spec's id). `version` 0 is an unsaved definition (a preview).
   */
  accountTemplate?: RenderRequest["accountTemplate"];
  /** Draw it as a preview: a small PREVIEW mark in the bottom-right corner (preview.ts). */
  preview?: boolean;
}

// ---- The message protocol between the pool and render-worker.ts. ----
export interface WorkerInit {
  type: "init";
  templatesDir: string | undefined;
  fontsDir: string | undefined;
  /** Force a full GC every this many renders (0: never). */
  gcEvery: number;
  warmUp: boolean;
  /** What draws the cards (OG_RENDER_ENGINE); absent: satori. */
  engine?: RenderEngine;
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
  /** A job waits for a free worker while its expected wait is at most this; beyond: SERVER_BUSY. Default 10 s. */
  maxWaitMs?: number;
  /** At most this many jobs wait, whatever the estimate says (memory). Default 256 × workers. */
  maxQueue?: number;
  /** At most this many bytes of images (data: URIs) and definitions wait (memory). Default 256 MiB. */
  maxQueuedBytes?: number;
  /** What a render is assumed to take before any has finished. Default 100 ms. */
  initialRenderMs?: number;
  /** How many of one account's own templates may render at once. Default half the workers (at least one). */
  perAccountLimit?: number;
  /** An account template's render running longer than this is stopped: 422 RENDER_FAILED. Default 5 s. */
  accountTemplateTimeoutMs?: number;
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
  /** What draws the cards (OG_RENDER_ENGINE). Default satori. */
  engine?: RenderEngine;
  /** The timers the bounds above run on: real time; tests substitute timers they fire themselves. */
  timers?: PoolTimers;
}

/**
 * Where the pool's bounds (the job timeouts, the grace of a stopped render) get their timers.
 * A test that fires them by hand proves what a bound does without racing real renders against it
 * on a loaded machine.
 */
export interface PoolTimers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realTimers: PoolTimers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export interface RenderPoolStats {
  workers: number;
  ready: number;
  busy: number;
  queued: number;
  maxQueue: number;
  /** Recent render time (moving average, ms) the wait estimate uses. */
  recentRenderMs: number;
  /** What a job arriving now would expect to wait for a worker (ms). */
  expectedWaitMs: number;
  rendered: number;
  /** Workers that died or were killed and replaced. */
  replaced: number;
}

interface Pending {
  job: RenderJob;
  /** Whose account template it is (at most `perAccountLimit` of theirs render at once); none for operator templates. */
  account: string | undefined;
  /** What it holds in memory while it waits (its images and definition). */
  bytes: number;
  resolve(result: RenderedImage): void;
  reject(error: unknown): void;
}

interface Slot {
  index: number;
  worker: Worker;
  ready: boolean;
  /** Set once the worker is gone (or being killed) so its late events are ignored. */
  dead: boolean;
  current?: { id: number; pending: Pending; timer: unknown; started: number };
}

/** The weight of the latest render in the moving average of render times. */
const RECENT_WEIGHT = 0.2;

/** At most this long a stopped render's thread counts against its account's share (see holdShareUntilGone). */
const STOPPED_THREAD_HOLD_MS = 10 * 60_000;

/** How long a stopped render's thread may take to end before it counts as stuck in native code. */
const STOPPED_GRACE_MS = 1_000;

/** While stopped renders hold an account's whole share, its new renders are refused with at least this Retry-After. */
const STOPPED_RETRY_MS = 20_000;

/** Accounts whose recent render time is kept. */
const MAX_ACCOUNTS_REMEMBERED = 1024;

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
  readonly maxWaitMs: number;
  /** How many of one account's own templates render at once: half the workers, at least one. */
  readonly perAccountLimit: number;
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private queuedBytes = 0;
  /** Account templates rendering now, by account (stopped renders whose thread runs on included). */
  private readonly running = new Map<string, number>();
  /** Stopped renders whose thread runs on past the grace period, by account. */
  private readonly stopped = new Map<string, number>();
  private recentRenderMs: number;
  /**
   * Recent render time of each account's own templates, stopped renders included (they held a
   * worker for the whole bound): its own queue is estimated with it, so one account's slow
   * template makes its own backlog short, not everyone's. Bounded, least recently used out.
   */
  private readonly accountRenderMs = new Map<string, number>();
  private readonly options: Required<Pick<RenderPoolOptions, "gcEvery" | "jobTimeoutMs" | "warmUp" | "maxQueuedBytes" | "accountTemplateTimeoutMs">> & RenderPoolOptions;
  private readonly timers: PoolTimers;
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
    this.maxQueue = options.maxQueue ?? 256 * options.workers;
    this.maxWaitMs = options.maxWaitMs ?? 10_000;
    this.perAccountLimit = options.perAccountLimit ?? Math.max(1, Math.floor(options.workers / 2));
    this.recentRenderMs = options.initialRenderMs ?? 100;
    this.options = { gcEvery: 32, jobTimeoutMs: 30_000, warmUp: true, maxQueuedBytes: 256 * 1024 * 1024, accountTemplateTimeoutMs: 5_000, ...options };
    this.timers = options.timers ?? realTimers;
    for (let i = 0; i < this.size; i++) this.slots.push(this.spawn(i));
  }

  /** Resolves once every worker has loaded fonts and templates; rejects if they cannot start. */
  ready(): Promise<void> {
    if (this.broken) return Promise.reject(new Error(this.broken));
    if (this.slots.every((s) => s.ready)) return Promise.resolve();
    return new Promise((resolve, reject) => this.readyWaiters.push({ resolve, reject }));
  }

  render(job: RenderJob): Promise<RenderedImage> {
    if (this.closing) return Promise.reject(busy("The renderer is shutting down; retry shortly.", 1));
    if (this.broken) return Promise.reject(new ApiError("INTERNAL_ERROR", "Internal server error: the renderer is unavailable."));
    const pending: Omit<Pending, "resolve" | "reject"> = { job, account: job.accountTemplate?.accountId, bytes: jobBytes(job) };
    const idle = this.mayStart(pending) ? this.slots.find((s) => s.ready && !s.dead && !s.current) : undefined;
    if (!idle) {
      const wait = this.expectedWaitMs(pending.account);
      if (wait > this.maxWaitMs || this.queue.length >= this.maxQueue || this.queuedBytes + pending.bytes > this.options.maxQueuedBytes) {
        return Promise.reject(busy("Too many images are being rendered right now; retry after the time in Retry-After.", Math.max(1, Math.ceil(wait / 1000))));
      }
    }
    return new Promise<RenderedImage>((resolve, reject) => {
      const entry: Pending = { ...pending, resolve, reject };
      if (idle) this.dispatch(idle, entry);
      else {
        this.queue.push(entry);
        this.queuedBytes += entry.bytes;
      }
    });
  }

  /**
   * How long a job arriving now would wait for a worker: the jobs already waiting, each taking
   * the recent render time, spread over every worker. A job of an account's own template waits
   * at least for that account's queued jobs on its share of the workers, so one account's
   * backlog stays its own: it reaches the bound long before the pool-wide estimate does.
   */
  expectedWaitMs(account?: string): number {
    const everyone = (this.queue.length * this.recentRenderMs) / this.size;
    if (account === undefined) return Math.round(everyone);
    // Its share held by stopped renders still running: nothing of its can start for a while.
    if ((this.stopped.get(account) ?? 0) >= this.perAccountLimit) return Math.max(everyone, this.maxWaitMs + STOPPED_RETRY_MS);
    let own = 0;
    for (const pending of this.queue) if (pending.account === account) own++;
    const theirs = this.accountRenderMs.get(account) ?? this.recentRenderMs;
    return Math.round(Math.max(everyone, (own * theirs) / this.perAccountLimit));
  }

  private learnAccount(account: string | undefined, elapsedMs: number): void {
    if (account === undefined) return;
    const before = this.accountRenderMs.get(account);
    this.accountRenderMs.delete(account);
    this.accountRenderMs.set(account, before === undefined ? elapsedMs : before + RECENT_WEIGHT * (elapsedMs - before));
    if (this.accountRenderMs.size > MAX_ACCOUNTS_REMEMBERED) this.accountRenderMs.delete(this.accountRenderMs.keys().next().value!);
  }

  get stats(): RenderPoolStats {
    return {
      workers: this.size,
      ready: this.slots.filter((s) => s.ready && !s.dead).length,
      busy: this.slots.filter((s) => s.current).length,
      queued: this.queue.length,
      maxQueue: this.maxQueue,
      recentRenderMs: Math.round(this.recentRenderMs),
      expectedWaitMs: this.expectedWaitMs(),
      rendered: this.rendered,
      replaced: this.replaced,
    };
  }

  /** Terminates every worker. Jobs still waiting fail with SERVER_BUSY (retryable). */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    this.queuedBytes = 0;
    for (const pending of this.queue.splice(0)) pending.reject(busy("The renderer is shutting down; retry shortly.", 1));
    for (const waiter of this.readyWaiters.splice(0)) waiter.reject(new Error("render pool closed"));
    await Promise.all(
      this.slots.map(async (slot) => {
        if (slot.current) {
          this.finish(slot);
          slot.current.pending.reject(busy("The renderer is shutting down; retry shortly.", 1));
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
      engine: this.options.engine,
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
        // One more ready worker may give an account its share back: any free worker may take its job.
        this.pumpAll();
        return;
      case "init_failed":
        this.options.logger.error("render worker failed to start", { worker: slot.index, error: message.message });
        this.onDeath(slot, `start-up failed: ${message.message}`);
        return;
      case "done":
      case "failed": {
        const current = slot.current;
        if (!current || current.id !== message.id) return;
        this.finish(slot);
        slot.current = undefined;
        if (message.type === "done") {
          this.rendered++;
          // Only successes teach the estimate: a refusal inside the worker took no drawing.
          const elapsed = performance.now() - current.started;
          this.recentRenderMs += RECENT_WEIGHT * (elapsed - this.recentRenderMs);
          this.learnAccount(current.pending.account, elapsed);
          current.pending.resolve({ bytes: message.bytes, timings: message.timings, missingGlyphs: message.missingGlyphs ?? [] });
        } else if (message.error.code) {
          current.pending.reject(apiErrorFrom(message.error));
        } else {
          // Not ours: the HTTP error mapper logs it (with the request id) and answers a bare 500.
          const error = new Error(`render failed in worker ${slot.index}: ${message.error.message}`);
          if (message.error.stack) error.stack = `${error.message}\n${message.error.stack}`;
          current.pending.reject(error);
        }
        this.pumpAll();
        return;
      }
    }
  }

  /**
   * An account's own template may start only while that account holds fewer than half of the
   * workers that are ready. Half of the ready ones, not of all: while a worker stopped by the
   * 5 s bound is being replaced, the one left is kept for the other accounts instead of going to
   * the account whose render was just stopped.
   */
  private mayStart(pending: Pick<Pending, "account">): boolean {
    if (pending.account === undefined) return true;
    return (this.running.get(pending.account) ?? 0) < this.shareNow();
  }

  private shareNow(): number {
    if (this.options.perAccountLimit !== undefined || this.size === 1) return this.perAccountLimit;
    const ready = this.slots.filter((s) => s.ready && !s.dead).length;
    return Math.min(this.perAccountLimit, Math.floor(ready / 2));
  }

  private dispatch(slot: Slot, pending: Pending): void {
    const id = this.nextId++;
    const { job, account } = pending;
    const tenant = job.accountTemplate !== undefined;
    const timeoutMs = tenant ? Math.min(this.options.accountTemplateTimeoutMs, this.options.jobTimeoutMs) : this.options.jobTimeoutMs;
    const timer = this.timers.setTimeout(() => {
      if (tenant) {
        // Tenant data made the renderer spin: the account hears why, the operator sees which template.
        this.options.logger.warn("account template render took too long; stopped and its worker replaced", { worker: slot.index, timeout_ms: timeoutMs, template: job.template, account });
        this.learnAccount(account, timeoutMs);
        this.holdShareUntilGone(slot.worker, account);
        this.onDeath(slot, "render timed out", new ApiError("RENDER_FAILED", `The template took longer than ${timeoutMs / 1000} s to render and was stopped. Simplify it (fewer elements, smaller blurs and shadows) and try again.`));
      } else {
        this.options.logger.error("render timed out; replacing its worker", { worker: slot.index, timeout_ms: timeoutMs, template: job.template });
        this.onDeath(slot, "render timed out");
      }
    }, timeoutMs);
    slot.current = { id, pending, timer, started: performance.now() };
    if (account !== undefined) this.running.set(account, (this.running.get(account) ?? 0) + 1);
    const message: WorkerRequest = { type: "render", id, job };
    slot.worker.postMessage(message);
  }

  /**
   * A stopped render's thread may go on running: terminating a worker interrupts JavaScript and
   * wasm (satori) at once, but not native code (resvg rasterizing), which runs to its end — over a
   * minute for the most expensive templates the bounds allow — on a core of its own. Until the
   * thread is really gone (its `close` event), it keeps counting against its account's share, so
   * an account can never have more threads busy than its share, stopped ones included. (A
   * replacement worker starts at once: the other accounts keep every worker.)
   */
  private holdShareUntilGone(worker: Worker, account: string | undefined): void {
    if (account === undefined) return;
    this.running.set(account, (this.running.get(account) ?? 0) + 1);
    let released = false;
    // A thread stopped in JavaScript ends within moments; one still there after a second is
    // stuck in native code, and its account's new renders are refused rather than left waiting.
    let lingering = false;
    const linger = this.timers.setTimeout(() => {
      lingering = true;
      this.stopped.set(account, (this.stopped.get(account) ?? 0) + 1);
      if ((this.stopped.get(account) ?? 0) < this.perAccountLimit) return;
      // Its waiting renders would wait on that thread too, for minutes maybe: answer them now.
      const retryAfter = Math.ceil((this.maxWaitMs + STOPPED_RETRY_MS) / 1000);
      for (let i = this.queue.length - 1; i >= 0; i--) {
        const pending = this.queue[i]!;
        if (pending.account !== account) continue;
        this.queue.splice(i, 1);
        this.queuedBytes -= pending.bytes;
        pending.reject(busy("A render of this account's was stopped and is still winding down; retry after the time in Retry-After.", retryAfter));
      }
    }, STOPPED_GRACE_MS);
    const release = () => {
      if (released) return;
      released = true;
      clearTimeout(fallback);
      this.timers.clearTimeout(linger);
      if (lingering) {
        const stoppedLeft = (this.stopped.get(account) ?? 1) - 1;
        if (stoppedLeft > 0) this.stopped.set(account, stoppedLeft);
        else this.stopped.delete(account);
      }
      const left = (this.running.get(account) ?? 1) - 1;
      if (left > 0) this.running.set(account, left);
      else this.running.delete(account);
      if (!this.closing) this.pumpAll();
    };
    worker.addEventListener("close", release, { once: true });
    // Should the runtime never report the end, the share comes back after a generous while.
    const fallback = setTimeout(release, STOPPED_THREAD_HOLD_MS);
    fallback.unref?.();
  }

  /** The slot's job is over (answered, failed, or its worker gone): stop its timer, free its account's share. */
  private finish(slot: Slot): void {
    const current = slot.current;
    if (!current) return;
    this.timers.clearTimeout(current.timer);
    const account = current.pending.account;
    if (account === undefined) return;
    const left = (this.running.get(account) ?? 1) - 1;
    if (left > 0) this.running.set(account, left);
    else this.running.delete(account);
  }

  /**
   * Gives an idle, ready worker the first queued job allowed to start: in arrival order, except
   * that an account at its share of workers is passed over until one of its renders ends.
   */
  private pump(slot: Slot): void {
    if (slot.dead || !slot.ready || slot.current) return;
    const index = this.queue.findIndex((pending) => this.mayStart(pending));
    if (index < 0) return;
    const [next] = this.queue.splice(index, 1);
    this.queuedBytes -= next!.bytes;
    this.dispatch(slot, next!);
  }

  /** A job ended: its worker is free, and its account may have room again for a job another worker can take. */
  private pumpAll(): void {
    for (const slot of this.slots) this.pump(slot);
  }

  /** A worker is gone (or is to go): end it, fail its job, replace it (or give up if it never starts). */
  private onDeath(slot: Slot, why: string, failure?: ApiError): void {
    if (slot.dead) return;
    slot.dead = true;
    slot.worker.terminate();
    const current = slot.current;
    this.finish(slot);
    slot.current = undefined;
    if (current) {
      if (!failure) this.options.logger.error("render worker died during a render", { worker: slot.index, why, template: current.pending.job.template });
      current.pending.reject(failure ?? new ApiError("INTERNAL_ERROR", "Internal server error: the renderer failed while drawing this image."));
      // Its account's share is free again: another worker may take one of its queued jobs.
      this.pumpAll();
    }
    if (this.closing) return;
    // Disabled already (a start that was under way failed too): said and done once.
    if (this.broken) return;
    this.replaced++;
    if (!slot.ready && ++this.startupFailures >= MAX_STARTUP_FAILURES) {
      this.broken = `render workers cannot start (${why})`;
      this.options.logger.error("render pool disabled: workers keep failing to start", { why });
      this.queuedBytes = 0;
      for (const pending of this.queue.splice(0)) pending.reject(new ApiError("INTERNAL_ERROR", "Internal server error: the renderer is unavailable."));
      for (const waiter of this.readyWaiters.splice(0)) waiter.reject(new Error(this.broken));
      return;
    }
    const replacement = this.spawn(slot.index);
    this.slots[slot.index] = replacement;
  }
}

const busy = (message: string, retryAfterSeconds: number) => new ApiError("SERVER_BUSY", message).retryAfter(retryAfterSeconds);

/** Roughly what a waiting job holds: its images (data: URIs, one byte a character) and its definition. */
function jobBytes(job: RenderJob): number {
  let bytes = 1024;
  for (const uri of Object.values(job.images)) bytes += uri?.length ?? 0;
  for (const value of Object.values(job.fields)) bytes += value?.length ?? 0;
  const spec = job.accountTemplate?.spec;
  if (spec) bytes += spec.html.length + JSON.stringify(spec.sample ?? {}).length;
  return bytes;
}
