/**
 * The render pool's processes (pool.ts), both lanes: started (render-slot.ts; background ones
 * at a lower CPU priority), their resident memory watched (memory-watch.ts), killed past a bound
 * or lost to a crash, replaced, and ended when idle (background) or when the pool closes.
 *
 * - A process over the memory bound (`memoryBytes`, OG_RENDER_MEMORY_MB) is killed, and the
 *   render it held answers 422 RENDER_FAILED naming the bound.
 * - A process that dies on its own (abort, segfault, the OOM killer) costs the render it held
 *   (422 RENDER_FAILED) and nothing else: waiting jobs go to the other processes or to its
 *   replacement, started at once. If processes keep dying before they finish starting (a
 *   broken build), the pool stops respawning and fails jobs instead of looping.
 *
 * What runs on them — the queue, the shares, the answers — is the pool's: this file tells it
 * when a process is ready, what a process answered, and when one is gone with a render. A
 * process asking for account fonts is answered here, from `fontBytes`.
 */
import { ApiError } from "../../errors.ts";
import { MemoryWatch } from "./memory-watch.ts";
import type { KillReason, RenderPoolOptions } from "./pool-options.ts";
import type { RenderProcessReply } from "./protocol.ts";
import { startSlot, type Slot } from "./render-slot.ts";
import type { ResidentMemoryReader } from "./resident-memory.ts";

/** A process's answer about the render it holds: its outcome, which the pool settles. */
export type JobReply = Extract<RenderProcessReply, { type: "done" } | { type: "failed" }>;

/** What the processes tell the pool that runs jobs on them. */
export interface ProcessEvents {
  /** A process finished starting: it may take a job, and an account may have its share back. */
  ready(slot: Slot): void;
  reply(slot: Slot, message: JobReply): void;
  /** The process holding a render is gone (killed or crashed): the render fails with `failure`. */
  lost(slot: Slot, reason: KillReason, failure: ApiError): void;
  /** Processes keep failing to start: the jobs waiting fail. */
  broken(): void;
  /** Whether background jobs wait (a background process comes back only then). */
  backgroundWaiting(): boolean;
}

/** Consecutive start-up failures after which the pool gives up respawning. */
const MAX_STARTUP_FAILURES = 3;

export type RenderProcessesOptions = Required<Pick<RenderPoolOptions, "gcEvery" | "warmUp" | "memoryWatchMs">> &
  RenderPoolOptions & { timeoutMs: number; memoryBytes: number; backgroundSize: number; readMemory: ResidentMemoryReader | undefined };

export class RenderProcesses {
  /** Interactive processes, one per worker. */
  readonly interactive: Slot[] = [];
  /** Background processes, started with background work, ended when idle. */
  readonly background: Slot[] = [];
  private replacedCount = 0;
  private whyBroken: string | undefined;
  private isClosing = false;
  private started = false;
  private startupFailures = 0;
  private readonly memoryWatch: MemoryWatch<Slot> | undefined;
  private readyWaiters: { resolve(): void; reject(error: Error): void }[] = [];

  constructor(
    private readonly options: RenderProcessesOptions,
    private readonly events: ProcessEvents,
  ) {
    if (options.readMemory)
      this.memoryWatch = new MemoryWatch({
        read: options.readMemory,
        everyMs: options.memoryWatchMs,
        boundBytes: options.memoryBytes,
        live: () => [...this.interactive, ...this.background].filter((s) => !s.dead),
        pidOf: (slot) => slot.child.pid,
        over: (slot, failure, extra) => this.kill(slot, "memory", failure, extra),
      });
  }

  /** Processes that died or were killed and replaced. */
  get replaced(): number {
    return this.replacedCount;
  }

  /** Why the pool gave up on its processes (they kept failing to start), once it has. */
  get broken(): string | undefined {
    return this.whyBroken;
  }

  get closing(): boolean {
    return this.isClosing;
  }

  /** Starts the interactive processes and the memory watch (once). */
  start(): void {
    if (this.started || this.closing) return;
    this.started = true;
    for (let i = 0; i < this.options.workers; i++) this.interactive.push(this.spawn(i, "interactive"));
    this.memoryWatch?.start();
  }

  /** Resolves once every interactive process has loaded fonts and templates; rejects if they cannot start. */
  whenReady(): Promise<void> {
    if (this.broken) return Promise.reject(new Error(this.broken));
    if (this.interactive.every((s) => s.ready)) return Promise.resolve();
    return new Promise((resolve, reject) => this.readyWaiters.push({ resolve, reject }));
  }

  /** The processes' ids, alive ones only. */
  get pids(): number[] {
    return [...this.interactive, ...this.background].filter((s) => !s.dead).map((s) => s.child.pid);
  }

  /** Another background process while fewer than the bound run and more jobs wait than are starting. */
  growBackground(waiting: number): void {
    const live = this.background.filter((s) => !s.dead);
    if (live.length < this.options.backgroundSize && waiting > live.filter((s) => !s.ready).length) {
      this.background.push(this.spawn(this.background.length, "background"));
    }
  }

