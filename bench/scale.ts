/**
 * Scaling benchmark: how the service's throughput, latency and memory grow with cores.
 *
 *   bun run bench:scale [--seconds 10] [--workers 1,2,4,8,16] [--connections 64] [--clients N]
 *                       [--sections paths,baseline,renders,startup,endurance]   (default: the first four)
 *                       [--endurance-renders 10000] [--endurance-workers N]
 *   BUN_BE_BUN=1 ./ogsmith run bench/scale.ts        (with the compiled binary, no Bun installed)
 *
 * One run prints, each beside a baseline measured in the same run with the same load client:
 *   1. request paths at 64 connections: a bare Bun.serve hello-world (the client's ceiling),
 *      GET /healthz, authenticated GET /api/user/usage, and a cached POST /api/generate
 *      (one repeated body: every request is a cache hit that still counts one unit), each with
 *      the server's CPU time per request (from /proc: steadier than req/s where the client and
 *      the server share a few cores), on a fresh server;
 *   2. the in-process single-thread render baseline on the same card: stock satori +
 *      resvg-js `asPng()`, and our in-process pipeline;
 *   3. cold renders over HTTP (every title distinct) with 1, 2, 4, … render workers up to the
 *      core count: images/s, per worker, scaling against one worker, median and p95 latency,
 *      peak RSS and RSS per worker;
 *   4. start-up: spawn to the first 200 from /healthz;
 *   5. (only with `--sections …,endurance`: it takes minutes) memory over many distinct renders:
 *      one server with `--endurance-workers` workers (default: the core count, at least 6 and at
 *      most 16: what each further worker adds is projected from the difference to a one-worker
 *      server, and over a single further worker that difference is mostly noise; more workers
 *      than cores still each hold a render in flight, so their memory is real)
 *      renders `--endurance-renders` distinct cards; RSS is printed every tenth of the run, with
 *      the peak and the RSS at rest once the renders are over, both projected to 16 workers
 *      where fewer ran.
 * and then each target with its verdict. The load client runs in `--clients` separate processes
 * (default: a quarter of the cores, at least 1) so that it is not the bottleneck; each client
 * process uses its own API key, so no key's rate limit caps a path.
 *
 * Set OG_BENCH_BINARY=dist/ogsmith to measure the compiled binary instead of `bun src/main.ts`.
 */
import { Resvg } from "@resvg/resvg-js";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import satori from "satori";
import { layoutSize } from "../src/render/engines/engine.ts";
import { renderTemplateToPng } from "../src/render/engines/in-process.ts";
import { loadAdditionalAsset } from "../src/render/fonts/emoji.ts";
import { loadFonts } from "../src/render/fonts/fonts.ts";
import { createTemplateRegistry } from "../src/templates/registry.ts";
import type { SatoriNode } from "../src/templates/types.ts";
import { markdownTable, measure, median, quantile, type Measured } from "./lib/load.ts";
import { CARD } from "./lib/phases.ts";
import { ADMIN_TOKEN, builtBinary, cpuSeconds, createBenchAccount, RssSampler, rssMb, startHelloWorld, startOgsmith, type ChildServer } from "./lib/server.ts";

const cores = availableParallelism();
const { values: args } = parseArgs({
  options: {
    seconds: { type: "string", default: "10" },
    workers: { type: "string" },
    connections: { type: "string", default: "64" },
    clients: { type: "string" },
    baseline: { type: "string", default: "40" },
    sections: { type: "string", default: "paths,baseline,renders,startup" },
    "endurance-renders": { type: "string", default: "10000" },
    "endurance-workers": { type: "string" },
  },
});
const SECTIONS = new Set(args.sections.split(","));
const SECONDS = Number(args.seconds);
const CONNECTIONS = Number(args.connections);
const CLIENTS = Number(args.clients ?? Math.max(1, Math.floor(cores / 4)));
const BASELINE_RENDERS = Number(args.baseline);
const ENDURANCE_RENDERS = Number(args["endurance-renders"]);
const ENDURANCE_WORKERS = Number(args["endurance-workers"] ?? Math.min(Math.max(cores, 6), 16));
const WORKER_COUNTS = args.workers
  ? args.workers.split(",").map(Number)
  : [...new Set([...Array.from({ length: Math.floor(Math.log2(cores)) + 1 }, (_, i) => 2 ** i), cores])].sort((a, b) => a - b);

