/**
 * What the render sandbox costs: the service with render processes (this tree) against the same
 * service with render worker threads (the commit before the sandbox, checked out beside it), in
 * one run, alternating, on both engines.
 *
 *   bun bench/sandbox.ts [--against REV] [--renders N] [--rounds N]
 *
 * Per engine and tree it measures:
 *   - start to the first /healthz 200 (the server's start, render processes starting behind it);
 *   - cold renders per second: N distinct event cards over HTTP at concurrency 2 × workers;
 *   - that cache hits never reach a render process (the pool's `rendered` count before and after
 *     a burst of one repeated body; this tree only);
 *   - idle resident memory of each render process once warm (this tree), and of the whole
 *     process tree (both).
 * REV defaults to the last commit that ran renders in worker threads. The other checkout uses
 * this tree's node_modules, so both draw with the same libraries.
 */
import { existsSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { CARD } from "./lib/phases.ts";
import { createBenchAccount, rssMb, startOgsmith, type ChildServer } from "./lib/server.ts";

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    against: { type: "string", default: "a725352" },
    renders: { type: "string", default: "300" },
    rounds: { type: "string", default: "2" },
    workers: { type: "string" },
  },
});
const RENDERS = Number(values.renders);
const ROUNDS = Number(values.rounds);
const WORKERS = Number(values.workers ?? availableParallelism());
const REPO = join(import.meta.dir, "..");

function checkout(rev: string): string {
  const dir = mkdtempSync(join(tmpdir(), "ogsmith-baseline-"));
  const add = Bun.spawnSync(["git", "-C", REPO, "worktree", "add", "--detach", dir, rev], { stderr: "pipe" });
  if (add.exitCode !== 0) throw new Error(`git worktree add ${rev}: ${add.stderr.toString()}`);
  symlinkSync(join(REPO, "node_modules"), join(dir, "node_modules"));
  return dir;
}

function children(pid: number): number[] {
  return Bun.spawnSync(["pgrep", "-P", String(pid)])
    .stdout.toString()
    .split("\n")
    .map(Number)
    .filter((n) => n > 0);
}

async function poolRendered(url: string): Promise<number | undefined> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith('ogsmith_render_pool{state="rendered"}'));
  return line ? Number(line.split(" ")[1]) : undefined;
}

async function post(url: string, key: string, body: unknown): Promise<number> {
  const res = await fetch(`${url}/api/generate`, {
    method: "POST",
    headers: { "x-api-key": key, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  await res.arrayBuffer();
  return res.status;
}

/** `count` requests at `concurrency`; every answer must be a 200. Images per second. */
async function rate(url: string, key: string, count: number, concurrency: number, body: (i: number) => unknown): Promise<number> {
  let next = 0;
  let failed = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) if ((await post(url, key, body(next++))) !== 200) failed++;
    }),
  );
  if (failed) throw new Error(`${failed} of ${count} requests failed`);
  return count / ((performance.now() - started) / 1000);
}

interface Sample {
  startMs: number;
  coldPerS: number;
  treeIdleMb: number;
  processIdleMb: number[];
  hitsTouchedPool: number | undefined;
}

async function measure(engine: string, root: string, round: number): Promise<Sample> {
  const dir = mkdtempSync(join(tmpdir(), "ogsmith-bench-sandbox-"));
  let server: ChildServer | undefined;
  try {
    server = await startOgsmith(
      dir,
      { OG_RENDER_ENGINE: engine, OG_RENDER_WORKERS: String(WORKERS), OG_METRICS_PUBLIC: "true", OG_CACHE_MAX_BYTES: "0" },
      undefined,
      root,
    );
    const key = await createBenchAccount(server.url);
    // Warm: every worker has drawn, the JIT has seen the path.
    await rate(server.url, key, WORKERS * 8, WORKERS * 2, (i) => ({ ...CARD, title: `warm ${round} ${i}` }));
    await Bun.sleep(500);
    const pids = children(server.pid);
    const processIdleMb = pids.map(rssMb);
    const treeIdleMb = rssMb(server.pid) + processIdleMb.reduce((a, b) => a + b, 0);
    const coldPerS = await rate(server.url, key, RENDERS, WORKERS * 2, (i) => ({ ...CARD, title: `${CARD.title} ${engine} ${round} #${i}` }));
    const before = await poolRendered(server.url);
    await rate(server.url, key, 500, WORKERS * 2, () => ({ ...CARD, title: `${CARD.title} ${engine} ${round} #0` }));
    const after = await poolRendered(server.url);
    return {
      startMs: server.startMs,
      coldPerS,
      treeIdleMb,
      processIdleMb,
      hitsTouchedPool: before === undefined || after === undefined ? undefined : after - before,
    };
  } finally {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main() {
  const baseline = checkout(values.against!);
  try {
    console.log(
      `bench/sandbox.ts on ${availableParallelism()} cores, bun ${Bun.version}; ${WORKERS} render workers; ${RENDERS} cold renders a run, ${ROUNDS} rounds alternating; baseline ${values.against} (worker threads)\n`,
    );
    console.log(
      "| engine | renders in | start → /healthz ms | cold renders/s | × threads | tree idle MB | each render process idle MB | cache hits that reached a render |",
    );
    console.log("|---|---|---:|---:|---:|---:|---:|---:|");
    for (const engine of ["satori", "takumi"]) {
      const runs: Record<"threads" | "processes", Sample[]> = { threads: [], processes: [] };
      for (let round = 0; round < ROUNDS; round++) {
        // Alternate which goes first: a noisy box then biases neither.
        const order = round % 2 === 0 ? (["threads", "processes"] as const) : (["processes", "threads"] as const);
        for (const kind of order) runs[kind].push(await measure(engine, kind === "threads" ? baseline : REPO, round));
      }
      const threadsRate = median(runs.threads.map((s) => s.coldPerS));
      for (const kind of ["threads", "processes"] as const) {
        const samples = runs[kind];
        const perProcess = samples.flatMap((s) => s.processIdleMb);
        const touched = samples.map((s) => s.hitsTouchedPool);
        console.log(
          `| ${engine} | ${kind} | ${median(samples.map((s) => s.startMs)).toFixed(0)} | ${median(samples.map((s) => s.coldPerS)).toFixed(1)} | ${(median(samples.map((s) => s.coldPerS)) / threadsRate).toFixed(2)} | ${median(samples.map((s) => s.treeIdleMb)).toFixed(0)} | ${perProcess.length ? `${Math.min(...perProcess).toFixed(0)}–${Math.max(...perProcess).toFixed(0)}` : "–"} | ${kind === "processes" ? touched.join(", ") : "–"} |`,
        );
      }
    }
  } finally {
    Bun.spawnSync(["git", "-C", REPO, "worktree", "remove", "--force", baseline]);
    if (existsSync(baseline)) rmSync(baseline, { recursive: true, force: true });
  }
}

await main();
process.exit(0);
