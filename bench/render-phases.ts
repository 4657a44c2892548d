/**
 * Where one render's time goes, phase by phase, in this thread and in a worker thread, and what
 * the render pool adds on top (message passing, the worker's memory upkeep).
 *
 *   bun bench/render-phases.ts [--renders 40]
 *
 * Prints, from one run:
 *   1. the median of each phase of renderTemplateToPng's pipeline (template → satori → resvg
 *      parse → rasterize → pixels → unpremultiply → encode), plus resvg's own asPng() and the
 *      cost of a young (Bun.gc(false)) and a full (Bun.gc(true)) collection, in-process and
 *      inside a Worker;
 *   2. renders through the real RenderPool (src/render/sandbox/pool.ts, one worker): the round trip per
 *      image against the time the worker reports for rendering; the difference is the pool's
 *      own cost (posting the job and the PNG, the worker's GC policy, event-loop turns). Run
 *      sequentially (latency) and with 3 jobs in flight (throughput, p95/median);
 *   3. the RSS the pool's process holds after those renders.
 */
import { parseArgs } from "node:util";
import { silentLogger } from "../src/logger.ts";
import { RenderPool } from "../src/render/sandbox/pool.ts";
import { markdownTable, quantile } from "./lib/load.ts";
import { CARD, measurePhases, PHASES, type PhaseRun } from "./lib/phases.ts";

const { values: args } = parseArgs({ options: { renders: { type: "string", default: "40" } } });
const RENDERS = Number(args.renders);
const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : "–");

async function inWorker(count: number): Promise<PhaseRun> {
  const worker = new Worker(new URL("./lib/phases-worker.ts", import.meta.url));
  try {
    return await new Promise<PhaseRun>((resolve, reject) => {
      worker.onmessage = (event: MessageEvent<PhaseRun>) => resolve(event.data);
      worker.onerror = (event) => reject(new Error(event.message));
      worker.postMessage({ count });
    });
  } finally {
    worker.terminate();
  }
}

interface PoolRun {
  label: string;
  perSecond: number;
  median: number;
  p95: number;
  /** Median of what the worker reports for satori + rasterize + encode. */
  workerMs: number;
  rssMb: number;
}

async function throughPool(label: string, inFlight: number, options: { gcEvery?: number } = {}): Promise<PoolRun> {
  const pool = new RenderPool({ workers: 1, logger: silentLogger, ...options });
  try {
    await pool.ready();
    const job = (i: number) => ({
      template: "event",
      theme: (i % 2 ? "light" : "dark") as "light" | "dark",
      fields: { ...CARD, title: `${CARD.title} ${label} #${i}` },
      images: {},
      width: 1200,
      height: 630,
    });
    for (let i = 0; i < 5; i++) await pool.render(job(-1 - i));
    const latencies: number[] = [];
    const worker: number[] = [];
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (next < RENDERS) {
          const i = next++;
          const t = performance.now();
          const { timings } = await pool.render(job(i));
          latencies.push(performance.now() - t);
          worker.push(timings.satoriMs + timings.rasterizeMs + timings.encodeMs);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    worker.sort((a, b) => a - b);
    return {
      label,
      perSecond: RENDERS / seconds,
      median: quantile(latencies, 0.5),
      p95: quantile(latencies, 0.95),
      workerMs: quantile(worker, 0.5),
      rssMb: process.memoryUsage.rss() / 1024 / 1024,
    };
  } finally {
    await pool.close();
  }
}

console.log(`bench:render-phases — ${new Date().toISOString().slice(0, 10)}, bun ${Bun.version}, ${RENDERS} renders per row, 1200×630 event card\n`);

// Workers first, so the worker's numbers are not taken in a process whose heap the in-process run already grew.
const worker = await inWorker(RENDERS);
const main = await measurePhases(RENDERS);
const sum = (run: PhaseRun, phases: readonly (typeof PHASES)[number][]) => phases.reduce((s, p) => s + run.medians[p], 0);
const PIPELINE = ["template → tree", "satori layout + SVG", "resvg parse", "resvg rasterize", "pixels to JS", "unpremultiply", "encodePng (ours)"] as const;
console.log("1. Phases, median ms (one thread each)\n");
console.log(
  markdownTable(
    ["phase", "in-process", "in a worker", "worker / in-process"],
    [
      ...PHASES.map((p) => [p, fmt(main.medians[p], 2), fmt(worker.medians[p], 2), fmt(worker.medians[p] / main.medians[p], 2)]),
      [
        "**our pipeline (template … encodePng)**",
        fmt(sum(main, PIPELINE), 2),
        fmt(sum(worker, PIPELINE), 2),
        fmt(sum(worker, PIPELINE) / sum(main, PIPELINE), 2),
      ],
    ],
  ),
);

const rows: PoolRun[] = [];
rows.push(await throughPool("default, sequential", 1));
rows.push(await throughPool("default, 3 in flight", 3));
rows.push(await throughPool("no GC, sequential", 1, { gcEvery: 0 }));
rows.push(await throughPool("no GC, 3 in flight", 3, { gcEvery: 0 }));
console.log("\n2. Through the RenderPool, one worker (default GC policy vs none)\n");
console.log(
  markdownTable(
    ["pool", "images/s", "round trip median ms", "p95 ms", "p95/median", "worker renders ms", "pool overhead ms (sequential)", "RSS MB"],
    // With jobs in flight the round trip includes waiting behind the others, so no overhead there.
    rows.map((r) => [
      r.label,
      fmt(r.perSecond),
      fmt(r.median),
      fmt(r.p95),
      fmt(r.p95 / r.median, 2),
      fmt(r.workerMs),
      r.label.endsWith("sequential") ? fmt(r.median - r.workerMs) : "",
      fmt(r.rssMb, 0),
    ]),
  ),
);
console.log(
  `\nin-process stock rate for comparison (satori + resvg asPng, from table 1): ${fmt(1000 / sum(main, ["template → tree", "satori layout + SVG", "resvg parse", "resvg rasterize", "asPng (resvg's)"]))} img/s`,
);
process.exit(0);
