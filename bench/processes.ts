/**
 * Render processes on a many-core machine, from the compiled binary alone: no node_modules, so
 * it runs where only the binary was copied (`BUN_BE_BUN=1 ./ogsmith bench/processes.ts`, the
 * binary acting as Bun).
 *
 *   bun bench/processes.ts [--binary dist/ogsmith] [--workers 1,2,4,8,16] [--seconds 8] [--engines satori,takumi]
 *
 * For each engine and count of render processes it starts `ogsmith serve` on a temp database
 * and prints: start to the first /healthz 200, time until every render process is ready, cold
 * renders per second over HTTP (distinct event cards, 3 in flight per process) and that × one
 * process, p50/p95 latency, and resident memory (the server alone, each render process at rest,
 * and the whole tree at its peak while rendering).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createBenchAccount, startOgsmith } from "./lib/server.ts";

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    binary: { type: "string", default: "dist/ogsmith" },
    workers: { type: "string" },
    seconds: { type: "string", default: "8" },
    engines: { type: "string", default: "satori,takumi" },
  },
});
// Run by the binary acting as Bun (BUN_BE_BUN=1): the servers it starts must be ogsmith again.
delete process.env.BUN_BE_BUN;
const cores = availableParallelism();
const COUNTS = (values.workers ?? [1, 2, 4, 8, 16].filter((n) => n <= cores).join(",")).split(",").map(Number);
const SECONDS = Number(values.seconds);

/** Children of `pid`, from /proc (no pgrep needed). */
function children(pid: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "latin1");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid) found.push(Number(entry));
    } catch {}
  }
  return found;
}

function rssMb(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "latin1"))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

const treeMb = (pid: number) => rssMb(pid) + children(pid).reduce((sum, p) => sum + rssMb(p), 0);

async function ready(url: string): Promise<number | undefined> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith('ogsmith_render_pool{state="ready"}'));
  return line ? Number(line.split(" ")[1]) : undefined;
}

const CARD = {
  template: "event",
  subtitle: "Render processes on many cores",
  date: "May 5, 2027",
  time: "18:30 CEST",
  location: "Berlin",
  speaker_name: "Ada Lovelace",
  theme: "dark",
};

async function run(engine: string, workers: number) {
  const dir = mkdtempSync(join(tmpdir(), "ogsmith-bench-processes-"));
  const server = await startOgsmith(
    dir,
    { OG_RENDER_ENGINE: engine, OG_RENDER_WORKERS: String(workers), OG_METRICS_PUBLIC: "true", OG_CACHE_MAX_BYTES: "0" },
    values.binary,
  );
  try {
    const spawned = performance.now();
    while ((await ready(server.url)) !== workers) await Bun.sleep(20);
    const readyMs = server.startMs + (performance.now() - spawned);
    const key = await createBenchAccount(server.url);
    const post = async (title: string) => {
      const t = performance.now();
      const res = await fetch(`${server.url}/api/generate`, {
        method: "POST",
        headers: { "x-api-key": key, "content-type": "application/json" },
        body: JSON.stringify({ ...CARD, title }),
      });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`generate answered ${res.status}`);
      return performance.now() - t;
    };
    let n = 0;
    // Warm: every process has drawn several cards.
    await Promise.all(
      Array.from({ length: workers * 2 }, async () => {
        for (let i = 0; i < 3; i++) await post(`warm ${n++}`);
      }),
    );
    await Bun.sleep(300);
    const serverMb = rssMb(server.pid);
    const processMb = children(server.pid).map(rssMb);
    let peak = treeMb(server.pid);
    const sampler = setInterval(() => (peak = Math.max(peak, treeMb(server.pid))), 100);
    const latencies: number[] = [];
    const stopAt = performance.now() + SECONDS * 1000;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: workers * 3 }, async () => {
        while (performance.now() < stopAt) latencies.push(await post(`Cold card #${n++}`));
      }),
    );
    const elapsed = (performance.now() - started) / 1000;
    clearInterval(sampler);
    latencies.sort((a, b) => a - b);
    return {
      startMs: server.startMs,
      readyMs,
      rate: latencies.length / elapsed,
      p50: latencies[Math.floor(latencies.length / 2)]!,
      p95: latencies[Math.floor(latencies.length * 0.95)]!,
      serverMb,
      processMb,
      peak,
    };
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(`bench/processes.ts: ${cores} cores, ${values.binary}, ${SECONDS} s of cold renders per row, event card 1200×630, 3 in flight per process\n`);
for (const engine of values.engines!.split(",")) {
  console.log(`\n${engine}:\n`);
  console.log(
    "| render processes | start → /healthz ms | all ready ms | images/s | × 1 process | p50 ms | p95 ms | server idle MB | each process idle MB | tree peak MB |",
  );
  console.log("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
  let one: number | undefined;
  for (const workers of COUNTS) {
    const r = await run(engine, workers);
    one ??= r.rate / workers;
    console.log(
      `| ${workers} | ${r.startMs.toFixed(0)} | ${r.readyMs.toFixed(0)} | ${r.rate.toFixed(1)} | ${(r.rate / one).toFixed(2)} | ${r.p50.toFixed(0)} | ${r.p95.toFixed(0)} | ${r.serverMb.toFixed(0)} | ${Math.min(...r.processMb).toFixed(0)}–${Math.max(...r.processMb).toFixed(0)} | ${r.peak.toFixed(0)} |`,
    );
  }
}
process.exit(0);
