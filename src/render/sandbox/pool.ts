/**
 * The render pool: `OG_RENDER_WORKERS` render processes (process-main.ts), children of
 * the serving process, and a queue in front of them. The serving process never runs satori,
 * resvg or takumi: a render is native code working on what a tenant sent, and only a process can
 * be stopped in the middle of native code.
 *
 * - One job per process at a time. A job that finds no free process waits while its expected
 *   wait to start (jobs queued × recent render time ÷ processes) is within `maxWaitMs` (10 s);
 *   beyond that it fails at once with 503 SERVER_BUSY and a `Retry-After` of that estimate.
 *   Memory is bounded too: at most `maxQueue` jobs and `maxQueuedBytes` of their images and
 *   definitions wait. Background jobs (batches) wait in a lane of their own.
 * - An account's own templates run on at most half of the ready processes per account at a
 *   time (fair-share.ts): its other jobs wait, and other accounts' jobs are served by the rest.
 * - The deadline (`timeoutMs`, OG_RENDER_TIMEOUT_MS): a render still running then is killed
 *   with its process (SIGKILL) and answers 422 RENDER_FAILED; a fresh process takes the place.
 *   The memory bound (memory-watch.ts) and a crash cost the render they hit and nothing else
 *   (render-processes.ts, which starts, replaces and ends the processes).
 * - Repeat offenders (offenders.ts): a killed or crashed render's content address is
 *   refused at once for 10 minutes, and an account with two of them in 10 minutes gets one
 *   process at a time for the next 10.
 *
 * This file admits jobs, hands them to processes and answers them; what waits is in
 * render-queue.ts, the options and figures in pool-options.ts.
 */
import { ApiError, apiErrorFrom } from "../../errors.ts";
import type { RenderedImage } from "../engines/engine.ts";
import { FairShare } from "./fair-share.ts";
import { RepeatOffenders } from "./offenders.ts";
import { realTimers, type PoolTimers, type RenderJobContext, type RenderPoolOptions, type RenderPoolStats, type KillReason } from "./pool-options.ts";
import type { RenderJob } from "./protocol.ts";
import { RenderProcesses, type JobReply } from "./render-processes.ts";
import { jobBytes, RenderQueue } from "./render-queue.ts";
import type { Pending, Slot } from "./render-slot.ts";
import { residentMemoryReader } from "./resident-memory.ts";

export type { RenderJob } from "./protocol.ts";

const MiB = 1024 * 1024;

export class RenderPool {
  readonly size: number;
  readonly maxQueue: number;
  readonly maxWaitMs: number;
  readonly timeoutMs: number;
  readonly memoryBytes: number;
  /** How many of one account's own templates render at once: half the processes, at least one. */
  readonly perAccountLimit: number;
  /** How many background render processes may run at once. */
  readonly backgroundSize: number;
  private readonly waiting = new RenderQueue();
  private readonly options: Required<Pick<RenderPoolOptions, "gcEvery" | "warmUp" | "maxQueuedBytes" | "memoryWatchMs">> & RenderPoolOptions;
  private readonly timers: PoolTimers;
  private readonly offenders: RepeatOffenders;
  private readonly shares: FairShare;
  private readonly processes: RenderProcesses;
  private nextId = 1;
  private rendered = 0;
  private readonly restarts: Record<KillReason, number> = { deadline: 0, memory: 0, crash: 0 };

  constructor(options: RenderPoolOptions) {
    if (!Number.isInteger(options.workers) || options.workers < 1) throw new RangeError(`workers must be a positive integer, got ${options.workers}`);
    this.size = options.workers;
    this.maxQueue = options.maxQueue ?? 256 * options.workers;
    this.maxWaitMs = options.maxWaitMs ?? 10_000;
    this.timeoutMs = options.timeoutMs ?? 5_000;
    this.memoryBytes = options.memoryBytes ?? 1024 * MiB;
    this.perAccountLimit = options.perAccountLimit ?? Math.max(1, Math.floor(options.workers / 2));
    this.backgroundSize = options.backgroundWorkers ?? Math.max(1, Math.floor(options.workers / 2));
    this.options = { gcEvery: 32, warmUp: true, maxQueuedBytes: 256 * MiB, memoryWatchMs: 100, ...options };
    this.timers = options.timers ?? realTimers;
    this.offenders = new RepeatOffenders({ now: options.now ?? Date.now });
    this.processes = new RenderProcesses(
      {
        ...this.options,
        timeoutMs: this.timeoutMs,
        memoryBytes: this.memoryBytes,
        backgroundSize: this.backgroundSize,
        readMemory: options.readMemory ?? residentMemoryReader(),
      },
      {
        // One more ready process may give an account its share back: any free one may take its job.
        ready: () => this.pumpAll(),
        reply: (slot, message) => this.onReply(slot, message),
        lost: (slot, reason, failure) => this.settleLost(slot, reason, failure),
        broken: () => this.failWaiting(unavailable),
        backgroundWaiting: () => this.waiting.background.length > 0,
      },
    );
    this.shares = new FairShare({
      size: this.size,
      perAccountLimit: this.perAccountLimit,
      limitGiven: options.perAccountLimit !== undefined,
      initialRenderMs: options.initialRenderMs ?? 100,
      offenders: this.offenders,
      readyProcesses: () => this.processes.interactive.filter((s) => s.ready && !s.dead).length,
    });
    if (!options.startLater) this.start();
  }

