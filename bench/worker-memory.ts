/**
 * What one more render worker costs in memory, stage by stage of its life, and how the JIT and
 * the native allocator's settings change the cost of a worker that has rendered.
 *
 *   bun bench/worker-memory.ts [--workers 2] [--renders 40]
 *
 * Each row runs in a fresh process: one throwaway worker first goes through the same stage (so
 * what a process pays once, such as the binary's code pages, stays out of the figure), then
 * `--workers` more do, side by side; the row is the RSS they added, per worker, 300 ms after the
 * last reported. The renders use the pool worker's memory upkeep (src/render/sandbox/worker-memory.ts)
 * and a full collection before the report, so what remains is not JS garbage. The peak columns
 * are the most those workers added while they worked (RSS sampled every 10 ms): over their
 * whole life, and (rendering rows) once every one of them had finished its warm-up render.
 * The time columns are the render itself (median) and the upkeep after it (mean, since a full
 * collection is rare by default and long when it comes), so what a collection saves in memory
 * can be set against what it costs in time.
 * The variant rows set a JavaScriptCore option or a mimalloc option for the whole process, the
 * only way either can be set (Bun and resvg-js each link their own mimalloc, and both read the
 * MIMALLOC_ variables at start; `process.env` changed later reaches neither), or run the upkeep
 * with a full collection more often.
 */
import { parseArgs } from "node:util";
import { markdownTable, median } from "./lib/load.ts";
import { layoutModule } from "../src/render/engines/layout-wasm.ts";
import type { StageReply, StageRequest, StageWarmed } from "./lib/memory-stage-worker.ts";

const { values: args } = parseArgs({
  options: {
    workers: { type: "string", default: "2" },
    renders: { type: "string", default: "40" },
    child: { type: "string" },
    "full-every": { type: "string", default: "32" },
  },
});
const WORKERS = Number(args.workers);
const RENDERS = Number(args.renders);

const STAGES = [
  "an empty worker",
  "+ satori imported (layout engine instantiated)",
  "+ resvg-js imported",
  "+ fonts and templates loaded",
  "+ one warm-up render (a pool worker when ready)",
  `+ ${RENDERS} distinct renders`,
  `warm-up, then ${RENDERS} layouts only (satori)`,
  `warm-up, then ${RENDERS} rasterizations only (resvg-js, one SVG)`,
];

const VARIANTS: { label: string; env?: Record<string, string>; fullEvery?: number }[] = [
  { label: "no optimizing JIT (BUN_JSC_useDFGJIT=0)", env: { BUN_JSC_useDFGJIT: "0" } },
  { label: "no JIT at all (BUN_JSC_useJIT=0)", env: { BUN_JSC_useJIT: "0" } },
  { label: "freed pages returned at once (MIMALLOC_PURGE_DELAY=0)", env: { MIMALLOC_PURGE_DELAY: "0" } },
  { label: "a full collection every 4th render", fullEvery: 4 },
  { label: "a full collection after every render", fullEvery: 1 },
];

interface Row {
  perWorkerMb: number;
  peakPerWorkerMb: number;
  /** The peak after every worker's warm-up (rendering rows only). */
  peakRenderingPerWorkerMb?: number;
  heapMb: number;
  msPerRender?: number;
  upkeepMs?: number;
}

const rssMb = () => process.memoryUsage().rss / 1e6;

function runWorker(stage: number, fullEvery: number, onWarmed = () => {}): { worker: Worker; reply: Promise<StageReply> } {
  const worker = new Worker(new URL("./lib/memory-stage-worker.ts", import.meta.url));
  const reply = new Promise<StageReply>((resolve, reject) => {
    worker.onmessage = (event: MessageEvent<StageReply | StageWarmed>) => {
      if ("warmed" in event.data) onWarmed();
      else resolve(event.data);
    };
    worker.onerror = (event) => reject(new Error(event.message));
  });
  void layoutModule().then((layout) => worker.postMessage({ stage, renders: RENDERS, fullEvery, layout } satisfies StageRequest));
  return { worker, reply };
}

