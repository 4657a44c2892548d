/** Prometheus metrics (prom-client), one registry per app so tests and servers don't share counters. */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

export class Metrics {
  readonly registry = new Registry();
  readonly requests = new Counter({
    name: "ogsmith_http_requests_total",
    help: "HTTP requests by method, route and status",
    labelNames: ["method", "route", "status"] as const,
    registers: [this.registry],
  });
  readonly duration = new Histogram({
    name: "ogsmith_http_request_duration_seconds",
    help: "HTTP request duration",
    labelNames: ["route"] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });

  constructor(options: { processMetrics?: boolean } = {}) {
    if (options.processMetrics) collectDefaultMetrics({ register: this.registry, prefix: "ogsmith_" });
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

  /** Label children by method, route and status: prom-client hashes the label object on every call otherwise. */
  private readonly children = new Map<string, { requests: { inc(): void }; duration: { observe(value: number): void } }>();

  observe(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${route} ${status}`;
    let child = this.children.get(key);
    if (!child) {
      child = { requests: this.requests.labels(method, route, String(status)), duration: this.duration.labels(route) };
      this.children.set(key, child);
    }
    child.requests.inc();
    child.duration.observe(seconds);
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }
}