const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : "–");
const verdict = (ok: boolean) => (ok ? "met" : "MISSED");
const errorsOf = (m: Measured) => {
  const list = Object.entries(m.errors).map(([k, v]) => `${v}× ${k}`);
  return list.length ? list.join(", ") : "";
};

async function withServer<T>(
  env: Record<string, string>,
  run: (server: ChildServer, dir: string) => Promise<T>,
  binary = process.env.OG_BENCH_BINARY,
): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), "ogsmith-scale-"));
  const server = await startOgsmith(dir, env, binary);
  try {
    return await run(server, dir);
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function keysFor(url: string, count: number): Promise<string[]> {
  return Promise.all(Array.from({ length: count }, () => createBenchAccount(url)));
}

/**
 * The processor and whether its logical CPUs are hardware threads sharing cores: per-worker
 * render rates fall once workers outnumber physical cores, so the tables need this beside them.
 */
function cpuTopology(): string {
  try {
    const info = readFileSync("/proc/cpuinfo", "utf8");
    const field = (name: string) => new RegExp(`^${name}\\s*:\\s*(.+)$`, "m").exec(info)?.[1]?.trim();
    const siblings = Number(field("siblings"));
    const coresPerSocket = Number(field("cpu cores"));
    const threads = siblings && coresPerSocket ? `${siblings / coresPerSocket} hardware thread(s) per core` : "threads per core unknown";
    return `${field("model name") ?? "unknown model"}, ${cores} logical CPUs, ${threads}`;
  } catch {
    return `${cores} logical CPUs (no /proc/cpuinfo)`;
  }
}

// 1. ----------------------------------------------------------------------------------------------
/** A path's load result and the server's CPU time per answered request over it (µs, all its threads). */
type PathMeasured = Measured & { serverCpuUs: number };

async function withServerCpu(pid: number, run: () => Promise<Measured>): Promise<PathMeasured> {
  const before = cpuSeconds(pid);
  const measured = await run();
  return { ...measured, serverCpuUs: ((cpuSeconds(pid) - before) * 1e6) / Math.max(1, measured.ok) };
}

async function requestPaths() {
  const hello = await startHelloWorld();
  let helloRate: PathMeasured;
  try {
    helloRate = await withServerCpu(hello.pid, () => measure({ url: hello.url + "/", seconds: SECONDS }, CONNECTIONS, CLIENTS));
  } finally {
    await hello.stop();
  }
  return { hello: helloRate, server: await serverPaths() };
}

interface ServerPaths {
  healthz: PathMeasured;
  usage: PathMeasured;
  cached: PathMeasured;
  /** SQLite write transactions per counted cached image (NaN: the server does not report them). */
  commitsPerImage: number;
}

/** The server's SQLite commits so far, from /metrics (`ogsmith_sqlite_wal`); NaN when absent. */
async function sqliteCommits(url: string): Promise<number> {
  const text = await (await fetch(url + "/metrics", { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).text();
  return Number(/ogsmith_sqlite_wal\{state="commits"\} (\d+)/.exec(text)?.[1] ?? NaN);
}

/** The server's paths, on a fresh server and database. */
function serverPaths(): Promise<ServerPaths> {
  return withServer({}, async (server) => {
    // Several keys per client process, spread over its connections: a key's rate limit
    // (10,000 per second at most) must not be the ceiling of the path being measured.
    const KEYS_PER_CLIENT = 8;
    const keys = await keysFor(server.url, CLIENTS * KEYS_PER_CLIENT);
    const keyHeaders = (p: number) => keys.slice(p * KEYS_PER_CLIENT, (p + 1) * KEYS_PER_CLIENT).map((key) => ({ "x-api-key": key }));
    const healthz = await withServerCpu(server.pid, () => measure({ url: server.url + "/healthz", seconds: SECONDS }, CONNECTIONS, CLIENTS));
    const usage = await withServerCpu(server.pid, () =>
      measure((p) => ({ url: server.url + "/api/user/usage", connectionHeaders: keyHeaders(p), seconds: SECONDS }), CONNECTIONS, CLIENTS),
    );
    const body = JSON.stringify(CARD);
    // Warm the cache with one render per key's account (the cache is shared; one suffices).
    await fetch(server.url + "/api/generate", { method: "POST", headers: { "x-api-key": keys[0]!, "content-type": "application/json" }, body });
    const commitsBefore = await sqliteCommits(server.url);
    const cached = await withServerCpu(server.pid, () =>
      measure(
        (p) => ({
          url: server.url + "/api/generate",
          method: "POST",
          headers: { "content-type": "application/json" },
          connectionHeaders: keyHeaders(p),
          body,
          seconds: SECONDS,
        }),
        CONNECTIONS,
        CLIENTS,
      ),
    );
    const commitsPerImage = ((await sqliteCommits(server.url)) - commitsBefore) / Math.max(1, cached.ok);
    return { healthz, usage, cached, commitsPerImage };
  });
}

// 2. ----------------------------------------------------------------------------------------------
async function inProcessBaselines() {
  const template = createTemplateRegistry().get("event")!;
  const fonts = await loadFonts();
  const fields = (i: number) => ({ ...CARD, title: `${CARD.title} #${i}` });
  const run = async (renderOne: (i: number) => Promise<unknown>) => {
    for (let i = 0; i < 5; i++) await renderOne(-1 - i);
    Bun.gc(true);
    const latencies: number[] = [];
    const started = performance.now();
    for (let i = 0; i < BASELINE_RENDERS; i++) {
      const t = performance.now();
      await renderOne(i);
      latencies.push(performance.now() - t);
    }
    latencies.sort((a, b) => a - b);
    return { perSecond: BASELINE_RENDERS / ((performance.now() - started) / 1000), median: quantile(latencies, 0.5), p95: quantile(latencies, 0.95) };
  };
  const stock = await run(async (i) => {
    const logical = layoutSize(1200, 630);
    const tree = template.render(fields(i), { ...logical, theme: "dark", images: {} });
    const svg = await satori(tree as SatoriNode as Parameters<typeof satori>[0], { ...logical, fonts, loadAdditionalAsset });
    return new Resvg(svg, { font: { loadSystemFonts: false }, fitTo: { mode: "original" } }).render().asPng();
  });
  const ours = await run((i) => renderTemplateToPng(template, fields(i), { width: 1200, height: 630, theme: "dark", images: {} }));
  return { stock, ours };
}

// 3. ----------------------------------------------------------------------------------------------
interface WorkerRow {
  workers: number;
  cold: Measured;
  idleRss: number;
  peakRss: number;
}

async function coldRenders(workers: number): Promise<WorkerRow> {
  return withServer({ OG_RENDER_WORKERS: String(workers) }, async (server) => {
    const keys = await keysFor(server.url, CLIENTS);
    const body = JSON.stringify({ ...CARD, title: `${CARD.title} #{i}` });
    // Warm every worker: fonts parsed, JIT warm.
    await measure(
      {
        url: server.url + "/api/generate",
        method: "POST",
        headers: { "x-api-key": keys[0]!, "content-type": "application/json" },
        body: body.replace("#{i}", "warm-{i}"),
        seconds: 2,
      },
      workers * 2,
      1,
    );
    Bun.gc(true);
    const idleRss = rssMb(server.pid);
    const sampler = new RssSampler(server.pid, 100);
    // Enough requests in flight to keep every worker busy, not so many that the queue answers 503.
    const inFlight = Math.max(2, workers * 3);
    // One client process: a few hundred requests a second need no more, and every extra process
    // would take a core from the render workers being measured.
    const cold = await measure(
      { url: server.url + "/api/generate", method: "POST", headers: { "x-api-key": keys[0]!, "content-type": "application/json" }, body, seconds: SECONDS },
      inFlight,
      1,
    );
    sampler.stop();
    return { workers, cold, idleRss, peakRss: Math.max(sampler.peak, sampler.sample()) };
  });
}

// 4. ----------------------------------------------------------------------------------------------
/** What ships is the compiled binary: start-up is measured on it when it has been built. */
const STARTUP_BINARY = builtBinary();

async function startUp(): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < 5; i++) times.push(await withServer({ OG_RENDER_WORKERS: "1" }, async (server) => server.startMs, STARTUP_BINARY));
  return times.sort((a, b) => a - b);
}

// 5. ----------------------------------------------------------------------------------------------
interface Endurance {
  workers: number;
  renders: number;
  seconds: number;
  failures: number;
  /** RSS (MB) after the warm-up, then after each tenth of the renders. */
  samples: { done: number; rssMb: number }[];
  peakRss: number;
  /** RSS once the renders are over and the server has been idle for a few seconds. */
  restRss: number;
  /** Peak RSS of the same server with one worker under the same load (up to 1,000 renders). */
  oneWorkerRss: number;
  /** That one-worker server's RSS at rest after its renders. */
  oneWorkerRestRss: number;
}

async function endurance(): Promise<Endurance> {
  // The server's cost without its extra workers: the peak of one worker under the same load,
  // long enough to fill the in-memory PNG cache (24 MiB ≈ 400 cards) as the long run does.
  const one = await rendersWithMemory(1, Math.min(ENDURANCE_RENDERS, 1000));
  const many = await rendersWithMemory(ENDURANCE_WORKERS, ENDURANCE_RENDERS);
  return { ...many, oneWorkerRss: one.peakRss, oneWorkerRestRss: one.restRss };
}

/** `renders` distinct cold renders on a server with `workers` workers, 3 × workers in flight, RSS sampled. */
async function rendersWithMemory(workers: number, renders: number): Promise<Omit<Endurance, "oneWorkerRss" | "oneWorkerRestRss">> {
  return withServer({ OG_RENDER_WORKERS: String(workers) }, async (server) => {
    const key = await createBenchAccount(server.url);
    const inFlight = workers * 3;
    let failures = 0;
    const run = async (count: number, tag: string, onDone?: (done: number) => void) => {
      let issued = 0;
      let done = 0;
      await Promise.all(
        Array.from({ length: inFlight }, async () => {
          while (issued < count) {
            if (!(await renderDistinct(server.url, key, `${tag}-${issued++}`))) failures++;
            onDone?.(++done);
          }
        }),
      );
    };
    await run(workers * 10, "warm");
    const samples = [{ done: 0, rssMb: rssMb(server.pid) }];
    const sampler = new RssSampler(server.pid, 200);
    const started = performance.now();
    const tenth = Math.max(1, Math.floor(renders / 10));
    await run(renders, "run", (done) => {
      if (done % tenth === 0) samples.push({ done, rssMb: sampler.sample() });
    });
    const seconds = (performance.now() - started) / 1000;
    sampler.stop();
    return { workers, renders, seconds, failures, samples, peakRss: sampler.peak, restRss: await restingRss(server.pid) };
  });
}

/**
 * The RSS of an idle server: after the last answer each worker still runs its upkeep and the
 * allocators return freed pages after a delay, so take the lowest of ten samples over 5 s.
 */
async function restingRss(pid: number): Promise<number> {
  let lowest = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 10; i++) {
    await Bun.sleep(500);
    lowest = Math.min(lowest, rssMb(pid));
  }
  return lowest;
}

