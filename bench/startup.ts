/**
 * Start-up to the first 200 from /healthz, alone (the same measurement as bench/scale.ts
 * section 4, without the rest): `bun bench/startup.ts [--runs 7] [--workers 1]`.
 * Beside it, the same spawn of a bare `Bun.serve` hello-world: the floor this machine sets.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { quantile } from "./lib/load.ts";
import { startHelloWorld, startOgsmith } from "./lib/server.ts";

const { values: args } = parseArgs({ options: { runs: { type: "string", default: "7" }, workers: { type: "string", default: "1" } } });
const RUNS = Number(args.runs);
const ogsmith: number[] = [];
const hello: number[] = [];
for (let i = 0; i < RUNS; i++) {
  // Interleaved, so a load spike on the machine hits both columns alike.
  const h = await startHelloWorld();
  hello.push(h.startMs);
  await h.stop();
  const dir = mkdtempSync(join(tmpdir(), "ogsmith-startup-"));
  const server = await startOgsmith(dir, { OG_RENDER_WORKERS: args.workers });
  ogsmith.push(server.startMs);
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
ogsmith.sort((a, b) => a - b);
hello.sort((a, b) => a - b);
const row = (name: string, xs: number[]) => `| ${name} | ${quantile(xs, 0.5).toFixed(0)} | ${xs[0]!.toFixed(0)} | ${xs.at(-1)!.toFixed(0)} |`;
console.log(`start-up to the first 200, ${RUNS} runs each, OG_RENDER_WORKERS=${args.workers}\n`);
console.log("| process | median ms | min ms | max ms |\n| --- | ---: | ---: | ---: |");
console.log(row("bare Bun.serve hello-world (floor)", hello));
console.log(row(process.env.OG_BENCH_BINARY ? `ogsmith binary serve` : "bun src/main.ts serve", ogsmith));
process.exit(0);
