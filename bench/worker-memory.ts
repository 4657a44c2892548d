/**
 * What one more render worker costs in memory, stage by stage of its life, and how the JIT and
 * the native allocator's settings change the cost of a worker that has rendered.
 *
 *   bun bench/worker-memory.ts [--workers 2] [--renders 40]
 *
 * Each row runs in a fresh process: one throwaway worker first goes through the same stage (so
 * what a process pays once, such as the binary's code pages, stays out of the figure), then
 * `--workers` more do, side by side; the row is the RSS they added, per worker, 300 ms after the
 * last reported. The renders use the pool worker's memory upkeep (src/render/worker-memory.ts)
 * and a full collection before the report, so what remains is not JS garbage.
 * The variant rows set a JavaScriptCore option or a mimalloc option (resvg-js links its own
 * mimalloc) for the whole process, the only way either can be set.
 */
import { parseArgs } from "node:util";
import { markdownTable } from "./lib/load.ts";
import type { StageReply, StageRequest } from "./lib/memory-stage-worker.ts";

const { values: args } = parseArgs({
  options: {
    workers: { type: "string", default: "2" },
    renders: { type: "string", default: "40" },
    child: { type: "string" },
  },
});
const WORKERS = Number(args.workers);
const RENDERS = Number(args.renders);

const STAGES = [
  "an empty worker",
  "+ satori imported",
  "+ resvg-js imported",
  "+ fonts and templates loaded",
  "+ one warm-up render (a pool worker when ready)",
  `+ ${RENDERS} distinct renders`,
  `warm-up, then ${RENDERS} layouts only (satori)`,
  `warm-up, then ${RENDERS} rasterizations only (resvg-js, one SVG)`,
];

const VARIANTS: { label: string; env: Record<string, string> }[] = [
  { label: "no optimizing JIT (BUN_JSC_useDFGJIT=0)", env: { BUN_JSC_useDFGJIT: "0" } },
  { label: "no JIT at all (BUN_JSC_useJIT=0)", env: { BUN_JSC_useJIT: "0" } },
  { label: "freed pages returned at once (MIMALLOC_PURGE_DELAY=0)", env: { MIMALLOC_PURGE_DELAY: "0" } },
];

interface Row {
  perWorkerMb: number;
  heapMb: number;
  msPerRender?: number;
}

const rssMb = () => process.memoryUsage().rss / 1e6;

function runWorker(stage: number): { worker: Worker; reply: Promise<StageReply> } {
  const worker = new Worker(new URL("./lib/memory-stage-worker.ts", import.meta.url));
  const reply = new Promise<StageReply>((resolve, reject) => {
    worker.onmessage = (event: MessageEvent<StageReply>) => resolve(event.data);
    worker.onerror = (event) => reject(new Error(event.message));
  });
  const request: StageRequest = { stage, renders: RENDERS };
  worker.postMessage(request);
  return { worker, reply };
}

/** The child process: one row. */
async function child(stage: number): Promise<Row> {
  await runWorker(stage).reply;
  await Bun.sleep(300);
  const before = rssMb();
  const replies = await Promise.all(Array.from({ length: WORKERS }, () => runWorker(stage).reply));
  await Bun.sleep(300);
  const perWorkerMb = (rssMb() - before) / WORKERS;
  const median = (values: number[]) => values.sort((a, b) => a - b)[values.length >> 1]!;
  const times = replies.flatMap((r) => (r.msPerRender === undefined ? [] : [r.msPerRender]));
  return { perWorkerMb, heapMb: median(replies.map((r) => r.heapMb)), msPerRender: times.length ? median(times) : undefined };
}

async function row(stage: number, env: Record<string, string> = {}): Promise<Row> {
  const proc = Bun.spawn(["bun", import.meta.path, "--child", String(stage), "--workers", String(WORKERS), "--renders", String(RENDERS)], {
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
  console.log(`bench:worker-memory — ${new Date().toISOString().slice(0, 10)}, bun ${Bun.version}; ${WORKERS} further workers per row, ${RENDERS} renders where a row renders\n`);
  const rows: (string | number)[][] = [];
  for (const [stage, label] of STAGES.entries()) {
    const r = await row(stage);
    rows.push([label, fmt(r.perWorkerMb), fmt(r.heapMb), fmt(r.msPerRender)]);
  }
  for (const variant of VARIANTS) {
    const r = await row(5, variant.env);
    rows.push([`${STAGES[5]}, ${variant.label}`, fmt(r.perWorkerMb), fmt(r.heapMb), fmt(r.msPerRender)]);
  }
  console.log(markdownTable(["a further worker after…", "RSS MB per worker", "its JS heap MB", "ms per render (median)"], rows));
}

if (args.child !== undefined) {
  console.log(JSON.stringify(await child(Number(args.child))));
  process.exit(0);
} else {
  await main();
}
