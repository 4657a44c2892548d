/**
 * `ogsmith serve`: the HTTP API, dashboard and background worker in one process. Also used by
 * the end-to-end tests, which start the real service on port 0 against a real store.
 */
import { dirname, join } from "node:path";
import { bootstrapFirstAccount } from "./accounts/bootstrap.ts";
import { listenError } from "./cli/listen.ts";
import { selfCommand } from "./cli/self.ts";
import type { Config } from "./config.ts";
import { createApp, type App } from "./app/app.ts";
import { metricsGate } from "./app/gates/index.ts";
import { listen } from "./app/server.ts";
import { Metrics } from "./http/metrics.ts";
import type { Logger } from "./logger.ts";
import { createServiceRenderer, type ServiceRenderer, type ServiceRendererOptions } from "./render/renderer.ts";
import { prepareRendering } from "./render/setup.ts";
import { createServices, type Services, type ServicesOptions } from "./services.ts";
import { type Checkpointer, CommitSignal, startCheckpointer } from "./store/sqlite/checkpointer.ts";
import { JobWorker } from "./worker/index.ts";
import { BatchDrawer } from "./batches/drawer.ts";
import { Elysia } from "elysia";
import { opsModule } from "./modules/ops/index.ts";
import { warmFontInspection } from "./render/fonts/font-inspect.ts";
import { warmTailwind } from "./templates/account/tailwind.ts";
import { warmDashboardAssets } from "./modules/dashboard/assets.ts";

export interface RunningService {
  url: string;
  port: number;
  app: App;
  services: Services;
  /** The service renderer (pool, caches); exposed for tests and metrics. */
  renderer: ServiceRenderer;
  /** The background job loop (deliveries, retries, monthly reset). */
  worker: JobWorker;
  /** Draws batch items in the render pool's background lane. */
  drawer: BatchDrawer;
  /** SQLite: the thread that runs the WAL checkpoints (store/sqlite/checkpointer.ts). */
  checkpointer: Checkpointer | undefined;
  /** The key printed by the first-start bootstrap, when it ran. */
  bootstrapKey: string | undefined;
  /** The owner-only file the first-start bootstrap wrote its key to, when it did. */
  bootstrapKeyFile: string | undefined;
  /** Graceful stop: stop accepting, finish in-flight work, close the database. */
  stop(): Promise<void>;
}

/** Where the first start writes its key (owner-only), next to the SQLite file: the data directory. */
export function firstKeyFile(config: Pick<Config, "dbPath">): string | undefined {
  return config.dbPath === ":memory:" ? undefined : join(dirname(config.dbPath), "ogsmith-initial-api-key");
}