/** One cold render of a card no earlier request drew; true when it came back as a PNG. */
async function renderDistinct(url: string, key: string, tag: string): Promise<boolean> {
  const res = await fetch(`${url}/api/generate`, {
    method: "POST",
    headers: { "x-api-key": key, "content-type": "application/json" },
    body: JSON.stringify({ ...CARD, title: `${CARD.title} ${tag}` }),
  });
  const bytes = await res.arrayBuffer();
  return res.status === 200 && bytes.byteLength > 0;
}

function printEndurance(e: Endurance) {
  console.log(`\n5. Memory over ${e.renders} distinct renders, ${e.workers} workers (${fmt(e.renders / e.seconds)} img/s, ${e.failures} failed)\n`);
  console.log(
    markdownTable(
      ["renders done", "RSS MB"],
      e.samples.map((s) => [s.done === 0 ? "after warm-up" : s.done, fmt(s.rssMb, 0)]),
    ),
  );
  const perWorker = (e.peakRss - e.oneWorkerRss) / Math.max(1, e.workers - 1);
  const perWorkerAtRest = (e.restRss - e.oneWorkerRestRss) / Math.max(1, e.workers - 1);
  console.log(`peak ${fmt(e.peakRss, 0)} MB; one worker's peak ${fmt(e.oneWorkerRss, 0)} MB; ${fmt(perWorker, 0)} MB per further worker at the peak`);
  console.log(
    `at rest after the renders ${fmt(e.restRss, 0)} MB; one worker's ${fmt(e.oneWorkerRestRss, 0)} MB; ${fmt(perWorkerAtRest, 0)} MB per further worker at rest`,
  );
}

