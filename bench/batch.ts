/**
 * `ogsmith render --batch` at size: peak RSS and images/s for a batch of distinct cards.
 *
 *   bun bench/batch.ts [--items 2000] [--workers 1,N] [--lines]
 *
 * Writes a batch file of `--items` event cards (distinct titles; a JSON array, or JSON lines
 * with --lines), runs `bun src/main.ts render --batch` on it once per worker count (default 1
 * and the core count) into a temp directory, samples the child's RSS from /proc every 50 ms,
 * and prints images/s, per worker, and peak RSS beside the in-process single-thread stock rate
 * (satori + resvg-js asPng() on the same card) measured in the same run. Targets: peak RSS
 * under 500 MB for 2,000 items; images/s growing with the workers.
 */
import { Resvg } from "@resvg/resvg-js";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import satori from "satori";
import { layoutSize } from "../src/render/engines/engine.ts";
import { loadAdditionalAsset } from "../src/render/fonts/emoji.ts";
import { loadFonts } from "../src/render/fonts/fonts.ts";
import { createTemplateRegistry } from "../src/templates/registry.ts";
import type { SatoriNode } from "../src/templates/types.ts";
import { markdownTable } from "./lib/load.ts";
import { CARD } from "./lib/phases.ts";
import { rssMb } from "./lib/server.ts";

const cores = availableParallelism();
const { values: args } = parseArgs({
  options: { items: { type: "string", default: "2000" }, workers: { type: "string" }, lines: { type: "boolean", default: false } },
});
const ITEMS = Number(args.items);
const WORKERS = args.workers ? args.workers.split(",").map(Number) : [...new Set([1, cores])];
const REPO = join(import.meta.dir, "..");
const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : "–");

async function stockRate(renders = 20): Promise<number> {
  const template = createTemplateRegistry().get("event")!;
  const fonts = await loadFonts();
  const logical = layoutSize(1200, 630);
  const one = async (i: number) => {
    const tree = template.render({ ...CARD, title: `${CARD.title} #${i}` }, { ...logical, theme: "dark", images: {} });
    const svg = await satori(tree as SatoriNode as Parameters<typeof satori>[0], { ...logical, fonts, loadAdditionalAsset });
    return new Resvg(svg, { font: { loadSystemFonts: false }, fitTo: { mode: "original" } }).render().asPng();
  };
  for (let i = 0; i < 3; i++) await one(-1 - i);
  const started = performance.now();
  for (let i = 0; i < renders; i++) await one(i);
  return renders / ((performance.now() - started) / 1000);
}

interface Row {
  workers: number;
  perSecond: number;
  peakMb: number;
  files: number;
  code: number;
  seconds: number;
}

async function runBatch(file: string, workers: number): Promise<Row> {
  const out = mkdtempSync(join(tmpdir(), "ogsmith-batch-out-"));
  try {
    const started = performance.now();
    const child = Bun.spawn(["bun", join(REPO, "src/main.ts"), "render", "--batch", file, "--out-dir", out, "--workers", String(workers)], {
      stdout: "pipe",
      stderr: "ignore",
    });
    // Own sampling rather than RssSampler: the child exits under it, and a zombie has no VmRSS.
    let peak = 0;
    const timer = setInterval(() => {
      try {
        const mb = rssMb(child.pid);
        if (Number.isFinite(mb)) peak = Math.max(peak, mb);
      } catch {}
    }, 50);
    const [stdout, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
    clearInterval(timer);
    const seconds = (performance.now() - started) / 1000;
    const rate = Number(/\(([\d.]+) images\/s\)/.exec(stdout)?.[1] ?? NaN);
    return { workers, perSecond: rate, peakMb: peak, files: readdirSync(out).length, code, seconds };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

const dir = mkdtempSync(join(tmpdir(), "ogsmith-batch-"));
try {
  const bodies = Array.from({ length: ITEMS }, (_, i) => ({ ...CARD, title: `${CARD.title} #${i}`, theme: i % 2 ? "light" : "dark" }));
  const file = join(dir, args.lines ? "items.jsonl" : "items.json");
  writeFileSync(file, args.lines ? bodies.map((b) => JSON.stringify(b)).join("\n") : JSON.stringify(bodies));
  console.log(
    `bench:batch — ${new Date().toISOString().slice(0, 10)}, ${cores} cores, bun ${Bun.version}; ${ITEMS} event cards as ${args.lines ? "JSON lines" : "a JSON array"}\n`,
  );
  const stock = await stockRate();
  const rows: Row[] = [];
  for (const workers of WORKERS) rows.push(await runBatch(file, workers));
  console.log(
    markdownTable(
      ["run", "images/s", "per worker", "× stock 1 thread", "peak RSS MB", "files", "exit", "wall s"],
      [
        ["in-process stock satori + resvg-js, 1 thread (baseline)", fmt(stock), fmt(stock), "1.00", "", "", "", ""],
        ...rows.map((r) => [
          `render --batch --workers ${r.workers}`,
          fmt(r.perSecond),
          fmt(r.perSecond / r.workers),
          fmt(r.perSecond / stock, 2),
          fmt(r.peakMb, 0),
          r.files,
          r.code,
          fmt(r.seconds),
        ]),
      ],
    ),
  );
  const worst = Math.max(...rows.map((r) => r.peakMb));
  console.log(
    `\ntarget: peak RSS < 500 MB for ${ITEMS} items: ${fmt(worst, 0)} MB ${worst < 500 ? "met" : "MISSED"}${ITEMS < 2000 ? " (fewer items than the target's 2,000)" : ""}`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
