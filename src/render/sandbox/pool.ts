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
 *   definitions wait.
 * - An account's own templates (data the account wrote, so of any cost the bounds allow) run on
 *   at most half of the ready processes per account at a time: its other jobs wait, and other
 *   accounts' jobs are served by the rest.
 * - The deadline (`timeoutMs`, OG_RENDER_TIMEOUT_MS): a render still running then is killed
 *   with its process (SIGKILL) and answers 422 RENDER_FAILED; a fresh process takes the place.
 * - The memory bound (`memoryBytes`, OG_RENDER_MEMORY_MB): every process's resident memory is
 *   read every `memoryWatchMs` (100 ms); one over the bound is killed, and the render it held
 *   answers 422 RENDER_FAILED naming the bound.
 * - A process that dies on its own (abort, segfault, the OOM killer) costs the render it held
 *   (422 RENDER_FAILED) and nothing else: waiting jobs go to the other processes or to its
 *   replacement, started at once. If processes keep dying before they finish starting (a
 *   broken build), the pool stops respawning and fails jobs instead of looping.
 * - Repeat offenders (offenders.ts): a killed or crashed render's content address is
 *   refused at once for 10 minutes, and an account with two of them in 10 minutes gets one
 *   process at a time for the next 10.
 */
import { LRUCache } from "lru-cache";
import { setPriority } from "node:os";
import { ApiError, apiErrorFrom } from "../../errors.ts";
import type { Logger } from "../../logger.ts";
import type { RenderedImage, RenderEngine } from "../engines/engine.ts";
import { RenderChild, renderProcessCommand } from "./child.ts";
import { RepeatOffenders } from "./offenders.ts";
import type { RenderJob, RenderProcessReply } from "./protocol.ts";
import { residentMemoryReader, type ResidentMemoryReader } from "./resident-memory.ts";

export type { RenderJob } from "./protocol.ts";

export interface RenderPoolOptions {
  /** Render processes (OG_RENDER_WORKERS). */
  workers: number;
  /** A job waits for a free process while its expected wait is at most this; beyond: SERVER_BUSY. Default 10 s. */
  maxWaitMs?: number;
  /** At most this many jobs wait, whatever the estimate says (memory). Default 256 × workers. */
  maxQueue?: number;
  /** At most this many bytes of images (data: URIs) and definitions wait (memory). Default 256 MiB. */
  maxQueuedBytes?: number;
  /** What a render is assumed to take before any has finished. Default 100 ms. */
  initialRenderMs?: number;
  /** How many of one account's own templates may render at once. Default half the processes (at least one). */
  perAccountLimit?: number;
  /** A render running longer than this is killed with its process: 422 RENDER_FAILED (OG_RENDER_TIMEOUT_MS). Default 5 s. */
  timeoutMs?: number;
  /** A render process holding more resident memory than this is killed (OG_RENDER_MEMORY_MB). Default 1 GiB. */
  memoryBytes?: number;
  /** How often each process's resident memory is read. Default 100 ms. */
  memoryWatchMs?: number;
  /** Reads processes' resident memory; default the platform's (none on Windows). Tests substitute one. */
  readMemory?: ResidentMemoryReader;
  templatesDir?: string;
  fontsDir?: string;
  logger: Logger;
  /** A full GC in each process every N renders (a young-generation one after every render); 0: never. See worker-memory.ts. */
  gcEvery?: number;
  /** Render one card in each process at start-up so the first request is not slow. Default true. */
  warmUp?: boolean;
  /** The command that starts a render process; tests substitute a fixture that speaks the same protocol. */
  command?: string[];
  /** What draws the cards (OG_RENDER_ENGINE). Default satori. */
  engine?: RenderEngine;
  /** The timers the deadline runs on: real time; tests substitute timers they fire themselves. */
  timers?: PoolTimers;
  /** Start the render processes at `start()`, the first render or `ready()`, not at construction. */
  startLater?: boolean;
  /** Background render processes (batches), started when background work arrives. Default half the workers, at least one. */
  backgroundWorkers?: number;
  /** A background render process idle this long ends (it comes back with the next background job). Default 30 s. */
  backgroundIdleMs?: number;
  /** The clock of the repeat-offender windows (ms). Default Date.now. */
  now?: () => number;
  /** Account font files by digest, for a render process that asks for them (render/fonts/account-fonts.ts). */
  fontBytes?: (digests: string[]) => Promise<Map<string, Uint8Array>>;
}