/**
 * The 16-worker figure, at the peak or at rest after the renders: measured when 16 ran, else
 * the server with one worker plus 15 × what each further worker added.
 */
function enduranceAt16(e: Endurance, when: "peak" | "rest"): { mb: number; measured: boolean } {
  const [many, one] = when === "peak" ? [e.peakRss, e.oneWorkerRss] : [e.restRss, e.oneWorkerRestRss];
  if (e.workers >= 16) return { mb: many, measured: true };
  const perWorker = (many - one) / Math.max(1, e.workers - 1);
  return { mb: one + 15 * perWorker, measured: false };
}

async function main() {
  const what = process.env.OG_BENCH_BINARY ? `binary ${process.env.OG_BENCH_BINARY}` : "bun src/main.ts";
  console.log(
    `bench:scale — ${new Date().toISOString().slice(0, 10)}, ${cores} cores, bun ${Bun.version}, ${what}; ${SECONDS} s per row, ${CLIENTS} client process(es)`,
  );
  console.log(`CPU: ${cpuTopology()}\n`);

  const paths = SECTIONS.has("paths") ? await requestPaths() : undefined;
  if (paths) printPaths(paths);
  const base = SECTIONS.has("baseline") ? await inProcessBaselines() : undefined;
  if (base) printBaselines(base);
  const rows: WorkerRow[] = [];
  if (SECTIONS.has("renders")) for (const workers of WORKER_COUNTS) rows.push(await coldRenders(workers));
  if (rows.length) printRenders(rows);
  const starts = SECTIONS.has("startup") ? await startUp() : [];
  const lasting = SECTIONS.has("endurance") ? await endurance() : undefined;
  if (starts.length)
    console.log(
      `\n4. Start-up to the first 200 (5 starts, ${STARTUP_BINARY ?? "from source: `bun run build` to measure the binary"}): median ${fmt(quantile(starts, 0.5), 0)} ms, min ${fmt(starts[0]!, 0)} ms, max ${fmt(starts.at(-1)!, 0)} ms`,
    );
  if (lasting) printEndurance(lasting);
  printTargets(paths, base, rows, starts, lasting);
}