  /**
   * Starts the render processes (once). With `startLater` the server calls this once it
   * listens, so that their start-up does not compete with its own; the first render or
   * `ready()` starts them too.
   */
  start(): void {
    this.processes.start();
  }

  /** Resolves once every process has loaded fonts and templates; rejects if they cannot start. */
  ready(): Promise<void> {
    this.start();
    return this.processes.whenReady();
  }

  /** False once processes have kept failing to start (a broken build): /readyz says so. */
  get available(): boolean {
    return !this.processes.broken && !this.processes.closing;
  }

  render(job: RenderJob, context: RenderJobContext = {}): Promise<RenderedImage> {
    if (this.processes.closing) return Promise.reject(shuttingDown());
    if (this.processes.broken) return Promise.reject(unavailable());
    const refusedFor = this.offenders.refusedFor(context.address);
    this.start();
    if (refusedFor > 0) {
      return Promise.reject(
        new ApiError(
          "RENDER_FAILED",
          `This image was stopped while rendering less than ${Math.round(this.offenders.windowMs / 60_000)} minutes ago (it ran past the render deadline or memory bound, or crashed the renderer); it is refused for another ${Math.ceil(refusedFor / 1000)} s. Simplify the template or its images.`,
        ),
      );
    }
    const tenant = job.accountTemplate?.accountId;
    const pending: Omit<Pending, "resolve" | "reject"> = { job, tenant, account: context.account ?? tenant, address: context.address, bytes: jobBytes(job) };
    if (context.background) return this.renderInBackground(pending);
    const idle = this.shares.mayStart(pending) ? this.processes.interactive.find((s) => s.ready && !s.dead && !s.current) : undefined;
    if (!idle) {
      const wait = this.expectedWaitMs(this.shares.heldAccount(pending));
      if (wait > this.maxWaitMs || this.waiting.interactive.length >= this.maxQueue || this.waiting.bytes + pending.bytes > this.options.maxQueuedBytes) {
        return Promise.reject(busy("Too many images are being rendered right now; retry after the time in Retry-After.", Math.max(1, Math.ceil(wait / 1000))));
      }
    }
    return new Promise<RenderedImage>((resolve, reject) => {
      const entry: Pending = { ...pending, resolve, reject };
      if (idle) this.dispatch(idle, entry);
      else this.waiting.add(entry, "interactive");
    });
  }

  private renderInBackground(pending: Omit<Pending, "resolve" | "reject">): Promise<RenderedImage> {
    const idle = this.shares.mayStart(pending) ? this.processes.background.find((s) => s.ready && !s.dead && !s.current) : undefined;
    if (!idle && this.waiting.background.length >= this.maxQueue) return Promise.reject(busy("Too many background renders are waiting; retry shortly.", 1));
    return new Promise<RenderedImage>((resolve, reject) => {
      const entry: Pending = { ...pending, resolve, reject };
      if (idle) this.dispatch(idle, entry);
      else {
        this.waiting.add(entry, "background");
        this.processes.growBackground(this.waiting.background.length);
      }
    });
  }

  /** How long a job arriving now would wait for a process (fair-share.ts), for one held to that account's share if named. */
  expectedWaitMs(account?: string): number {
    return this.shares.expectedWaitMs(this.waiting.interactive, account);
  }

  get stats(): RenderPoolStats {
    return {
      workers: this.size,
      alive: this.processes.interactive.filter((s) => !s.dead).length + this.processes.background.filter((s) => !s.dead).length,
      ready: this.processes.interactive.filter((s) => s.ready && !s.dead).length,
      busy: this.processes.interactive.filter((s) => s.current).length,
      queued: this.waiting.interactive.length,
      background: this.waiting.background.length,
      maxQueue: this.maxQueue,
      recentRenderMs: Math.round(this.shares.recentRenderMs),
      expectedWaitMs: this.expectedWaitMs(),
      rendered: this.rendered,
      replaced: this.processes.replaced,
      restarts: { ...this.restarts },
    };
  }