/** Who asked for a render, and what it is: for the repeat-offender rules. */
export interface RenderJobContext {
  /** The content address (the cache key): a killed render's address is refused for a while. */
  address?: string;
  /** The account that asked (its own template or not). */
  account?: string;
  /**
   * Background work (a batch's items): drawn by background render processes of their own, at a
   * lower CPU priority, so an interactive render never waits for one and the CPU goes to
   * interactive renders first. Never refused for the expected wait (the caller paces itself);
   * at most `maxQueue` wait.
   */
  background?: boolean;
}

/**
 * Where the pool's deadline gets its timers. A test that fires them by hand proves what the
 * bound does without racing real renders against it on a loaded machine.
 */
export interface PoolTimers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realTimers: PoolTimers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export type KillReason = "deadline" | "memory" | "crash";

export interface RenderPoolStats {
  workers: number;
  /** Render processes alive (starting, ready or busy). */
  alive: number;
  ready: number;
  busy: number;
  queued: number;
  /** Background renders waiting (batches), behind every interactive one. */
  background: number;
  maxQueue: number;
  /** Recent render time (moving average, ms) the wait estimate uses. */
  recentRenderMs: number;
  /** What a job arriving now would expect to wait for a process (ms). */
  expectedWaitMs: number;
  rendered: number;
  /** Render processes that died or were killed and replaced. */
  replaced: number;
  /** Render processes killed or lost during a render, by reason. */
  restarts: Record<KillReason, number>;
}

interface Pending {
  job: RenderJob;
  /** Whose account template it is (at most the share of theirs render at once); none for operator templates. */
  tenant: string | undefined;
  /** Who asked: the account the repeat-offender rules hold to one process. */
  account: string | undefined;
  address: string | undefined;
  /** What it holds in memory while it waits (its images and definition). */
  bytes: number;
  resolve(result: RenderedImage): void;
  reject(error: unknown): void;
}

interface Slot {
  index: number;
  /** Interactive processes take interactive jobs; background ones (lower CPU priority) take background jobs. */
  lane: "interactive" | "background";
  /** A background process's idle timer: it ends when it has had nothing to do for a while. */
  idleTimer?: ReturnType<typeof setTimeout>;
  child: RenderChild;
  ready: boolean;
  /** Set once the process is gone or being killed (and replaced), so its late events are ignored. */
  dead: boolean;
  current?: { id: number; pending: Pending; timer: unknown; started: number };
}

/** The weight of the latest render in the moving average of render times. */
const RECENT_WEIGHT = 0.2;

/** Accounts whose recent render time is kept. */
const MAX_ACCOUNTS_REMEMBERED = 1024;

/** Consecutive start-up failures after which the pool gives up respawning. */
const MAX_STARTUP_FAILURES = 3;

const MiB = 1024 * 1024;

/** The nice value of background render processes (see spawn). */
export const BACKGROUND_NICE = 10;

