/**
 * Moves WAL checkpoints off the thread that answers requests.
 *
 * In WAL mode SQLite copies the log back into the database file (a checkpoint) from inside the
 * commit that pushes the log past `wal_autocheckpoint` pages (1,000 by default), and with
 * `synchronous = NORMAL` that checkpoint syncs the log and the file to disk. bun:sqlite runs it on
 * the calling thread, so one request in a few hundred commits blocked its event loop for the
 * sync: measured on the development box, 0.1 % of small commits took 11–14 ms, 45 % of all the
 * time spent committing, and every request queued behind them waited as long.
 *
 * So the server's connections leave checkpoints to one background thread
 * (checkpoint-thread.ts) with a connection of its own: the writers count their commits in shared
 * memory (`CommitSignal`, one atomic add each), every `NOTIFY_EVERY` commits wake the thread, and
 * it runs a PASSIVE checkpoint, which never takes the write lock, so commits go on meanwhile.
 * It also checkpoints what is left every `IDLE_CHECKPOINT_MS` and when the server stops. Idle, it
 * sleeps on a futex and costs nothing.
 *
 * The writers' own automatic checkpoint stays on with a larger threshold (`BACKSTOP_PAGES`), so
 * the log stays bounded even if the thread falls behind or is gone; it is started again if it
 * dies (thread-supervisor.ts). Other processes (the operator CLI) keep SQLite's default.
 */
import { isCompiledBinary } from "../../compiled.ts";
import type { Logger } from "../../logger.ts";
import { startSupervisedThread } from "./thread-supervisor.ts";

/** The writers' own checkpoint threshold while the thread does the work (pages, 4 KiB each). */
export const BACKSTOP_PAGES = 10_000;
/** Commits between wake-ups of the thread; roughly SQLite's default threshold of 1,000 pages. */
export const NOTIFY_EVERY = 256;
/** Commits fewer than NOTIFY_EVERY are checkpointed this long after, at the latest. */
export const IDLE_CHECKPOINT_MS = 10_000;
const START_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 10_000;

// The shared words (Int32).
/** Commits counted by the writers (wraps at 2^32; read it as unsigned). */
export const COMMITS = 0;
/**
 * Bumped before each wake-up (every NOTIFY_EVERY commits, and to stop): the thread reads it
 * before it looks at the other words and sleeps only while it is unchanged, so a wake-up sent
 * between its look and its sleep is never lost.
 */
export const WAKE = 1;
/** 1 once the thread is asked to stop. */
export const STOP = 2;
/** Checkpoints the thread ran (for tests and operators). */
export const DONE = 3;
const WORDS = 4;

export type ToCheckpointThread = { path: string; signal: SharedArrayBuffer };
export type FromCheckpointThread = { type: "ready" } | { type: "failed"; message: string } | { type: "error"; message: string };

/** The writers' side: each write transaction that committed says so. */
export class CommitSignal {
  static create(): SharedArrayBuffer {
    return new SharedArrayBuffer(WORDS * Int32Array.BYTES_PER_ELEMENT);
  }

  private readonly words: Int32Array;

  constructor(buffer: SharedArrayBuffer) {
    this.words = new Int32Array(buffer, 0, WORDS);
  }

  committed(): void {
    if (((Atomics.add(this.words, COMMITS, 1) + 1) & (NOTIFY_EVERY - 1)) === 0) wake(this.words);
  }
}

function wake(words: Int32Array): void {
  Atomics.add(words, WAKE, 1);
  Atomics.notify(words, WAKE);
}

export interface Checkpointer {
  /** Write transactions the server's connection committed. */
  readonly commits: number;
  /** Checkpoints run so far (by every incarnation of the thread). */
  readonly checkpoints: number;
  /** Restarts tried after the thread died, failed ones included. */
  readonly restarts: number;
  /** Runs a last checkpoint and ends the thread. */
  stop(): Promise<void>;
}

function threadUrl(): string | URL {
  return isCompiledBinary ? "./store/sqlite/checkpoint-thread.ts" : new URL("./checkpoint-thread.ts", import.meta.url);
}

/** Starts the thread for the database at `path`; rejects if it cannot open the database. */
export async function startCheckpointer(path: string, signal: SharedArrayBuffer, logger: Logger): Promise<Checkpointer> {
  const words = new Int32Array(signal, 0, WORDS);
  const thread = await startSupervisedThread<FromCheckpointThread>({
    name: "checkpoint thread",
    url: threadUrl(),
    init: { path, signal } satisfies ToCheckpointThread,
    startTimeoutMs: START_TIMEOUT_MS,
    startSignal: (message) => (message.type === "ready" ? { ready: true } : message.type === "failed" ? { failed: message.message } : undefined),
    onMessage: (message) => {
      if (message.type === "error") logger.warn("WAL checkpoint failed; the next one retries", { error: message.message });
    },
    logger,
  });
  return {
    get commits() {
      return Atomics.load(words, COMMITS) >>> 0;
    },
    get checkpoints() {
      return Atomics.load(words, DONE);
    },
    get restarts() {
      return thread.restarts;
    },
    stop: () =>
      thread.stop(() => {
        Atomics.store(words, STOP, 1);
        wake(words);
      }, STOP_TIMEOUT_MS),
  };
}
