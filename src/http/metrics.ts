/**
 * Prometheus metrics, one registry per app so tests and servers don't share counters: prom-client
 * for everything but the two per-request families, which are kept by hand (request-metrics.ts).
 *
 * prom-client itself (with the tracing API and digest code it brings) is loaded when the registry
 * is first needed: at the first scrape, or at `startProcessMetrics()`, which serve.ts calls once
 * the server is up. Until then gauges are kept as their definitions and the one counter as a
 * count by label, both handed to the registry when it is made, so a scrape reads the same.
 */
import type * as PromClient from "prom-client";
import { RequestMetrics } from "./request-metrics.ts";

interface GaugeDefinition {
  name: string;
  help: string;
  read: () => Record<string, number> | number | Promise<Record<string, number> | number>;
  labelName: string;
}

interface Registered {
  registry: PromClient.Registry;
  storeUnavailable: PromClient.Counter<"reason">;
}

export class Metrics {
  private readonly requests = new RequestMetrics();
  private readonly gauges: GaugeDefinition[] = [];
  /** Store-unavailable refusals counted before the registry was made, by reason. */
  private readonly unavailableBefore = new Map<string, number>();
  private registered: Registered | undefined;
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

  /** The registry, made (and prom-client loaded) on first use, with every gauge defined so far. */
  private registry(): Registered {
    if (this.registered) return this.registered;
    const { Counter, Registry } = require("prom-client") as typeof PromClient;
    const registry = new Registry();
    const storeUnavailable = new Counter({
      name: "ogsmith_store_unavailable_total",
      help: "Requests refused with 503 because the store could not take the work, by reason (busy: SERVER_BUSY; unreachable, disk_full, io_error: SERVICE_UNAVAILABLE)",
      labelNames: ["reason"] as const,
      registers: [registry],
    });
    for (const [reason, n] of this.unavailableBefore) storeUnavailable.inc({ reason }, n);
    this.unavailableBefore.clear();
    this.registered = { registry, storeUnavailable };
    for (const definition of this.gauges.splice(0)) this.register(definition);
    return this.registered;
  }

  private register({ name, help, read, labelName }: GaugeDefinition): void {
    const { Gauge } = require("prom-client") as typeof PromClient;
    new Gauge({
      name,
      help,
      labelNames: [labelName],
      registers: [this.registered!.registry],
      async collect() {
        const value = await read();
        if (typeof value === "number") this.set(value);
        else for (const [label, n] of Object.entries(value)) this.set({ [labelName]: label }, n);
      },
    });
  }

  /** Registers the process metrics, if this registry has them and they are not registered yet. */
  startProcessMetrics(): void {
    if (this.processMetrics !== "pending") return;
    this.processMetrics = "on";
    const { collectDefaultMetrics } = require("prom-client") as typeof PromClient;
    collectDefaultMetrics({ register: this.registry().registry, prefix: "ogsmith_" });
  }

  /**
   * Gauges read at scrape time from a live source (the render pool, the job table), so the
   * numbers are current without any bookkeeping on the hot path.
   */
  gauge(name: string, help: string, read: GaugeDefinition["read"], labelName = "kind"): void {
    const definition = { name, help, read, labelName };
    if (this.registered) this.register(definition);
    else this.gauges.push(definition);
  }

  /** A request refused with 503 because the store could not take it (busy, disk full, I/O error, unreachable), by reason. */
  countStoreUnavailable(reason: string): void {
    if (this.registered) this.registered.storeUnavailable.inc({ reason });
    else this.unavailableBefore.set(reason, (this.unavailableBefore.get(reason) ?? 0) + 1);
  }

  /** One answered request: counted by method, route and status, timed by route. */
  observe(method: string, route: string, status: number, seconds: number): void {
    this.requests.observe(method, route, status, seconds);
  }

  async render(): Promise<string> {
    this.startProcessMetrics();
    return `${this.requests.render()}\n${await this.registry().registry.metrics()}`;
  }
}