export class RenderPool {
  readonly size: number;
  readonly maxQueue: number;
  readonly maxWaitMs: number;
  readonly timeoutMs: number;
  readonly memoryBytes: number;
  /** How many of one account's own templates render at once: half the processes, at least one. */
  readonly perAccountLimit: number;
  private readonly slots: Slot[] = [];
  /** Background render processes, started with the first background job, ended when idle. */
  private readonly backgroundSlots: Slot[] = [];
  /** How many background render processes may run at once. */
  readonly backgroundSize: number;
  private readonly queue: Pending[] = [];
  /** Background jobs waiting: served only when `queue` has nothing that may start. */
  private readonly backgroundQueue: Pending[] = [];
  private queuedBytes = 0;
  /** Renders running now, by account (its own templates and, for a held account, every render). */
  private readonly running = new Map<string, number>();
  private recentRenderMs: number;
  /**
   * Recent render time of each account's own templates, killed renders included (they held a
   * process for the whole deadline): its own queue is estimated with it, so one account's slow
   * template makes its own backlog short, not everyone's. Bounded, least recently used out.
   */
  private readonly accountRenderMs = new LRUCache<string, number>({ max: MAX_ACCOUNTS_REMEMBERED });
  private readonly options: Required<Pick<RenderPoolOptions, "gcEvery" | "warmUp" | "maxQueuedBytes" | "memoryWatchMs">> & RenderPoolOptions;
  private readonly timers: PoolTimers;
  private readonly offenders: RepeatOffenders;
  private readonly readMemory: ResidentMemoryReader | undefined;
  private memoryWatch: ReturnType<typeof setInterval> | undefined;
  private memoryReading = false;
  private nextId = 1;
  private rendered = 0;
  private replaced = 0;
  private readonly restarts: Record<KillReason, number> = { deadline: 0, memory: 0, crash: 0 };
  private startupFailures = 0;
  private broken: string | undefined;
  private closing = false;
  private started = false;
  private readyWaiters: { resolve(): void; reject(error: Error): void }[] = [];

  constructor(options: RenderPoolOptions) {
    if (!Number.isInteger(options.workers) || options.workers < 1) throw new RangeError(`workers must be a positive integer, got ${options.workers}`);
    this.size = options.workers;
    this.maxQueue = options.maxQueue ?? 256 * options.workers;
    this.maxWaitMs = options.maxWaitMs ?? 10_000;
    this.timeoutMs = options.timeoutMs ?? 5_000;
    this.memoryBytes = options.memoryBytes ?? 1024 * MiB;
    this.perAccountLimit = options.perAccountLimit ?? Math.max(1, Math.floor(options.workers / 2));
    this.backgroundSize = options.backgroundWorkers ?? Math.max(1, Math.floor(options.workers / 2));
    this.recentRenderMs = options.initialRenderMs ?? 100;
    this.options = { gcEvery: 32, warmUp: true, maxQueuedBytes: 256 * MiB, memoryWatchMs: 100, ...options };
    this.timers = options.timers ?? realTimers;
    this.offenders = new RepeatOffenders({ now: options.now ?? Date.now });
    this.readMemory = options.readMemory ?? residentMemoryReader();
    if (!options.startLater) this.start();
  }

  /**
   * Starts the render processes (once). With `startLater` the server calls this once it
   * listens, so that their start-up does not compete with its own; the first render or
   * `ready()` starts them too.
   */
  start(): void {
    if (this.started || this.closing) return;
    this.started = true;
    for (let i = 0; i < this.size; i++) this.slots.push(this.spawn(i, "interactive"));
    if (this.readMemory) {
      this.memoryWatch = setInterval(() => void this.watchMemory(), this.options.memoryWatchMs);
      this.memoryWatch.unref?.();
    }
  }

  /** Resolves once every process has loaded fonts and templates; rejects if they cannot start. */
  ready(): Promise<void> {
    this.start();
    if (this.broken) return Promise.reject(new Error(this.broken));
    if (this.slots.every((s) => s.ready)) return Promise.resolve();
    return new Promise((resolve, reject) => this.readyWaiters.push({ resolve, reject }));
  }

  /** False once processes have kept failing to start (a broken build): /readyz says so. */
  get available(): boolean {
    return !this.broken && !this.closing;
  }

