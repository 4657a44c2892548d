/**
 * A batch against interactive renders: does a 1,000-item batch leave uncached generates their
 * latency, and how fast does the batch draw beside `ogsmith render --batch` on the same box?
 *
 *   bun bench/batch-interactive.ts [--items 1000] [--workers 2] [--baseline 40]
 *
 * Starts `ogsmith serve` (a child on a temp SQLite file, OG_RENDER_WORKERS=--workers), then:
 *   1. baseline: one client sends `--baseline` uncached generates one after another (distinct
 *      titles, 1200×630 event cards) with nothing else running: p50/p95;
 *   2. under a batch: POST /api/batches with `--items` distinct cards, and the same client sends
 *      uncached generates one after another until the batch is done: p50/p95, and the batch's
 *      images per second (items ÷ seconds from the POST to `done`);
 *   3. `ogsmith render --batch --workers N` on the same items: its images per second.
 * Goal: interactive p95 under the batch within 1.5× the baseline's.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { markdownTable, quantile } from "./lib/load.ts";
import { CARD } from "./lib/phases.ts";
import { createBenchAccount, startOgsmith } from "./lib/server.ts";

const { values: args } = parseArgs({
  options: { items: { type: "string", default: "1000" }, workers: { type: "string", default: "2" }, baseline: { type: "string", default: "40" } },
});
const ITEMS = Number(args.items);
const WORKERS = Number(args.workers);
const BASELINE = Number(args.baseline);
const REPO = join(import.meta.dir, "..");
const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : "–");

const dir = mkdtempSync(join(tmpdir(), "ogsmith-bench-batch-"));
const server = await startOgsmith(dir, { OG_RENDER_WORKERS: String(WORKERS) });
let sequence = 0;
try {
  const key = await createBenchAccount(server.url, { plan: "custom", quota: 1_000_000, requests_per_second: 10_000 });
  const headers = { "x-api-key": key, "content-type": "application/json" };
  await fetch(`${server.url}/api/signing-keys`, { method: "POST", headers, body: "{}" });
  const generate = async (): Promise<number> => {
    const started = performance.now();
    const res = await fetch(`${server.url}/api/generate`, { method: "POST", headers, body: JSON.stringify({ ...CARD, title: `Interactive ${++sequence}` }) });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`generate answered ${res.status}`);
    return performance.now() - started;
  };
  for (let i = 0; i < 5; i++) await generate(); // warm the render processes

  const baseline: number[] = [];
  for (let i = 0; i < BASELINE; i++) baseline.push(await generate());

  const items = Array.from({ length: ITEMS }, (_, i) => ({ ...CARD, title: `${CARD.title} #${i}`, theme: i % 2 ? "light" : "dark" }));
  const batchStarted = performance.now();
  const created = await fetch(`${server.url}/api/batches`, { method: "POST", headers, body: JSON.stringify({ items }) });
  if (created.status !== 202) throw new Error(`POST /api/batches answered ${created.status}: ${await created.text()}`);
  const { id } = (await created.json()) as { id: string };
  let batchSeconds = Number.NaN;
  let batchDone = false;
  const watcher = (async () => {
    for (;;) {
      const batch = (await (await fetch(`${server.url}/api/batches/${id}`, { headers })).json()) as { status: string; done: number; failed: number };
      if (batch.status === "done") {
        batchSeconds = (performance.now() - batchStarted) / 1000;
        batchDone = true;
        if (batch.failed > 0) console.warn(`${batch.failed} items failed`);
        return;
      }
      await Bun.sleep(250);
    }
  })();
  const loaded: number[] = [];
  while (!batchDone) loaded.push(await generate());
  await watcher;

  const file = join(dir, "items.json");
  writeFileSync(file, JSON.stringify(items));
  const out = join(dir, "out");
  const child = Bun.spawn(["bun", join(REPO, "src/main.ts"), "render", "--batch", file, "--out-dir", out, "--workers", String(WORKERS)], {
    stdout: "pipe",
    stderr: "ignore",
  });
  const stdout = await new Response(child.stdout).text();
  await child.exited;
  const cliRate = Number(/\(([\d.]+) images\/s\)/.exec(stdout)?.[1] ?? Number.NaN);

  const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
  const b = sorted(baseline);
  const l = sorted(loaded);
  console.log(
    `bench/batch-interactive.ts — ${new Date().toISOString().slice(0, 10)}, ${availableParallelism()} cores, bun ${Bun.version}; ${ITEMS} items, ${WORKERS} render processes\n`,
  );
  console.log(
    markdownTable(
      ["uncached generates, one client", "requests", "p50 ms", "p95 ms"],
      [
        ["alone (baseline)", b.length, fmt(quantile(b, 0.5)), fmt(quantile(b, 0.95))],
        [`while a ${ITEMS}-item batch draws`, l.length, fmt(quantile(l, 0.5)), fmt(quantile(l, 0.95))],
      ],
    ),
  );
  const ratio = quantile(l, 0.95) / quantile(b, 0.95);
  console.log(`\np95 under the batch ÷ alone: ${ratio.toFixed(2)} (goal ≤ 1.5: ${ratio <= 1.5 ? "met" : "MISSED"})\n`);
  console.log(
    markdownTable(
      ["drawing", "images/s"],
      [
        [`POST /api/batches (${ITEMS} items, with the interactive client beside it)`, fmt(ITEMS / batchSeconds, 1)],
        [`ogsmith render --batch --workers ${WORKERS} (same items, nothing beside it)`, fmt(cliRate, 1)],
      ],
    ),
  );
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