type Paths = Awaited<ReturnType<typeof requestPaths>>;
type Baselines = Awaited<ReturnType<typeof inProcessBaselines>>;

function printPaths(paths: Paths) {
  const row = (label: string, m: PathMeasured, share: string) => [
    label,
    fmt(m.perSecond, 0),
    share,
    fmt(m.median, 2),
    fmt(m.p99, 2),
    fmt(m.serverCpuUs, 0),
    errorsOf(m),
  ];
  const pct = (m: Measured) => `${fmt((100 * m.perSecond) / paths.hello.perSecond)} %`;
  const t = paths.server;
  console.log(`1. Request paths, ${CONNECTIONS} connections\n`);
  // Server CPU per request does not depend on how much of the machine the load client takes,
  // so it compares runs on a small, noisy machine better than requests per second do.
  console.log(
    markdownTable(
      ["path", "req/s", "of hello-world", "median ms", "p99 ms", "server CPU µs per request", "errors"],
      [
        row("Bun.serve hello-world (ceiling)", paths.hello, "100 %"),
        row("GET /healthz", t.healthz, pct(t.healthz)),
        row("GET /api/user/usage (authenticated)", t.usage, pct(t.usage)),
        row("POST /api/generate, cached (counts each)", t.cached, pct(t.cached)),
      ],
    ),
  );
  // One is the floor: the counting transaction. More means something else writes per image.
  console.log(`\ncached POST: ${fmt(t.commitsPerImage, 3)} SQLite commits per image`);
}

function printBaselines(base: Baselines) {
  console.log(`\n2. In-process, single thread, same card (${BASELINE_RENDERS} renders each)\n`);
  console.log(
    markdownTable(
      ["pipeline", "images/s", "median ms", "p95 ms"],
      [
        ["stock satori + resvg-js asPng() (baseline)", fmt(base.stock.perSecond), fmt(base.stock.median), fmt(base.stock.p95)],
        ["ours (renderTemplateToPng)", fmt(base.ours.perSecond), fmt(base.ours.median), fmt(base.ours.p95)],
      ],
    ),
  );
}

