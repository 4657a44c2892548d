/**
 * What the render pool (pool.ts) is given and what it tells: its options (the bounds, the lanes,
 * the processes' start-up), who asked for a render, the timers its deadline runs on, and its
 * figures for /metrics and /readyz. Apart from the pool so its callers and the processes it
 * runs (render-processes.ts) read them without the pool itself.
 */
import type { Logger } from "../../logger.ts";
import type { RenderEngine } from "../engines/engine.ts";
import type { ResidentMemoryReader } from "./resident-memory.ts";

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

/** Real time: what the deadline runs on outside tests. */
export const realTimers: PoolTimers = {
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
