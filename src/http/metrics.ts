/**
 * Prometheus metrics, one registry per app so tests and servers don't share counters: prom-client
 * for everything but the two per-request families, which are kept by hand (request-metrics.ts).
 */
import { Counter, Gauge, Registry, collectDefaultMetrics } from "prom-client";
import { RequestMetrics } from "./request-metrics.ts";

export class Metrics {
  readonly registry = new Registry();
  private readonly requests = new RequestMetrics();

  private processMetrics: "off" | "pending" | "on";

  /**
   * `processMetrics`: prom-client's process and runtime families (CPU, memory, event-loop lag,
   * GC). Registering them sets up their observers, a few milliseconds the server's start does not
   * wait for: they start at `startProcessMetrics()` (serve.ts calls it once the server is up) or
   * at the first scrape, whichever comes first.
   */
  constructor(options: { processMetrics?: boolean } = {}) {
    this.processMetrics = options.processMetrics ? "pending" : "off";
  }

  /** Registers the process metrics, if this registry has them and they are not registered yet. */
  startProcessMetrics(): void {
    if (this.processMetrics !== "pending") return;
    this.processMetrics = "on";
    collectDefaultMetrics({ register: this.registry, prefix: "ogsmith_" });
  }

  /**
   * Gauges read at scrape time from a live source (the render pool, the job table), so the
   * numbers are current without any bookkeeping on the hot path.
   */
  gauge(name: string, help: string, read: () => Record<string, number> | number | Promise<Record<string, number> | number>, labelName = "kind"): void {
    new Gauge({
      name,
      help,
      labelNames: [labelName],
      registers: [this.registry],
      async collect() {
        const value = await read();
        if (typeof value === "number") this.set(value);
        else for (const [label, n] of Object.entries(value)) this.set({ [labelName]: label }, n);
      },
    });
  }

  /** Requests answered 503 because the store could not take them (disk full, locked, unreachable). */
  readonly storeUnavailable = new Counter({
    name: "ogsmith_store_unavailable_total",
    help: "Requests refused with 503 SERVICE_UNAVAILABLE because the store could not take the work, by reason",
    labelNames: ["reason"] as const,
    registers: [this.registry],
  });

  /** A request refused because the store could not take it (see `storeUnavailable`). */
  countStoreUnavailable(reason: string): void {
    this.storeUnavailable.inc({ reason });
  }

  /** One answered request: counted by method, route and status, timed by route. */
  observe(method: string, route: string, status: number, seconds: number): void {
    this.requests.observe(method, route, status, seconds);
  }

  async render(): Promise<string> {
    this.startProcessMetrics();
    return `${this.requests.render()}\n${await this.registry.metrics()}`;
  }
}
