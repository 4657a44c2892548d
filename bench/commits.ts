/**
 * `bun bench/commits.ts [--commits 30000] [--rounds 3]`: how long the hot write (one counted
 * cached image: `countOne` through `transact`) holds the thread that commits it, with SQLite checkpointing inside
 * the writers' commits (its default: every 1,000 pages) and with the server's background
 * checkpoint thread (store/sqlite/checkpointer.ts). Each round measures both, one after the
 * other, on fresh databases; the table prints each round and the median.
 *
 * What to look for: the slowest 0.1 % of commits and the share of all commit time they take.
 * With the default, a commit that crosses the threshold runs the checkpoint and its disk syncs
 * itself, blocking every request behind it on that thread.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { AccountService } from "../src/accounts/accounts.ts";
import { systemClock } from "../src/clock.ts";
import { createLogger } from "../src/logger.ts";
import { countOne } from "../src/metering/counting.ts";
import { CommitSignal, startCheckpointer } from "../src/store/sqlite/checkpointer.ts";
import { openSqliteStore } from "../src/store/sqlite/index.ts";
import { markdownTable, median, quantile } from "./lib/load.ts";

const { values: args } = parseArgs({
  options: { commits: { type: "string", default: "30000" }, rounds: { type: "string", default: "3" } },
});
const COMMITS = Number(args.commits);
const ROUNDS = Number(args.rounds);

interface Run {
  meanUs: number;
  p50Us: number;
  p999Ms: number;
  maxMs: number;
  /** Share of all commit time spent in the slowest 0.1 % of commits. */
  slowShare: number;
}

async function run(withThread: boolean): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), "ogsmith-bench-commits-"));
  const path = join(dir, "bench.db");
  await (await openSqliteStore(path)).close();
  const signal = withThread ? CommitSignal.create() : undefined;
  const checkpointer = signal && (await startCheckpointer(path, signal, createLogger("silent")));
  const store = await openSqliteStore(path, { commits: signal });
  try {
    const { account } = await new AccountService(store, systemClock).create({ email: "bench@example.com", plan: "free" });
    const decide = () => ({ marks: [], events: [] });
    const times: number[] = [];
    for (let i = 0; i < COMMITS; i++) {
      const start = performance.now();
      // A new day every 1,000 commits, so the day rows grow as over a month of traffic.
      const unit = { accountId: account.id, period: "2026-11", quota: 1e9, day: `d${Math.floor(i / 1000)}`, now: Date.now(), decide };
      await store.transact((tx) => countOne(tx, unit));
      times.push(performance.now() - start);
    }
    times.sort((a, b) => a - b);
    const total = times.reduce((sum, t) => sum + t, 0);
    const slowest = times.slice(Math.floor(times.length * 0.999)).reduce((sum, t) => sum + t, 0);
    return {
      meanUs: (total / times.length) * 1000,
      p50Us: quantile(times, 0.5) * 1000,
      p999Ms: quantile(times, 0.999),
      maxMs: times.at(-1)!,
      slowShare: slowest / total,
    };
  } finally {
    await store.close();
    await checkpointer?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const fmt = (n: number, digits = 1) => n.toFixed(digits);
const rows: (string | number)[][] = [];
const results: Record<string, Run[]> = { "writers checkpoint (SQLite default)": [], "checkpoint thread (the server)": [] };
for (let round = 1; round <= ROUNDS; round++) {
  for (const [label, withThread] of [
    ["writers checkpoint (SQLite default)", false],
    ["checkpoint thread (the server)", true],
  ] as const) {
    const r = await run(withThread);
    results[label]!.push(r);
    rows.push([`${label}, round ${round}`, fmt(r.meanUs), fmt(r.p50Us), fmt(r.p999Ms, 2), fmt(r.maxMs, 2), `${fmt(100 * r.slowShare)} %`]);
  }
}
for (const [label, runs] of Object.entries(results)) {
  const m = (pick: (r: Run) => number) => median(runs.map(pick));
  rows.push([
    `**${label}, median**`,
    fmt(m((r) => r.meanUs)),
    fmt(m((r) => r.p50Us)),
    fmt(
      m((r) => r.p999Ms),
      2,
    ),
    fmt(
      m((r) => r.maxMs),
      2,
    ),
    `${fmt(100 * m((r) => r.slowShare))} %`,
  ]);
}
console.log(`Counting commits (countOne), ${COMMITS} per run, on ${tmpdir()}\n`);
console.log(markdownTable(["", "mean µs", "median µs", "p99.9 ms", "max ms", "time in slowest 0.1 %"], rows));
