/**
 * One extra HTTP thread of `ogsmith serve` (OG_HTTP_THREADS > 1): the same app as the main
 * thread's, on the same port (SO_REUSEPORT: the kernel spreads connections over the threads),
 * with a store connection of its own. What must be one per server stays on the main thread and
 * is reached by message (thread-protocol.ts): the render pool and persistent cache, the job
 * worker, the metrics a scrape reports. The per-key rate limit is shared memory
 * (metering/shared-rate-limit.ts), or Redis when configured.
 *
 * Under `bun build --compile` this file must be an extra entrypoint of the build
 * (scripts/build.ts), like the render worker.
 */
import { apiErrorFrom } from "../errors.ts";
import { createLogger } from "../logger.ts";
import { createRenderFront, type ProducedImage, type RenderBackend } from "../render/renderer.ts";
import type { RenderJob } from "../render/pool.ts";
import { prepareRendering } from "../render/setup.ts";
import { createServices, type Services } from "../services.ts";
import { createApp } from "./app.ts";
import { Metrics } from "./metrics.ts";
import { listen, type RunningServer } from "./server.ts";
import type { FromThread, ToThread } from "./thread-protocol.ts";
import { threadPngCacheBytes } from "./threads.ts";

declare const self: Worker;

const send = (message: FromThread) => self.postMessage(message);

/** Replies the main thread owes this one, by request id. */
const waiting = new Map<number, { resolve(value: never): void; reject(error: Error): void }>();
let nextId = 1;

function ask<T>(message: (id: number) => FromThread): Promise<T> {
  const id = nextId++;
  return new Promise<T>((resolve, reject) => {
    waiting.set(id, { resolve: resolve as (value: never) => void, reject });
    send(message(id));
  });
}

function settle(id: number, value: unknown, error: Error | undefined): void {
  const pending = waiting.get(id);
  if (!pending) return;
  waiting.delete(id);
  if (error) pending.reject(error);
  else pending.resolve(value as never);
}

/** The main thread's backend, by message. Memory-cache hits are reported once a second at most. */
function remoteBackend(): RenderBackend {
  const used = new Set<string>();
  let flush: ReturnType<typeof setTimeout> | undefined;
  return {
    produce: (key: string, job: RenderJob) => ask<ProducedImage>((id) => ({ type: "produce", id, key, job })),
    used(key) {
      used.add(key);
      flush ??= setTimeout(() => {
        flush = undefined;
        send({ type: "used", keys: [...used] });
        used.clear();
      }, 1000);
      flush.unref?.();
    },
  };
}

/** Counts and scrapes go to the main thread, which reports for the whole server. */
class ThreadMetrics extends Metrics {
  override countStoreUnavailable(reason: string): void {
    send({ type: "store-unavailable", reason });
  }

  override render(): Promise<string> {
    return ask<string>((id) => ({ type: "scrape", id }));
  }
}

let running: { server: RunningServer; services: Services; metrics: Metrics } | undefined;

async function start(init: Extract<ToThread, { type: "init" }>): Promise<void> {
  const { config } = init;
  const logger = createLogger(config.logLevel);
  const services = await createServices(config, { logger, shared: init.shared });
  try {
    // Jobs this thread's store committed (it says so only then) are run by the job worker on the
    // main thread. One message per turn of the event loop, however many commits it held.
    let told = false;
    services.jobs.onEnqueued(() => {
      if (told) return;
      told = true;
      queueMicrotask(() => {
        told = false;
        send({ type: "jobs" });
      });
    });
    const { templates } = await prepareRendering({ templatesDir: config.templatesDir, fontsDir: config.fontsDir, logger });
    const renderer = createRenderFront({
      backend: remoteBackend(),
      logger,
      allowPrivateNetworks: config.allowPrivateNetworks,
      pngCacheBytes: threadPngCacheBytes(config),
      engine: config.renderEngine,
    });
    const metrics = new ThreadMetrics();
    const app = createApp({ services, renderer, templates, metrics });
    const server = listen(app, { port: init.port, host: config.host, logger, reusePort: true });
    running = { server, services, metrics };
    send({ type: "listening" });
  } catch (error) {
    await services.close().catch(() => {});
    throw error;
  }
}

async function stop(): Promise<void> {
  if (running) {
    await running.server.stop();
    await running.services.close();
  }
  send({ type: "stopped" });
}

self.onmessage = (event: MessageEvent<ToThread>) => {
  const message = event.data;
  switch (message.type) {
    case "init":
      start(message).catch((error) => send({ type: "failed", message: error instanceof Error ? error.message : String(error) }));
      return;
    case "produced":
      settle(message.id, message.image, message.error && (apiErrorFrom(message.error) ?? new Error(message.error.message)));
      return;
    case "scraped":
      settle(message.id, message.text, message.error === undefined ? undefined : new Error(message.error));
      return;
    case "snapshot":
      send({ type: "snapshot", id: message.id, requests: running?.metrics.requestSnapshot() ?? { counts: [], durations: [] } });
      return;
    case "stop":
      void stop();
      return;
  }
};