  render(job: RenderJob, context: RenderJobContext = {}): Promise<RenderedImage> {
    if (this.closing) return Promise.reject(busy("The renderer is shutting down; retry shortly.", 1));
    if (this.broken) return Promise.reject(new ApiError("INTERNAL_ERROR", "Internal server error: the renderer is unavailable."));
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
    const idle = this.mayStart(pending) ? this.slots.find((s) => s.ready && !s.dead && !s.current) : undefined;
    if (!idle) {
      const wait = this.expectedWaitMs(this.heldAccount(pending));
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

  private renderInBackground(pending: Omit<Pending, "resolve" | "reject">): Promise<RenderedImage> {
    const idle = this.mayStart(pending) ? this.backgroundSlots.find((s) => s.ready && !s.dead && !s.current) : undefined;
    if (!idle && this.backgroundQueue.length >= this.maxQueue) return Promise.reject(busy("Too many background renders are waiting; retry shortly.", 1));
    return new Promise<RenderedImage>((resolve, reject) => {
      const entry: Pending = { ...pending, resolve, reject };
      if (idle) this.dispatch(idle, entry);
      else {
        this.backgroundQueue.push(entry);
        // Another background process while fewer than the bound run and more jobs wait than are starting.
        const live = this.backgroundSlots.filter((s) => !s.dead);
        if (live.length < this.backgroundSize && this.backgroundQueue.length > live.filter((s) => !s.ready).length) {
          this.backgroundSlots.push(this.spawn(this.backgroundSlots.length, "background"));
        }
      }
    });
  }

  /**
   * How long a job arriving now would wait for a process: the jobs already waiting, each taking
   * the recent render time, spread over every process. A job held to a share (an account's own
   * template, or any job of an account held to one process) waits at least for that account's
   * queued jobs on its share, so one account's backlog stays its own: it reaches the bound long
   * before the pool-wide estimate does.
   */
  expectedWaitMs(account?: string): number {
    const everyone = (this.queue.length * this.recentRenderMs) / this.size;
    if (account === undefined) return Math.round(everyone);
    let own = 0;
    for (const pending of this.queue) if (this.heldAccount(pending) === account) own++;
    const theirs = this.accountRenderMs.peek(account) ?? this.recentRenderMs;
    return Math.round(Math.max(everyone, (own * theirs) / this.shareOf(account)));
  }

  get stats(): RenderPoolStats {
    return {
      workers: this.size,
      alive: this.slots.filter((s) => !s.dead).length + this.backgroundSlots.filter((s) => !s.dead).length,
      ready: this.slots.filter((s) => s.ready && !s.dead).length,
      busy: this.slots.filter((s) => s.current).length,
      queued: this.queue.length,
      background: this.backgroundQueue.length,
      maxQueue: this.maxQueue,
      recentRenderMs: Math.round(this.recentRenderMs),
      expectedWaitMs: this.expectedWaitMs(),
      rendered: this.rendered,
      replaced: this.replaced,
      restarts: { ...this.restarts },
    };
  }

  /** The render processes' ids, alive ones only (tests and the bench measure them). */
  get pids(): number[] {
    return [...this.slots, ...this.backgroundSlots].filter((s) => !s.dead).map((s) => s.child.pid);
  }

  /** Ends every render process. Jobs still waiting fail with SERVER_BUSY (retryable). */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    if (this.memoryWatch) clearInterval(this.memoryWatch);
    this.queuedBytes = 0;
    for (const pending of [...this.queue.splice(0), ...this.backgroundQueue.splice(0)])
      pending.reject(busy("The renderer is shutting down; retry shortly.", 1));
    for (const waiter of this.readyWaiters.splice(0)) waiter.reject(new Error("render pool closed"));
    await Promise.all(
      [...this.slots, ...this.backgroundSlots].map(async (slot) => {
        if (slot.current) {
          this.finish(slot);
          slot.current.pending.reject(busy("The renderer is shutting down; retry shortly.", 1));
          slot.current = undefined;
        }
        slot.dead = true;
        if (slot.idleTimer) clearTimeout(slot.idleTimer);
        slot.child.kill();
        await Promise.race([slot.child.exited, Bun.sleep(2_000)]);
      }),
    );
  }

  private spawn(index: number, lane: Slot["lane"]): Slot {
    let slot!: Slot;
    const child = new RenderChild(this.options.command ?? renderProcessCommand(), {
      message: (reply) => this.onMessage(slot, reply),
      exit: (code, signal) => this.onExit(slot, code, signal),
    });
    slot = { index, lane, child, ready: false, dead: false };
    if (lane === "background") {
      // A lower priority (nice 10, which needs no privileges): when the CPU is short, interactive
      // renders and the server get about nine tenths of it; when it is idle, a batch gets all of
      // it. Not the lowest (19): that left a batch about 1 % beside any busy process on the box.
      try {
        setPriority(child.pid, BACKGROUND_NICE);
      } catch {
        // Not allowed here: the background lane still keeps interactive renders from waiting.
      }
    }
    child.send({
      type: "init",
      templatesDir: this.options.templatesDir,
      fontsDir: this.options.fontsDir,
      gcEvery: this.options.gcEvery,
      warmUp: this.options.warmUp,
      engine: this.options.engine,
    });
    return slot;
  }

  private onMessage(slot: Slot, message: RenderProcessReply): void {
    if (slot.dead) return;
    switch (message.type) {
      case "ready":
        slot.ready = true;
        this.startupFailures = 0;
        if (slot.lane === "interactive" && this.slots.every((s) => s.ready)) for (const waiter of this.readyWaiters.splice(0)) waiter.resolve();
        // One more ready process may give an account its share back: any free one may take its job.
        this.pumpAll();
        return;
      case "init_failed":
        this.options.logger.error("render process failed to start", { worker: slot.index, error: message.message });
        this.replace(slot, `start-up failed: ${message.message}`);
        return;
      case "fonts_needed": {
        const current = slot.current;
        if (!current || current.id !== message.id) return;
        const answer = (found: Map<string, Uint8Array>) => {
          if (slot.dead || slot.current?.id !== message.id) return;
          slot.child.send({ type: "fonts", id: message.id, fonts: [...found].map(([digest, data]) => ({ digest, data })) });
        };
        const source = this.options.fontBytes;
        // A file that cannot be read (gone, or the store down) is left out: the render fails and says so.
        if (!source) answer(new Map());
        else
          source(message.digests).then(answer, (error: unknown) => {
            this.options.logger.warn("account fonts could not be read for a render", { error: error instanceof Error ? error.message : String(error) });
            answer(new Map());
          });
        return;
      }
      case "done":
      case "failed": {
        const current = slot.current;
        if (!current || current.id !== message.id) return;
        this.finish(slot);
        slot.current = undefined;
        if (message.type === "done") {
          this.rendered++;
          // Only successes teach the estimate: a refusal inside the process took no drawing.
          const elapsed = performance.now() - current.started;
          this.recentRenderMs += RECENT_WEIGHT * (elapsed - this.recentRenderMs);
          this.learnAccount(current.pending.tenant, elapsed);
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
        return;
      }
    }
  }

  /** An account's share of the processes now: one while it is held, else half of the ready ones. */
  private shareOf(account: string): number {
    if (this.offenders.restricted(account)) return 1;
    if (this.options.perAccountLimit !== undefined || this.size === 1) return this.perAccountLimit;
    // Half of the ready ones, not of all: while a killed process is being replaced, the one
    // left is kept for the other accounts instead of going to the account whose render was killed.
    const ready = this.slots.filter((s) => s.ready && !s.dead).length;
    return Math.min(this.perAccountLimit, Math.floor(ready / 2));
  }

  /** The account whose share this job counts against, if any: the owner of an account template, or a held account. */
  private heldAccount(pending: Pick<Pending, "tenant" | "account">): string | undefined {
    if (pending.account !== undefined && this.offenders.restricted(pending.account)) return pending.account;
    return pending.tenant;
  }

  private mayStart(pending: Pick<Pending, "tenant" | "account">): boolean {
    const account = this.heldAccount(pending);
    if (account === undefined) return true;
    return (this.running.get(account) ?? 0) < this.shareOf(account);
  }

  private learnAccount(account: string | undefined, elapsedMs: number): void {
    if (account === undefined) return;
    const before = this.accountRenderMs.get(account);
    this.accountRenderMs.set(account, before === undefined ? elapsedMs : before + RECENT_WEIGHT * (elapsedMs - before));
  }

  private dispatch(slot: Slot, pending: Pending): void {
    const id = this.nextId++;
    const timeoutMs = this.timeoutMs;
    const timer = this.timers.setTimeout(() => {
      this.learnAccount(pending.tenant, timeoutMs);
      this.kill(
        slot,
        "deadline",
        new ApiError(
          "RENDER_FAILED",
          `The image took longer than ${timeoutMs / 1000} s to render and was stopped. Simplify the template (fewer elements, smaller blurs and shadows) or its images and try again.`,
        ),
      );
    }, timeoutMs);
    slot.current = { id, pending, timer, started: performance.now() };
    // Counted for every account: a held account's renders of any template count against its one process.
    for (const account of new Set([pending.tenant, pending.account]))
      if (account !== undefined) this.running.set(account, (this.running.get(account) ?? 0) + 1);
    slot.child.send({ type: "render", id, job: pending.job });
  }

  /** The slot's job is over (answered, failed, or its process gone): stop its timer, free its account's share. */
  private finish(slot: Slot): void {
    const current = slot.current;
    if (!current) return;
    this.timers.clearTimeout(current.timer);
    for (const account of new Set([current.pending.tenant, current.pending.account])) {
      if (account === undefined) continue;
      const left = (this.running.get(account) ?? 1) - 1;
      if (left > 0) this.running.set(account, left);
      else this.running.delete(account);
    }
  }

  /** Reads every process's resident memory and kills the ones over the bound. */
  private async watchMemory(): Promise<void> {
    if (this.memoryReading || this.closing || !this.readMemory) return;
    this.memoryReading = true;
    try {
      const live = [...this.slots, ...this.backgroundSlots].filter((s) => !s.dead);
      const sizes = await this.readMemory(live.map((s) => s.child.pid));
      for (const slot of live) {
        const size = sizes.get(slot.child.pid);
        if (size === undefined || size <= this.memoryBytes || slot.dead) continue;
        this.kill(
          slot,
          "memory",
          new ApiError(
            "RENDER_FAILED",
            `The image took more than the render memory bound (${Math.round(this.memoryBytes / MiB)} MB) to draw and was stopped. Simplify the template (fewer nested clips, rounded or translucent layers, smaller images) and try again.`,
          ),
          { resident_mb: Math.round(size / MiB), bound_mb: Math.round(this.memoryBytes / MiB) },
        );
      }
    } finally {
      this.memoryReading = false;
    }
  }

  /** The pool ends a process: the render it held answers `failure` at once, and a fresh process takes its place. */
  private kill(slot: Slot, reason: Exclude<KillReason, "crash">, failure: ApiError, extra: Record<string, unknown> = {}): void {
    if (slot.dead) return;
    this.logKill(slot, reason, extra);
    this.replace(slot, reason, { reason, failure });
  }

  private logKill(slot: Slot, reason: KillReason, extra: Record<string, unknown>): void {
    const job = slot.current?.pending;
    const fields = {
      reason,
      worker: slot.index,
      pid: slot.child.pid,
      ...(job
        ? {
            account: job.account ?? null,
            template: job.job.template,
            version: job.job.accountTemplate?.version ?? null,
            ...(reason === "deadline" ? { timeout_ms: this.timeoutMs } : {}),
          }
        : {}),
      ...extra,
    };
    if (job) this.options.logger.warn("render process killed during a render; replacing it", fields);
    else this.options.logger.warn("render process killed while idle; replacing it", fields);
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

  /** A process ended that the pool did not end: a crash (abort, segfault, the OOM killer, an exit). */
  private onExit(slot: Slot, code: number | null, signal: string | null): void {
    if (slot.dead) return;
    const how = signal ? `killed by ${signal}` : `exited with code ${code}`;
    if (slot.current) this.logKill(slot, "crash", { how });
    else if (!this.closing) this.options.logger.error("render process exited", { worker: slot.index, pid: slot.child.pid, how });
    this.replace(slot, how, {
      reason: "crash",
      failure: new ApiError(
        "RENDER_FAILED",
        "The renderer crashed while drawing this image and was restarted. Simplify the template or its images and try again.",
      ),
    });
  }

  /**
   * A process is gone (or is to go): make sure it is, answer the render it held with `lost`, and
   * start another (or give up if they never start). The slot is out of use before anything else
   * happens, so the queue never hands a job to the process being replaced.
   */
  private replace(slot: Slot, why: string, lost?: { reason: KillReason; failure: ApiError }): void {
    if (slot.dead) return;
    slot.dead = true;
    slot.child.kill();
    if (slot.current)
      this.settleLost(
        slot,
        lost?.reason ?? "crash",
        lost?.failure ?? new ApiError("RENDER_FAILED", "The renderer stopped while drawing this image and was restarted; try again."),
      );
    if (this.closing || this.broken) return;
    this.replaced++;
    if (!slot.ready && ++this.startupFailures >= MAX_STARTUP_FAILURES) {
      this.broken = `render processes cannot start (${why})`;
      this.options.logger.error("render pool disabled: render processes keep failing to start", { why });
      this.queuedBytes = 0;
      for (const pending of [...this.queue.splice(0), ...this.backgroundQueue.splice(0)])
        pending.reject(new ApiError("INTERNAL_ERROR", "Internal server error: the renderer is unavailable."));
      for (const waiter of this.readyWaiters.splice(0)) waiter.reject(new Error(this.broken));
      return;
    }
    if (slot.idleTimer) clearTimeout(slot.idleTimer);
    if (slot.lane === "background") {
      // A background process comes back only while background work waits.
      const at = this.backgroundSlots.indexOf(slot);
      if (this.backgroundQueue.length > 0) this.backgroundSlots[at] = this.spawn(at, "background");
      else this.backgroundSlots.splice(at, 1);
      return;
    }
    this.slots[slot.index] = this.spawn(slot.index, "interactive");
  }

  /**
   * Gives an idle, ready process the first queued job of its lane allowed to start: in arrival
   * order, except that an account at its share of processes is passed over until one of its
   * renders ends. A background process with nothing to do ends after `backgroundIdleMs`.
   */
  private pump(slot: Slot): void {
    if (slot.dead || !slot.ready || slot.current) return;
    const queue = slot.lane === "interactive" ? this.queue : this.backgroundQueue;
    const index = queue.findIndex((pending) => this.mayStart(pending));
    if (index >= 0) {
      if (slot.idleTimer) clearTimeout(slot.idleTimer);
      slot.idleTimer = undefined;
      const [next] = queue.splice(index, 1);
      if (slot.lane === "interactive") this.queuedBytes -= next!.bytes;
      this.dispatch(slot, next!);
      return;
    }
    if (slot.lane === "background" && !slot.idleTimer) {
      slot.idleTimer = setTimeout(() => this.retire(slot), this.options.backgroundIdleMs ?? 30_000);
      slot.idleTimer.unref?.();
    }
  }

  /** An idle background process ends: not a restart, and nothing is respawned. */
  private retire(slot: Slot): void {
    if (slot.dead || slot.current) return;
    slot.dead = true;
    slot.child.kill();
    this.backgroundSlots.splice(this.backgroundSlots.indexOf(slot), 1);
  }

  /** A job ended: its process is free, and its account may have room again for a job another process can take. */
  private pumpAll(): void {
    for (const slot of [...this.slots, ...this.backgroundSlots]) this.pump(slot);
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