/** The child process: one row. */
async function child(stage: number, fullEvery: number): Promise<Row> {
  await runWorker(stage, fullEvery).reply;
  await Bun.sleep(300);
  const before = rssMb();
  let peak = before;
  let warmed = 0;
  let peakRendering: number | undefined;
  // This thread only waits while the workers run, so the sampler gets its turns.
  const sampler = setInterval(() => {
    const now = rssMb();
    peak = Math.max(peak, now);
    if (warmed === WORKERS) peakRendering = Math.max(peakRendering ?? 0, now);
  }, 10);
  const replies = await Promise.all(Array.from({ length: WORKERS }, () => runWorker(stage, fullEvery, () => warmed++).reply));
  clearInterval(sampler);
  await Bun.sleep(300);
  const perWorkerMb = (rssMb() - before) / WORKERS;
  const peakPerWorkerMb = (peak - before) / WORKERS;
  const peakRenderingPerWorkerMb = peakRendering === undefined ? undefined : (peakRendering - before) / WORKERS;
  const times = replies.flatMap((r) => (r.msPerRender === undefined ? [] : [r.msPerRender]));
  const upkeep = replies.flatMap((r) => (r.upkeepMs === undefined ? [] : [r.upkeepMs]));
  return {
    perWorkerMb,
    peakPerWorkerMb,
    peakRenderingPerWorkerMb,
    heapMb: median(replies.map((r) => r.heapMb)),
    msPerRender: times.length ? median(times) : undefined,
    upkeepMs: upkeep.length ? median(upkeep) : undefined,
  };
}

async function row(stage: number, env: Record<string, string> = {}, fullEvery = 32): Promise<Row> {
  const argv = ["--child", String(stage), "--workers", String(WORKERS), "--renders", String(RENDERS), "--full-every", String(fullEvery)];
  const proc = Bun.spawn(["bun", import.meta.path, ...argv], {
    env: { ...process.env, ...env },
    stdout: "pipe",
    stderr: "inherit",
  });
  const out = await new Response(proc.stdout).text();
  if ((await proc.exited) !== 0) throw new Error(`stage ${stage} failed`);
  return JSON.parse(out) as Row;
}

const fmt = (n: number | undefined, digits = 1) => (n === undefined ? "" : n.toFixed(digits));

async function main() {
  console.log(
    `bench:worker-memory — ${new Date().toISOString().slice(0, 10)}, bun ${Bun.version}; ${WORKERS} further workers per row, ${RENDERS} renders where a row renders\n`,
  );
  const rows: (string | number)[][] = [];
  for (const [stage, label] of STAGES.entries()) {
    const r = await row(stage);
    rows.push([label, fmt(r.perWorkerMb), fmt(r.peakPerWorkerMb), fmt(r.peakRenderingPerWorkerMb), fmt(r.heapMb), fmt(r.msPerRender), fmt(r.upkeepMs, 2)]);
  }
  for (const variant of VARIANTS) {
    const r = await row(5, variant.env, variant.fullEvery);
    rows.push([
      `${STAGES[5]}, ${variant.label}`,
      fmt(r.perWorkerMb),
      fmt(r.peakPerWorkerMb),
      fmt(r.peakRenderingPerWorkerMb),
      fmt(r.heapMb),
      fmt(r.msPerRender),
      fmt(r.upkeepMs, 2),
    ]);
  }
  const columns = [
    "a further worker after…",
    "RSS MB per worker",
    "peak MB per worker",
    "peak after the warm-up",
    "its JS heap MB",
    "ms per render (median)",
    "upkeep ms per render (mean)",
  ];
  console.log(markdownTable(columns, rows));
}

if (args.child !== undefined) {
  console.log(JSON.stringify(await child(Number(args.child), Number(args["full-every"]))));
  process.exit(0);
} else {
  await main();
}