export async function startService(
  config: Config,
  options: {
    logger?: Logger;
    print?: (text: string) => void;
    /** Renderer knobs that are not configuration (queue length, cache size): for tests and the benchmark. */
    renderer?: Pick<ServiceRendererOptions, "pool" | "pngCacheBytes" | "fetch">;
    /** The webhook retry jitter's random source (see createServices); tests pin it. */
    retryRandom?: ServicesOptions["retryRandom"];
    /** The store's lock wait (see createServices); tests widen it. */
    lockWaitMs?: ServicesOptions["lockWaitMs"];
  } = {},
): Promise<RunningService> {
  // A SQLite file leaves its WAL checkpoints to a thread of their own, which counts the commits here.
  const sqliteCommits = !config.databaseUrl && config.dbPath !== ":memory:" ? CommitSignal.create() : undefined;
  const services = await createServices(config, { logger: options.logger, retryRandom: options.retryRandom, sqliteCommits, lockWaitMs: options.lockWaitMs });
  for (const line of config.retired) services.logger.warn(line);
  await services.metering.clearStaleReservations();
  // Units a request could not confirm or release (the store failed under it) come back while
  // the service runs; the test clock's advance reclaims at once.
  services.metering.startReclaiming();
  services.testClock?.onAdvance(() => services.metering.reclaimUnheld().then(() => undefined));

  // Fallback fonts (OG_FONTS_DIR) and templates from disk (OG_TEMPLATES_DIR); broken templates are logged and skipped.
  const { templates } = await prepareRendering({ templatesDir: config.templatesDir, fontsDir: config.fontsDir, logger: services.logger });
  // Images fetched here, rendered images cached here (memory, then OG_CACHE_DIR), rendering itself in OG_RENDER_WORKERS render processes.
  const renderer = createServiceRenderer({
    config,
    logger: services.logger,
    fontBytes: (digests) => services.accountFonts.bytes(digests),
    ...options.renderer,
  });
  // The database exists and is migrated; the checkpoint thread counts from the server's first
  // commit. It opens its own connection on a thread of its own while the app is built here, and
  // is awaited just before listening.
  const checkpointing = sqliteCommits ? startCheckpointer(config.dbPath, sqliteCommits, services.logger) : undefined;
  // Awaited below; until then a failure to start is not an unhandled rejection.
  checkpointing?.catch(() => {});
  const metrics = new Metrics({ processMetrics: true });
  metrics.gauge(
    "ogsmith_render_pool",
    "Render pool: workers (render processes configured), alive, ready, busy, queued, rendered, replaced",
    () => {
      const { workers, alive, ready, busy, queued, rendered, replaced } = renderer.pool.stats;
      return { workers, alive, ready, busy, queued, rendered, replaced };
    },
    "state",
  );
  metrics.gauge("ogsmith_render_processes_alive", "Render processes alive (starting, ready or busy)", () => renderer.pool.stats.alive);
  metrics.gauge("ogsmith_renders_waiting", "Renders waiting for a render process", () => renderer.pool.stats.queued);
  metrics.gauge(
    "ogsmith_render_restarts",
    "Render processes killed or lost during a render since start, by reason (deadline, memory, crash)",
    () => renderer.pool.stats.restarts,
    "reason",
  );
  metrics.gauge("ogsmith_render_engine", "The render engine in use (OG_RENDER_ENGINE): 1 for it", () => ({ [config.renderEngine]: 1 }), "engine");
  if (renderer.diskCache) {
    const disk = renderer.diskCache;
    metrics.gauge(
      "ogsmith_render_disk_cache",
      "Persistent render cache: entries, bytes, max_bytes, hits, misses, corrupt, evicted",
      () => {
        const { entries, bytes, maxBytes, hits, misses, corrupt, evicted } = disk.stats;
        return { entries, bytes, max_bytes: maxBytes, hits, misses, corrupt, evicted };
      },
      "state",
    );
  }
  metrics.gauge("ogsmith_jobs_pending", "Pending jobs (webhook deliveries, emails) by kind", () => services.jobs.pendingByKind().catch(() => ({})));
  const app = createApp({ services, renderer, templates, metrics });
  let checkpointer: Checkpointer | undefined;
  try {
    checkpointer = await checkpointing;
  } catch (error) {
    await renderer.close();
    await services.close();
    throw error;
  }
  // The checkpoint thread's connection closes last, so its final checkpoint takes in every commit.
  const closeStore = async () => {
    try {
      await services.close();
    } finally {
      await checkpointer?.stop();
    }
  };
  if (checkpointer) {
    const wal = checkpointer;
    metrics.gauge(
      "ogsmith_sqlite_wal",
      "SQLite write transactions committed and WAL checkpoints run by the checkpoint thread, since start",
      () => ({ commits: wal.commits, checkpoints: wal.checkpoints }),
      "state",
    );
  }
  let server;
  try {
    // OG_ROLE=worker answers only the operations routes; the API instances take the traffic.
    if (config.role === "worker") server = listenOps(services, metrics, config);
    else server = listen(app, { port: config.port, host: config.host, logger: services.logger });
  } catch (error) {
    await renderer.close();
    await closeStore();
    throw listenError(error, config.host, config.port);
  }
  // Render processes start once the server listens, so their start-up (fonts, engines, a warm-up
  // card each) does not hold up /healthz; a render that arrives first waits for one. The
  // operations-only role renders nothing unless asked.
  if (config.role !== "worker") {
    renderer.start();
    // What start-up leaves out (the process metrics, satori's Tailwind engine for account
    // templates' classes, fontkit for font uploads, the dashboard's gzipped files) is prepared
    // once the render processes are up, one step a macrotask: /healthz does not wait for it, nor
    // does a request after it.
    const startProcessMetrics = () => metrics.startProcessMetrics();
    void renderer.pool.ready().then(
      () => warmInTurn([startProcessMetrics, warmTailwind, warmFontInspection, warmDashboardAssets], services.logger),
      () => {},
    );
  }
  // Several instances: a lease of an instance that hangs while staying connected runs out within
  // 30 s (one that dies loses its PostgreSQL liveness lock and its leases at once).
  const worker = new JobWorker(services, services.store.kind === "postgres" ? { leaseMs: 30_000 } : {});
  // As many items at once as there are background render processes: those draw batches at a
  // lower CPU priority, apart from the processes interactive renders use (pool.ts).
  const drawer = new BatchDrawer(
    { ...services, renderer, templates, baseUrl: config.baseUrl },
    { concurrency: renderer.pool.backgroundSize, ...(services.store.kind === "postgres" ? { leaseMs: 60_000 } : {}) },
  );
  metrics.gauge(
    "ogsmith_batch_items",
    "Batch items drawn by this process since start, and being drawn now",
    () => ({ drawn: drawer.drawn, drawing: drawer.active }),
    "state",
  );
  let boot: Awaited<ReturnType<typeof bootstrapFirstAccount>> | undefined;
  try {
    // Bound first, so a key is never printed by a process that cannot serve it (port taken, bad HOST).
    if (config.bootstrap) {
      boot = await bootstrapFirstAccount(
        services.accounts,
        { print: options.print ?? ((text) => process.stderr.write(text + "\n")), keyFile: firstKeyFile(config) },
        selfCommand(),
        config,
      );
    }
    if (config.role !== "api") {
      await worker.start();
      await drawer.start();
    }
  } catch (error) {
    await server.stop();
    await drawer.stop();
    await worker.stop();
    await renderer.close();
    await closeStore();
    throw error;
  }
  if (!services.mailer.configured) services.logger.warn("SMTP_URL is not set: email alerts are recorded and logged, not sent");

  let stopping: Promise<void> | undefined;
  return {
    url: server.url,
    port: server.port,
    app,
    services,
    renderer,
    worker,
    drawer,
    checkpointer,
    bootstrapKey: boot?.apiKey,
    bootstrapKeyFile: boot?.keyFile,
    stop: () =>
      (stopping ??= (async () => {
        await server.stop();
        await drawer.stop();
        await worker.stop();
        await renderer.close();
        await closeStore();
      })()),
  };
}

/**
 * Runs each step in a macrotask of its own, so requests that arrive meanwhile are answered
 * between them. A step that fails is logged: the request that needs it will load it and answer
 * the error itself.
 */
function warmInTurn(steps: Array<() => void>, logger: Logger): void {
  const [step, ...rest] = steps;
  if (!step) return;
  setTimeout(() => {
    try {
      step();
    } catch (error) {
      logger.warn("preloading after start-up failed", { step: step.name, error: error instanceof Error ? error.message : String(error) });
    }
    warmInTurn(rest, logger);
  }, 0);
}

/** A worker-role instance's HTTP: /healthz, /readyz and /metrics only. */
function listenOps(services: Services, metrics: Metrics, config: Config): { url: string; port: number; stop(): Promise<void> } {
  const app = new Elysia().use(opsModule(services, metrics, metricsGate(config))).listen({ port: config.port, hostname: config.host });
  const port = app.server!.port!;
  return { url: `http://${config.host}:${port}`, port, stop: async () => void (await app.stop()) };
}