  /** The render processes' ids, alive ones only (tests and the bench measure them). */
  get pids(): number[] {
    return this.processes.pids;
  }

  /** Ends every render process. Jobs still waiting fail with SERVER_BUSY (retryable). */
  async close(): Promise<void> {
    if (this.processes.closing) return;
    await this.processes.close(
      () => this.failWaiting(shuttingDown),
      (slot) => {
        this.finish(slot);
        slot.current!.pending.reject(shuttingDown());
        slot.current = undefined;
      },
    );
  }

  /** A process answered the render it holds: its image, or why it failed. */
  private onReply(slot: Slot, message: JobReply): void {
    const current = slot.current;
    if (!current || current.id !== message.id) return;
    this.finish(slot);
    slot.current = undefined;
    if (message.type === "done") {
      this.rendered++;
      this.shares.rendered(current.pending.tenant, performance.now() - current.started);
      current.pending.resolve({ bytes: message.bytes, timings: message.timings, missingGlyphs: message.missingGlyphs ?? [] });
    } else if (message.error.code) {
      current.pending.reject(apiErrorFrom(message.error));
    } else {
      // Not ours: the HTTP error mapper logs it (with the request id) and answers a bare 500.
      const error = new Error(`render failed in render process ${slot.index}: ${message.error.message}`);
      if (message.error.stack) error.stack = `${error.message}\n${message.error.stack}`;
      current.pending.reject(error);
    }
    this.pumpAll();
  }

  private dispatch(slot: Slot, pending: Pending): void {
    const id = this.nextId++;
    const timeoutMs = this.timeoutMs;
    const timer = this.timers.setTimeout(() => {
      this.shares.killedAtDeadline(pending.tenant, timeoutMs);
      this.processes.kill(
        slot,
        "deadline",
        new ApiError(
          "RENDER_FAILED",
          `The image took longer than ${timeoutMs / 1000} s to render and was stopped. Simplify the template (fewer elements, smaller blurs and shadows) or its images and try again.`,
        ),
      );
    }, timeoutMs);
    slot.current = { id, pending, timer, started: performance.now() };
    this.shares.started(pending);
    slot.child.send({ type: "render", id, job: pending.job });
  }

  /** The slot's job is over (answered, failed, or its process gone): stop its timer, free its account's share. */
  private finish(slot: Slot): void {
    const current = slot.current;
    if (!current) return;
    this.timers.clearTimeout(current.timer);
    this.shares.ended(current.pending);
  }

  /** The render a killed or crashed process held fails with `failure`, and is remembered as an offender. */
  private settleLost(slot: Slot, reason: KillReason, failure: ApiError): void {
    const current = slot.current;
    if (!current) return;
    this.finish(slot);
    slot.current = undefined;
    this.restarts[reason]++;
    this.offenders.record(current.pending.address, current.pending.account);
    current.pending.reject(failure);
    // Its account's share is free again: another process may take one of its queued jobs.
    this.pumpAll();
  }

  /** Every job waiting, in both lanes, fails (each with an error of its own). */
  private failWaiting(failure: () => ApiError): void {
    for (const pending of this.waiting.drain()) pending.reject(failure());
  }

  /**
   * Gives an idle, ready process the first queued job of its lane allowed to start: in arrival
   * order, except that an account at its share of processes is passed over until one of its
   * renders ends. A background process with nothing to do ends after `backgroundIdleMs`.
   */
  private pump(slot: Slot): void {
    if (slot.dead || !slot.ready || slot.current) return;
    const next = this.waiting.take(slot.lane, (pending) => this.shares.mayStart(pending));
    if (!next) {
      this.processes.idle(slot);
      return;
    }
    this.processes.busy(slot);
    this.dispatch(slot, next);
  }

  /** A job ended: its process is free, and its account may have room again for a job another process can take. */
  private pumpAll(): void {
    for (const slot of [...this.processes.interactive, ...this.processes.background]) this.pump(slot);
  }
}

const busy = (message: string, retryAfterSeconds: number) => new ApiError("SERVER_BUSY", message).retryAfter(retryAfterSeconds);
const shuttingDown = () => busy("The renderer is shutting down; retry shortly.", 1);
const unavailable = () => new ApiError("INTERNAL_ERROR", "Internal server error: the renderer is unavailable.");
