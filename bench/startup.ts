/**
 * Start-up to the first 200 from /healthz, alone (the same measurement as bench/scale.ts
 * section 4, without the rest): `bun bench/startup.ts [--runs 7] [--workers 1] [--against REV]`.
 * Beside it, the same spawn of a bare `Bun.serve` hello-world: the floor this machine sets.
 * Measures `bun src/main.ts serve` and, when it has been built (`bun run build`), the compiled
 * binary dist/ogsmith (or OG_BENCH_BINARY): what is shipped, with its modules as bytecode.
 *
 * `--against REV` builds this tree's binary (`bun run build`) and REV's (in a temporary
 * `git worktree add --detach`, with this tree's node_modules when REV's bun.lock is the same,
 * else its own `bun install --frozen-lockfile`), then starts the two alternately, the median of
 * --runs each: the binary against a previous release's in one run, on one machine.
 * `--no-source` leaves out the from-source column (it is slow and noisy, and not what ships).
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { availableParallelism, cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { quantile } from "./lib/load.ts";
import { builtBinary, startHelloWorld, startOgsmith } from "./lib/server.ts";

const { values: args } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    runs: { type: "string", default: "7" },
    workers: { type: "string", default: "1" },
    against: { type: "string" },
    "no-source": { type: "boolean", default: false },
  },
});
const RUNS = Number(args.runs);
const REPO = join(import.meta.dir, "..");

function run(cmd: string[], cwd: string): void {
  const done = Bun.spawnSync(cmd, { cwd, stdout: "pipe", stderr: "pipe" });
  if (done.exitCode !== 0) throw new Error(`${cmd.join(" ")} (in ${cwd}) failed:\n${done.stdout.toString()}${done.stderr.toString()}`);
}

/** REV's dist/ogsmith, built in a temporary worktree and copied out; the worktree is removed. */
function buildRevision(rev: string): { path: string; label: string } {
  const sha = Bun.spawnSync(["git", "-C", REPO, "rev-parse", "--short", rev]).stdout.toString().trim();
  if (!sha) throw new Error(`unknown revision ${rev}`);
  const dir = mkdtempSync(join(tmpdir(), "ogsmith-startup-rev-"));
  try {
    run(["git", "-C", REPO, "worktree", "add", "--detach", dir, sha], REPO);
    const theirs = Bun.spawnSync(["git", "-C", REPO, "show", `${sha}:bun.lock`]).stdout.toString();
    if (theirs === readFileSync(join(REPO, "bun.lock"), "utf8")) symlinkSync(join(REPO, "node_modules"), join(dir, "node_modules"));
    else run(["bun", "install", "--frozen-lockfile"], dir);
    run(["bun", "run", "build"], dir);
    const out = join(mkdtempSync(join(tmpdir(), "ogsmith-startup-bin-")), "ogsmith");
    copyFileSync(join(dir, "dist", "ogsmith"), out);
    return { path: out, label: sha };
  } finally {
    Bun.spawnSync(["git", "-C", REPO, "worktree", "remove", "--force", dir]);
    if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
  }
}

let binary = builtBinary();
let baseline: { path: string; label: string } | undefined;
if (args.against) {
  run(["bun", "run", "build"], REPO);
  binary = join(REPO, "dist/ogsmith");
  console.error(`building ${args.against}'s binary…`);
  baseline = buildRevision(args.against);
}
const head = Bun.spawnSync(["git", "-C", REPO, "rev-parse", "--short", "HEAD"]).stdout.toString().trim();
const dirty = Bun.spawnSync(["git", "-C", REPO, "status", "--porcelain", "--untracked-files=no"]).stdout.toString().trim() ? "+changes" : "";

const hello: number[] = [];
const source: number[] = [];
const compiled: number[] = [];
const previous: number[] = [];

async function startOnce(into: number[], binaryPath: string | undefined) {
  const dir = mkdtempSync(join(tmpdir(), "ogsmith-startup-"));
  const server = await startOgsmith(dir, { OG_RENDER_WORKERS: args.workers }, binaryPath);
  into.push(server.startMs);
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}

try {
  for (let i = 0; i < RUNS; i++) {
    // Interleaved, with the two binaries' order swapped every round, so a load spike on the
    // machine (or a warm page cache) favours neither column.
    const h = await startHelloWorld();
    hello.push(h.startMs);
    await h.stop();
    if (!args["no-source"]) await startOnce(source, undefined);
    const pair: [number[], string | undefined][] = [];
    if (binary) pair.push([compiled, binary]);
    if (baseline) pair.push([previous, baseline.path]);
    if (i % 2 === 1) pair.reverse();
    for (const [into, path] of pair) await startOnce(into, path);
  }
} finally {
  if (baseline) rmSync(join(baseline.path, ".."), { recursive: true, force: true });
}
const row = (name: string, xs: number[]) => {
  xs.sort((a, b) => a - b);
  return `| ${name} | ${quantile(xs, 0.5).toFixed(0)} | ${xs[0]!.toFixed(0)} | ${xs.at(-1)!.toFixed(0)} |`;
};
const cpu = cpus()[0]?.model.trim() ?? "unknown CPU";
console.log(
  `start-up to the first 200 (a new, empty database each time), ${RUNS} runs each, alternating, OG_RENDER_WORKERS=${args.workers}; ${availableParallelism()} cores (${cpu}), bun ${Bun.version}, ${new Date().toISOString().slice(0, 10)}\n`,
);
console.log("| process | median ms | min ms | max ms |\n| --- | ---: | ---: | ---: |");
console.log(row("bare Bun.serve hello-world (floor)", hello));
if (!args["no-source"]) console.log(row("bun src/main.ts serve", source));
if (binary) console.log(row(`${args.against ? `${head}${dirty} ` : ""}${binary.replace(`${REPO}/`, "")} serve (compiled, bytecode)`, compiled));
else console.log("(no dist/ogsmith: `bun run build` first to measure the binary)");
if (baseline) console.log(row(`${baseline.label} (--against ${args.against}) dist/ogsmith serve`, previous));
process.exit(0);