function printRenders(rows: WorkerRow[]) {
  const one = rows.find((r) => r.workers === 1) ?? rows[0]!;
  console.log(`\n3. Cold renders over HTTP (distinct titles), in flight = 3 × workers\n`);
  console.log(
    markdownTable(
      ["workers", "images/s", "per worker", "× 1 worker", "median ms", "p95 ms", "p95/median", "idle RSS MB", "peak RSS MB", "MB per worker", "errors"],
      rows.map((r) => [
        r.workers,
        fmt(r.cold.perSecond),
        fmt(r.cold.perSecond / r.workers),
        fmt(r.cold.perSecond / one.cold.perSecond, 2),
        fmt(r.cold.median),
        fmt(r.cold.p95),
        fmt(r.cold.p95 / r.cold.median, 2),
        fmt(r.idleRss, 0),
        fmt(r.peakRss, 0),
        fmt(r.workers > 1 ? (r.peakRss - one.peakRss) / (r.workers - 1) : r.peakRss, 0),
        errorsOf(r.cold),
      ]),
    ),
  );
}

/** Each target with its verdict, for the sections that ran. */
function printTargets(paths: Paths | undefined, base: Baselines | undefined, rows: WorkerRow[], starts: number[], lasting?: Endurance) {
  const lines: string[] = [];
  if (paths) {
    const { usage, cached } = paths.server;
    const usageShare = usage.perSecond / paths.hello.perSecond;
    lines.push(
      `authenticated usage ≥ 40 % of hello-world:    ${fmt(100 * usageShare)} %  ${verdict(usageShare >= 0.4)}`,
      `authenticated usage p99 ≤ 5 ms:                ${fmt(usage.p99, 2)} ms  ${verdict(usage.p99 <= 5)}`,
      `cached POST ≥ 5,000 img/s (16-core machine):   ${fmt(cached.perSecond, 0)} img/s  ${cores >= 16 ? verdict(cached.perSecond >= 5000) : `(${cores} cores: not judged)`}`,
    );
  }
  if (rows.length) {
    const one = rows.find((r) => r.workers === 1) ?? rows[0]!;
    const top = rows.at(-1)!;
    const perWorkerTop = top.cold.perSecond / top.workers;
    const perWorkerMb = top.workers > 1 ? (top.peakRss - one.peakRss) / (top.workers - 1) : top.peakRss;
    if (base)
      lines.push(
        `per worker ≥ stock in-process rate:            ${fmt(perWorkerTop)} vs ${fmt(base.stock.perSecond)} img/s at ${top.workers} workers  ${verdict(perWorkerTop >= base.stock.perSecond)}`,
      );
    lines.push(
      `${top.workers} workers ≥ ${top.workers >= 16 ? "12×" : `${fmt(top.workers * 0.75, 1)}× (75 %)`} one worker:            ${fmt(top.cold.perSecond / one.cold.perSecond, 2)}×  ${verdict(top.cold.perSecond / one.cold.perSecond >= top.workers * 0.75)}`,
      `p95 ≤ 2× median at saturation:                 ${fmt(top.cold.p95 / top.cold.median, 2)}  ${verdict(top.cold.p95 <= 2 * top.cold.median)}`,
      `≤ 60 MB RSS per render worker:                 ${fmt(perWorkerMb, 0)} MB  ${verdict(perWorkerMb <= 60)}`,
    );
  }
  if (lasting) {
    const at16 = enduranceAt16(lasting, "peak");
    const at16Rest = enduranceAt16(lasting, "rest");
    // Single samples swing with collection timing: the medians of the first and last three tenths.
    const during = lasting.samples.slice(1).map((s) => s.rssMb);
    const first = median(during.slice(0, 3));
    const last = median(during.slice(-3));
    lines.push(
      `≤ 1.2 GB, 16 workers, ${lasting.renders} renders:       ${fmt(at16.mb, 0)} MB at the peak ${at16.measured ? "" : `(projected from ${lasting.workers} workers) `} ${verdict(at16.mb <= 1200)}`,
      `  the same, at rest after the renders:         ${fmt(at16Rest.mb, 0)} MB ${at16Rest.measured ? "" : "(projected) "} ${verdict(at16Rest.mb <= 1200)}`,
      `RSS flat over the renders (last ≤ 1.1 × first): ${fmt(last, 0)} vs ${fmt(first, 0)} MB (medians of three tenths)  ${verdict(during.length >= 6 && last <= 1.1 * first)}`,
    );
  }
  if (starts.length) lines.push(`start-up to first 200 ≤ 150 ms:                ${fmt(quantile(starts, 0.5), 0)} ms  ${verdict(quantile(starts, 0.5) <= 150)}`);
  console.log(`\ntargets:\n${lines.map((l) => `  ${l}`).join("\n")}`);
}

await main();
process.exit(0);