  /** The process takes a job: a background one no longer ends for being idle. */
  busy(slot: Slot): void {
    if (slot.idleTimer) clearTimeout(slot.idleTimer);
    slot.idleTimer = undefined;
  }

  /** The process found nothing to do: a background one ends after `backgroundIdleMs`. */
  idle(slot: Slot): void {
    if (slot.lane === "background" && !slot.idleTimer) {
      slot.idleTimer = setTimeout(() => this.retire(slot), this.options.backgroundIdleMs ?? 30_000);
      slot.idleTimer.unref?.();
    }
  }

  /**
   * Ends every process. `failWaiting` runs first (the pool fails the jobs that wait), then each
   * render a process still holds is handed to `settleHeld`.
   */
  async close(failWaiting: () => void, settleHeld: (slot: Slot) => void): Promise<void> {
    this.isClosing = true;
    this.memoryWatch?.stop();
    failWaiting();
    for (const waiter of this.readyWaiters.splice(0)) waiter.reject(new Error("render pool closed"));
    await Promise.all(
      [...this.interactive, ...this.background].map(async (slot) => {
        if (slot.current) settleHeld(slot);
        slot.dead = true;
        if (slot.idleTimer) clearTimeout(slot.idleTimer);
        slot.child.kill();
        await Promise.race([slot.child.exited, Bun.sleep(2_000)]);
      }),
    );
  }

  /** The pool ends a process: the render it held answers `failure` at once, and a fresh process takes its place. */
  kill(slot: Slot, reason: Exclude<KillReason, "crash">, failure: ApiError, extra: Record<string, unknown> = {}): void {
    if (slot.dead) return;
    this.logKill(slot, reason, extra);
    this.replace(slot, reason, { reason, failure });
  }

  private spawn(index: number, lane: Slot["lane"]): Slot {
    return startSlot(index, lane, this.options, {
      message: (slot, reply) => this.onMessage(slot, reply),
      exit: (slot, code, signal) => this.onExit(slot, code, signal),
    });
  }

  private onMessage(slot: Slot, message: RenderProcessReply): void {
    if (slot.dead) return;
    switch (message.type) {
      case "ready":
        slot.ready = true;
        this.startupFailures = 0;
        if (slot.lane === "interactive" && this.interactive.every((s) => s.ready)) for (const waiter of this.readyWaiters.splice(0)) waiter.resolve();
        this.events.ready(slot);
        return;
      case "init_failed":
        this.options.logger.error("render process failed to start", { worker: slot.index, error: message.message });
        this.replace(slot, `start-up failed: ${message.message}`);
        return;
      case "fonts_needed":
        this.sendFonts(slot, message.id, message.digests);
        return;
      default:
        this.events.reply(slot, message);
    }
  }

  /** Render `id` names account fonts its process does not hold: send the bytes of those found. */
  private sendFonts(slot: Slot, id: number, digests: string[]): void {
    const current = slot.current;
    if (!current || current.id !== id) return;
    const answer = (found: Map<string, Uint8Array>) => {
      if (slot.dead || slot.current?.id !== id) return;
      slot.child.send({ type: "fonts", id, fonts: [...found].map(([digest, data]) => ({ digest, data })) });
    };
    const source = this.options.fontBytes;
    // A file that cannot be read (gone, or the store down) is left out: the render fails and says so.
    if (!source) answer(new Map());
    else
      source(digests).then(answer, (error: unknown) => {
        this.options.logger.warn("account fonts could not be read for a render", { error: error instanceof Error ? error.message : String(error) });
        answer(new Map());
      });
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
            ...(reason === "deadline" ? { timeout_ms: this.options.timeoutMs } : {}),
          }
        : {}),
      ...extra,
    };
    if (job) this.options.logger.warn("render process killed during a render; replacing it", fields);
    else this.options.logger.warn("render process killed while idle; replacing it", fields);
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
      this.events.lost(
        slot,
        lost?.reason ?? "crash",
        lost?.failure ?? new ApiError("RENDER_FAILED", "The renderer stopped while drawing this image and was restarted; try again."),
      );
    if (this.closing || this.broken) return;
    this.replacedCount++;
    if (!slot.ready && ++this.startupFailures >= MAX_STARTUP_FAILURES) {
      this.whyBroken = `render processes cannot start (${why})`;
      this.options.logger.error("render pool disabled: render processes keep failing to start", { why });
      this.events.broken();
      for (const waiter of this.readyWaiters.splice(0)) waiter.reject(new Error(this.whyBroken));
      return;
    }
    if (slot.idleTimer) clearTimeout(slot.idleTimer);
    if (slot.lane === "background") {
      // A background process comes back only while background work waits.
      const at = this.background.indexOf(slot);
      if (this.events.backgroundWaiting()) this.background[at] = this.spawn(at, "background");
      else this.background.splice(at, 1);
      return;
    }
    this.interactive[slot.index] = this.spawn(slot.index, "interactive");
  }

  /** An idle background process ends: not a restart, and nothing is respawned. */
  private retire(slot: Slot): void {
    if (slot.dead || slot.current) return;
    slot.dead = true;
    slot.child.kill();
    this.background.splice(this.background.indexOf(slot), 1);
  }
}
