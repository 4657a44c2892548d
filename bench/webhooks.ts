/**
 * Webhook delivery benchmark: event-to-first-attempt latency and sustained deliveries
 * per second to a loopback receiver, with 1 and with 50 webhooks. Events go through the real
 * path — outbox row, fan-out to jobs in the same transaction, commit, worker — on a real SQLite
 * file. The receiver is a separate process on 127.0.0.1.
 *
 *   bun run bench:webhooks            (targets: median ≤ 20 ms, ≥ 1,000 deliveries/s)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/config.ts";
import { recordEvents as record } from "../src/events/fan-out.ts";
import { silentLogger } from "../src/logger.ts";
import { createServices, type Services } from "../src/services.ts";
import { JobWorker } from "../src/worker/index.ts";

const LATENCY_EVENTS = Number(process.env.BENCH_LATENCY_EVENTS ?? 300);
const THROUGHPUT_DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 10_000);
const SECRET = "bench-secret-0123456789abcdef";

interface Arrival {
  eventId: string;
  at: number;
}

/**
 * The receiver runs in its own process (as a real endpoint would), answers 204 at once and
 * reports each arrival on stdout as "<webhook-id> <epoch ms, sub-ms precision>".
 */
const RECEIVER_SOURCE = `
const out = Bun.stdout.writer();
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    const at = performance.timeOrigin + performance.now();
    await request.arrayBuffer();
    out.write(request.headers.get("webhook-id") + " " + at + "\\n");
    out.flush();
    return new Response(null, { status: 204 });
  },
});
out.write("port " + server.port + "\\n");
out.flush();
`;

async function startReceiver() {
  const proc = Bun.spawn(["bun", "--eval", RECEIVER_SOURCE], { stdout: "pipe", stderr: "inherit" });
  const arrivals: Arrival[] = [];
  let waiter: { count: number; resolve: () => void } | undefined;
  const { promise: ready, resolve: port } = Promise.withResolvers<number>();
  void (async () => {
    const decoder = new TextDecoder();
    let buffered = "";
    for await (const chunk of proc.stdout) {
      buffered += decoder.decode(chunk, { stream: true });
      for (let newline = buffered.indexOf("\n"); newline !== -1; newline = buffered.indexOf("\n")) {
        const [a, b] = buffered.slice(0, newline).split(" ");
        buffered = buffered.slice(newline + 1);
        if (a === "port") port(Number(b));
        else arrivals.push({ eventId: a!, at: Number(b) - performance.timeOrigin });
      }
      if (waiter && arrivals.length >= waiter.count) {
        waiter.resolve();
        waiter = undefined;
      }
    }
  })();
  const url = `http://127.0.0.1:${await ready}/hook`;
  return {
    url,
    arrivals,
    until(count: number, timeoutMs = 60_000): Promise<void> {
      if (arrivals.length >= count) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`only ${arrivals.length}/${count} deliveries after ${timeoutMs} ms`)), timeoutMs);
        waiter = {
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        };
      });
    },
    stop: () => proc.kill(),
  };
}

/** Accounts holding `webhooks` endpoints between them (at most 20 per account). */
async function setup(services: Services, webhooks: number, url: string): Promise<string[]> {
  const accountIds: string[] = [];
  for (let left = webhooks; left > 0; left -= 20) {
    const { account } = await services.accounts.create({ email: `bench${accountIds.length}@example.com`, plan: "publishing" });
    accountIds.push(account.id);
    for (let i = 0; i < Math.min(20, left); i++) await services.webhooks.create(account.id, { url, events: ["image.generated"], secret: SECRET });
  }
  return accountIds;
}

/** Records `n` `image.generated` events per account (one transaction per account), fanned out as a generation's are. */
async function recordEvents(services: Services, accountIds: string[], n: number): Promise<string[]> {
  const ids: string[] = [];
  for (const accountId of accountIds) {
    const now = services.clock.now();
    const drafts = Array.from({ length: n }, (_, i) =>
      services.outbox.draft(
        accountId,
        "image.generated",
        { request_id: `req_bench${i}`, template: "event", dimensions: { width: 1200, height: 630 }, generation_time_ms: 42 },
        now,
      ),
    );
    // The store tells the job worker that the deliveries are queued (Store.onJobsAvailable).
    for (const event of await services.store.transact((tx) => record(tx, accountId, drafts, now))) ids.push(event.id);
  }
  return ids;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

async function scenario(webhooks: number) {
  const dir = mkdtempSync(join(tmpdir(), "ogsmith-bench-"));
  const config = loadConfig({ OG_DB_PATH: join(dir, "bench.db"), OG_ALLOW_PRIVATE_NETWORKS: "1", OG_BOOTSTRAP: "false", OG_LOG_LEVEL: "silent" });
  const services = await createServices(config, { logger: silentLogger });
  const worker = new JobWorker(services);
  await worker.start();
  const receiver = await startReceiver();
  try {
    const accountIds = await setup(services, webhooks, receiver.url);

    // Warm-up: connections, prepared statements, JIT.
    await recordEvents(services, accountIds, 20);
    await receiver.until(20 * webhooks);

    // Latency: one event per account at a time (fanned out to every webhook), from just before
    // the transaction to the arrival of each delivery at the receiver.
    const latencies: number[] = [];
    for (let i = 0; i < LATENCY_EVENTS; i++) {
      const before = receiver.arrivals.length;
      const started = performance.now();
      await recordEvents(services, accountIds, 1);
      await receiver.until(before + webhooks);
      for (const a of receiver.arrivals.slice(before)) latencies.push(a.at - started);
    }
    latencies.sort((a, b) => a - b);

    // Throughput: a backlog of deliveries committed at once, drained by the worker.
    const eventsPerAccount = Math.ceil(THROUGHPUT_DELIVERIES / webhooks);
    const before = receiver.arrivals.length;
    const total = eventsPerAccount * webhooks;
    // Timed from the commit: writing the events is the producers' cost (one per generation), not delivery's.
    await recordEvents(services, accountIds, eventsPerAccount);
    const started = performance.now();
    await receiver.until(before + total, 120_000);
    await worker.runner.runDue(); // every attempt settled in the database, not just received
    const seconds = (performance.now() - started) / 1000;

    return {
      webhooks,
      median: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      samples: latencies.length,
      deliveries: total,
      perSecond: total / seconds,
    };
  } finally {
    await worker.stop();
    receiver.stop();
    await services.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const rows = [];
for (const webhooks of [1, 50]) rows.push(await scenario(webhooks));

const fmt = (n: number, digits = 1) => n.toFixed(digits);
console.log(`\nWebhook delivery, loopback receiver (Bun ${Bun.version}, ${process.platform}/${process.arch})\n`);
console.log("| webhooks | first attempt median | first attempt p99 | samples | deliveries | deliveries/s |");
console.log("|---:|---:|---:|---:|---:|---:|");
for (const r of rows) {
  console.log(`| ${r.webhooks} | ${fmt(r.median, 2)} ms | ${fmt(r.p99, 2)} ms | ${r.samples} | ${r.deliveries} | ${fmt(r.perSecond, 0)} |`);
}
const ok = rows.every((r) => r.median <= 20 && r.perSecond >= 1000);
console.log(`\nTargets (median ≤ 20 ms, ≥ 1,000 deliveries/s): ${ok ? "met" : "NOT met"}`);
