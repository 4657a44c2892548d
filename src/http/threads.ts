/**
 * OG_HTTP_THREADS: more than one thread answering HTTP in one `ogsmith serve`. The main thread
 * listens as always; each extra thread (http-thread.ts) runs the same app on the same port with
 * SO_REUSEPORT, so the kernel spreads connections over them and the cheap paths (authenticated
 * reads, cached images) stop being bound to one JavaScript thread.
 *
 * What stays one per server lives on the main thread and is served to the others by message:
 * - the render backend (pool, queue, persistent cache): a thread's cold render is a message
 *   here and the image a message back, so the pool's capacity and single-flight are per server;
 * - the job worker: a thread that committed jobs says so, and the worker looks at once;
 * - metrics: a scrape on any thread is answered here with every thread's request counts.
 * Each thread has its own store connection (SQLite in WAL mode takes several; a key replaced by
 * one thread is seen by the others on their next request, see store/sqlite/commit-watch.ts) and
 * its own in-memory image cache (the default budget split between the threads). The per-key
 * rate limit is one log in shared memory (metering/shared-rate-limit.ts) unless Redis keeps it,
 * and the threads' SQLite connections take turns at one write lock in shared memory
 * (store/sqlite/write-lock.ts) rather than in SQLite's sleeping busy handler.
 */
import { isCompiledBinary } from "../compiled.ts";
import type { Config } from "../config.ts";
import { toPlainError } from "../errors.ts";
import type { Logger } from "../logger.ts";
import { DEFAULT_PNG_CACHE_BYTES } from "../render/png-cache.ts";
import type { RenderBackend } from "../render/renderer.ts";
import type { ThreadShared } from "../services.ts";
import { startSupervisedThread, type SupervisedThread } from "../thread-supervisor.ts";
import type { Metrics } from "./metrics.ts";
import type { RequestSnapshot } from "./request-metrics.ts";
import type { FromThread, ToThread } from "./thread-protocol.ts";

/** Each thread's in-memory image cache when none is configured: the default budget, split. */
export function threadPngCacheBytes(config: Pick<Config, "httpThreads">): number {
  return Math.max(4 * 1024 * 1024, Math.floor(DEFAULT_PNG_CACHE_BYTES / config.httpThreads));
}

export interface HttpThreadsOptions {
  config: Config;
  /** The port the main thread is listening on (resolved, never 0). */
  port: number;
  /** The memory every thread's services share (serve.ts). */
  shared: ThreadShared;
  backend: RenderBackend;
  metrics: Metrics;
  logger: Logger;
  /** Jobs were committed on another thread. */
  onJobs(): void;
  /** A request another thread refused because the store could not take it. */
  onStoreUnavailable(reason: string): void;
}

export interface HttpThreads {
  /** Extra threads running (the main thread not counted). */
  readonly count: number;
  /** Stops every thread gracefully (in-flight requests finish), then ends it. */
  stop(): Promise<void>;
}

/** How long a thread may take to start listening, or to finish its requests when stopping. */
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 10_000;

function threadUrl(): string | URL {
  return isCompiledBinary ? "./http/http-thread.ts" : new URL("./http-thread.ts", import.meta.url);
}

export async function startHttpThreads(options: HttpThreadsOptions): Promise<HttpThreads> {
  const { config, logger, backend, metrics } = options;
  const threads: SupervisedThread[] = [];
  const snapshots = new Map<number, (requests: RequestSnapshot) => void>();
  let nextSnapshot = 1;

  function handle(worker: Worker, message: FromThread): void {
    const post = (reply: ToThread) => worker.postMessage(reply);
    switch (message.type) {
      case "produce":
        backend.produce(message.key, message.job).then(
          (image) => post({ type: "produced", id: message.id, image }),
          (error) => post({ type: "produced", id: message.id, error: toPlainError(error) }),
        );
        return;
      case "used":
        for (const key of message.keys) backend.used(key);
        return;
      case "jobs":
        options.onJobs();
        return;
      case "store-unavailable":
        options.onStoreUnavailable(message.reason);
        return;
      case "scrape":
        metrics.render().then(
          (text) => post({ type: "scraped", id: message.id, text }),
          (error) => post({ type: "scraped", id: message.id, error: error instanceof Error ? error.message : String(error) }),
        );
        return;
      case "snapshot":
        snapshots.get(message.id)?.(message.requests);
        snapshots.delete(message.id);
        return;
      default:
        return;
    }
  }

  /** Starts thread `index` and resolves once it listens (rejects if it cannot). */
  function start(index: number): Promise<SupervisedThread> {
    return startSupervisedThread<FromThread>({
      name: `HTTP thread ${index}`,
      url: threadUrl(),
      init: { type: "init", index, config, port: options.port, shared: options.shared } satisfies ToThread,
      startTimeoutMs: START_TIMEOUT_MS,
      startSignal: (message) => (message.type === "listening" ? { ready: true } : message.type === "failed" ? { failed: message.message } : undefined),
      // A thread that exits is started again; its connections are gone with it, and the port
      // stays served by the others meanwhile.
      onMessage: (message, worker) => {
        if (message.type === "stopped") worker.terminate();
        else handle(worker, message);
      },
      logger,
      logFields: { thread: index },
    });
  }

  async function stopAll(): Promise<void> {
    await Promise.all(threads.map((thread) => thread.stop((worker) => worker.postMessage({ type: "stop" } satisfies ToThread), STOP_TIMEOUT_MS)));
  }

  metrics.otherThreads = () =>
    Promise.all(
      threads
        .filter((thread) => thread.running)
        .map(
          (thread) =>
            new Promise<RequestSnapshot>((resolve) => {
              const id = nextSnapshot++;
              // A thread that does not answer (stopping, restarting) counts as no requests.
              const timer = setTimeout(() => {
                snapshots.delete(id);
                resolve({ counts: [], durations: [] });
              }, 2_000);
              snapshots.set(id, (requests) => {
                clearTimeout(timer);
                resolve(requests);
              });
              thread.worker.postMessage({ type: "snapshot", id } satisfies ToThread);
            }),
        ),
    );

  const started = await Promise.allSettled(Array.from({ length: config.httpThreads - 1 }, (_, i) => start(i)));
  for (const result of started) if (result.status === "fulfilled") threads.push(result.value);
  const failure = started.find((result) => result.status === "rejected");
  if (failure) {
    await stopAll();
    throw failure.reason;
  }
  return { count: threads.length, stop: stopAll };
}
