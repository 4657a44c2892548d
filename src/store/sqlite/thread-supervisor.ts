/**
 * Keeps one long-lived worker thread running: today the SQLite checkpoint thread
 * (store/sqlite/checkpointer.ts). Render workers are not among them: the render pool
 * (render/sandbox/pool.ts) also hands a dead worker's jobs on, which such a thread has none of.
 *
 * A start sends the thread its first message and waits for the thread to say it is ready (or
 * that it failed) within a deadline; a start that times out terminates that thread, so it can
 * never come up late beside a later attempt. A thread that dies once ready is started again after
 * a pause, and a restart that fails is tried again later, the pause doubling up to a minute, so a
 * crash loop never spins and a lasting fault (a database gone) is retried for as long as the
 * server runs. Nothing is restarted once stopping begins.
 */
import type { Logger } from "../../logger.ts";

/** What a thread's message means to its supervisor. */
export type StartSignal = { ready: true } | { failed: string } | undefined;

export interface ThreadSpec<FromThread> {
  /** For logs and errors: "checkpoint thread". */
  name: string;
  url: string | URL;
  /** The first message, sent to every incarnation. */
  init: unknown;
  /** Whether a message says the thread started (or could not); any other message goes to `onMessage`. */
  startSignal(message: FromThread): StartSignal;
  onMessage?(message: FromThread, worker: Worker): void;
  logger: Logger;
  /** Added to every log line about the thread. */
  logFields?: Record<string, unknown>;
  startTimeoutMs?: number;
  /** The pause before the first restart (doubling after each failed one, up to `maxRestartDelayMs`). */
  restartDelayMs?: number;
  maxRestartDelayMs?: number;
}

export interface SupervisedThread {
  /** The current incarnation (replaced on a restart). */
  readonly worker: Worker;
  /** Ready, and not ended since. */
  readonly running: boolean;
  /** Restarts tried after the thread died, failed ones included. */
  readonly restarts: number;
  /**
   * Asks the thread to end (`ask`, given the current worker), terminates it if it has not ended
   * after `timeoutMs`, and resolves once it has. No restart follows.
   */
  stop(ask: (worker: Worker) => void, timeoutMs: number): Promise<void>;
}

const DEFAULT_START_TIMEOUT_MS = 30_000;
const DEFAULT_RESTART_DELAY_MS = 1_000;
const DEFAULT_MAX_RESTART_DELAY_MS = 60_000;

interface Incarnation {
  worker: Worker;
  ready: boolean;
  ended: boolean;
  closed: Promise<void>;
}

/** Starts the thread and resolves once it is ready; rejects (leaving nothing running) if it is not. */
export async function startSupervisedThread<FromThread>(spec: ThreadSpec<FromThread>): Promise<SupervisedThread> {
  const { logger, name } = spec;
  const fields = spec.logFields ?? {};
  const startTimeoutMs = spec.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
  const firstDelay = spec.restartDelayMs ?? DEFAULT_RESTART_DELAY_MS;
  const maxDelay = spec.maxRestartDelayMs ?? DEFAULT_MAX_RESTART_DELAY_MS;
  let current!: Incarnation;
  let stopping = false;
  let restarts = 0;

  function spawn(): Promise<void> {
    const worker = new Worker(spec.url);
    let closed!: () => void;
    const incarnation: Incarnation = { worker, ready: false, ended: false, closed: new Promise<void>((resolve) => (closed = resolve)) };
    current = incarnation;
    return new Promise<void>((resolve, reject) => {
      const fail = (error: Error) => {
        clearTimeout(timer);
        reject(error);
        worker.terminate();
      };
      const timer = setTimeout(() => fail(new Error(`${name} did not start within ${startTimeoutMs / 1000} s`)), startTimeoutMs);
      worker.addEventListener("message", (event: MessageEvent<FromThread>) => {
        const signal = incarnation.ready ? undefined : spec.startSignal(event.data);
        if (signal && "ready" in signal) {
          incarnation.ready = true;
          clearTimeout(timer);
          resolve();
        } else if (signal) fail(new Error(`${name} did not start: ${signal.failed}`));
        else spec.onMessage?.(event.data, worker);
      });
      worker.addEventListener("error", (event: ErrorEvent) => logger.error(`${name} error`, { ...fields, error: event.message }));
      worker.addEventListener("close", () => {
        clearTimeout(timer);
        incarnation.ended = true;
        closed();
        reject(new Error(`${name} exited while starting`));
        if (stopping || !incarnation.ready || current !== incarnation) return;
        logger.error(`${name} exited; starting it again`, fields);
        restart(firstDelay);
      });
      worker.postMessage(spec.init);
    });
  }

  function restart(delay: number): void {
    setTimeout(() => {
      if (stopping) return;
      restarts++;
      spawn().catch((error: Error) => {
        if (stopping) return;
        const next = Math.min(delay * 2, maxDelay);
        logger.error(`${name} did not restart; trying again`, { ...fields, error: error.message, retry_in_ms: next });
        restart(next);
      });
    }, delay).unref?.();
  }

  async function stop(ask: (worker: Worker) => void, timeoutMs: number): Promise<void> {
    stopping = true;
    const incarnation = current;
    if (incarnation.ended) return;
    // A restart still starting has nothing in hand to finish.
    if (incarnation.ready) ask(incarnation.worker);
    else incarnation.worker.terminate();
    const late = setTimeout(() => incarnation.worker.terminate(), timeoutMs);
    await incarnation.closed;
    clearTimeout(late);
  }

  try {
    await spawn();
  } catch (error) {
    // Terminated by now, or ended on its own: wait for it to be gone.
    await current.closed;
    throw error;
  }
  return {
    get worker() {
      return current.worker;
    },
    get running() {
      return current.ready && !current.ended;
    },
    get restarts() {
      return restarts;
    },
    stop,
  };
}
