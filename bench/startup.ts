/**
 * Start-up to the first 200 from /healthz, alone (the same measurement as bench/scale.ts
 * section 4, without the rest): `bun bench/startup.ts [--runs 7] [--workers 1]`.
 * Beside it, the same spawn of a bare `Bun.serve` hello-world: the floor this machine sets.
 * Measures `bun src/main.ts serve` and, when it has been built (`bun run build`), the compiled
 * binary dist/ogsmith (or OG_BENCH_BINARY): what is shipped, with its modules as bytecode.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { quantile } from "./lib/load.ts";
import { builtBinary, startHelloWorld, startOgsmith } from "./lib/server.ts";

const { values: args } = parseArgs({ options: { runs: { type: "string", default: "7" }, workers: { type: "string", default: "1" } } });
const RUNS = Number(args.runs);
const binary = builtBinary();
const hello: number[] = [];
const source: number[] = [];
const compiled: number[] = [];

async function startOnce(into: number[], binaryPath: string | undefined) {
  const dir = mkdtempSync(join(tmpdir(), "ogsmith-startup-"));
  const server = await startOgsmith(dir, { OG_RENDER_WORKERS: args.workers }, binaryPath);
  into.push(server.startMs);
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}

for (let i = 0; i < RUNS; i++) {
  // Interleaved, so a load spike on the machine hits every column alike.
  const h = await startHelloWorld();
  hello.push(h.startMs);
  await h.stop();
  await startOnce(source, undefined);
  if (binary) await startOnce(compiled, binary);
}
const row = (name: string, xs: number[]) => {
  xs.sort((a, b) => a - b);
  return `| ${name} | ${quantile(xs, 0.5).toFixed(0)} | ${xs[0]!.toFixed(0)} | ${xs.at(-1)!.toFixed(0)} |`;
};
console.log(`start-up to the first 200 (a new, empty database each time), ${RUNS} runs each, OG_RENDER_WORKERS=${args.workers}\n`);
console.log("| process | median ms | min ms | max ms |\n| --- | ---: | ---: | ---: |");
console.log(row("bare Bun.serve hello-world (floor)", hello));
console.log(row("bun src/main.ts serve", source));
if (binary) console.log(row(`${binary} serve (compiled, bytecode)`, compiled));
else console.log("(no dist/ogsmith: `bun run build` first to measure the binary)");
process.exit(0);
