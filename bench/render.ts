/**
 * Render benchmark: where a box's images/s come from and what they cost in memory.
 *
 *   bun run bench:render
 *
 * From one run on this machine it prints images/s and median/p95 latency for
 *   (a) the baseline: the same event card rendered in this process, single-threaded, with stock
 *       satori + resvg-js (`asPng()`); and our in-process pipeline (own PNG encoder) beside it;
 *   (b) the service's POST /api/generate over HTTP, distinct titles (every request renders),
 *       concurrency 8;
 *   (c) the same with one repeated body (every request is a PNG-cache hit), concurrency 8;
 * and the server's peak RSS and its RSS after the distinct renders of (b).
 *
 * The server is a child `bun src/main.ts serve` (default OG_RENDER_WORKERS: the core count) on a
 * temp database, with a `custom` account whose quota and rate leave room for the whole run,
 * created through the admin API. RSS is sampled from /proc/<pid>/status every 50 ms; worker
 * threads share the process, so it includes them.
 *
 * Targets on the 2-core reference box: (b) ≥ 1.5× (a) stock; (c) ≥ 1,000 images/s;
 * RSS ≤ 300 MB after 2,000 distinct renders. Knobs: BENCH_BASELINE (renders per baseline row),
 * BENCH_DISTINCT, BENCH_HITS, BENCH_CONCURRENCY. Every phase has a time limit, and the whole run
 * is killed after BENCH_DEADLINE_S (default 300) seconds.
 */
import { Resvg } from "@resvg/resvg-js";
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import satori from "satori";
import { layoutSize } from "../src/render/engines/engine.ts";
import { renderTemplateToPng } from "../src/render/engines/in-process.ts";
import { loadAdditionalAsset } from "../src/render/fonts/emoji.ts";
import { loadFonts } from "../src/render/fonts/fonts.ts";
import { createTemplateRegistry } from "../src/templates/registry.ts";
import type { SatoriNode } from "../src/templates/types.ts";
import { CARD } from "./lib/phases.ts";
import { createBenchAccount, RssSampler, rssMb, startOgsmith } from "./lib/server.ts";

const BASELINE = Number(process.env.BENCH_BASELINE ?? 60);
const DISTINCT = Number(process.env.BENCH_DISTINCT ?? 2_000);
const HITS = Number(process.env.BENCH_HITS ?? 10_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const DEADLINE_S = Number(process.env.BENCH_DEADLINE_S ?? 300);

const WIDTH = 1200;
const HEIGHT = 630;

interface Row {
  name: string;
  count: number;
  seconds: number;
  latencies: number[];
  note?: string;
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;

// ---------------------------------------------------------------------------------------------
// (a) in-process baselines

async function baseline(name: string, renderOne: (i: number) => Promise<unknown>, count: number): Promise<Row> {
  for (let i = 0; i < 5; i++) await renderOne(-1 - i); // warm: fonts parsed, yoga compiled, JIT
  Bun.gc(true);
  const latencies: number[] = [];
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    await renderOne(i);
    latencies.push(performance.now() - t);
  }
  return { name, count, seconds: (performance.now() - started) / 1000, latencies };
}

async function runBaselines(): Promise<Row[]> {
  const template = createTemplateRegistry().get("event")!;
  const fonts = await loadFonts();
  const fields = (i: number) => ({ ...CARD, title: `${CARD.title} #${i}` });

  const stock = await baseline(
    "(a) in-process, stock satori + resvg-js asPng()",
    async (i) => {
      const logical = layoutSize(WIDTH, HEIGHT);
      const tree = template.render(fields(i), { ...logical, theme: "dark", images: {} });
      const svg = await satori(tree as SatoriNode as Parameters<typeof satori>[0], { ...logical, fonts, loadAdditionalAsset });
      return new Resvg(svg, { font: { loadSystemFonts: false }, fitTo: { mode: "original" } }).render().asPng();
    },
    BASELINE,
  );
  const ours = await baseline(
    "    in-process, our pipeline (renderTemplateToPng)",
    (i) => renderTemplateToPng(template, fields(i), { width: WIDTH, height: HEIGHT, theme: "dark", images: {} }),
    BASELINE,
  );
  return [stock, ours];
}

// ---------------------------------------------------------------------------------------------
// (b), (c) the service over HTTP

/** `count` POSTs at `concurrency`, stopping early at `limitS` seconds. Every answer must be a 200 PNG. */
async function load(name: string, url: string, key: string, count: number, body: (i: number) => unknown, limitS: number): Promise<Row> {
  const latencies: number[] = [];
  const failures = new Map<string, number>();
  let next = 0;
  const started = performance.now();
  const stopAt = started + limitS * 1000;
  const payloads = Array.from({ length: Math.min(count, 1_000) }, (_, i) => JSON.stringify(body(i)));
  const payload = (i: number) => (i < payloads.length ? payloads[i]! : JSON.stringify(body(i)));
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count && performance.now() < stopAt) {
        const i = next++;
        const t = performance.now();
        const res = await fetch(`${url}/api/generate`, { method: "POST", headers: { "x-api-key": key, "content-type": "application/json" }, body: payload(i) });
        const bytes = await res.arrayBuffer();
        if (res.status !== 200) {
          const code = `${res.status} ${(JSON.parse(new TextDecoder().decode(bytes)) as { code?: string }).code}`;
          failures.set(code, (failures.get(code) ?? 0) + 1);
          continue;
        }
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const notes = [...failures].map(([code, n]) => `${n}× ${code}`);
  if (next < count) notes.push(`stopped at the ${limitS} s limit after ${next}`);
  return { name, count: latencies.length, seconds, latencies, note: notes.join(", ") || undefined };
}

// ---------------------------------------------------------------------------------------------

function table(rows: Row[]): string {
  const lines = ["| run | images | images/s | median ms | p95 ms |", "|---|---:|---:|---:|---:|"];
  for (const row of rows) {
    const sorted = [...row.latencies].sort((a, b) => a - b);
    lines.push(
      `| ${row.name.trim()} | ${row.count} | ${(row.count / row.seconds).toFixed(1)} | ${quantile(sorted, 0.5).toFixed(1)} | ${quantile(sorted, 0.95).toFixed(1)} |` +
        (row.note ? ` ${row.note}` : ""),
    );
  }
  return lines.join("\n");
}

async function main() {
  const deadline = setTimeout(() => {
    console.error(`bench: gave up after ${DEADLINE_S} s`);
    process.exit(2);
  }, DEADLINE_S * 1000);
  deadline.unref();

  console.log(`bench:render on ${availableParallelism()} cores, bun ${Bun.version}; event card ${WIDTH}×${HEIGHT}, concurrency ${CONCURRENCY}\n`);
  const [stock, ours] = await runBaselines();

  const dir = mkdtempSync(join(tmpdir(), "ogsmith-bench-"));
  const server = await startOgsmith(dir, { OG_LOG_LEVEL: "info" });
  let distinct: Row, hits: Row, rssAfterDistinct: number, rssIdle: number, sampler: RssSampler | undefined;
  try {
    const key = await createBenchAccount(server.url);
    // Wait for the workers: the first request queues until they have warmed up.
    const warm = await load("warm-up", server.url, key, CONCURRENCY * 2, (i) => ({ ...CARD, title: `warm-up ${i}` }), 30);
    if (warm.count === 0) throw new Error(`warm-up failed: ${warm.note}`);
    rssIdle = rssMb(server.pid);
    sampler = new RssSampler(server.pid);

    distinct = await load(
      "(b) HTTP /api/generate, distinct titles (renders)",
      server.url,
      key,
      DISTINCT,
      (i) => ({ ...CARD, title: `${CARD.title} #${i}` }),
      180,
    );
    rssAfterDistinct = sampler.sample();
    hits = await load("(c) HTTP /api/generate, one repeated body (cache hits)", server.url, key, HITS, () => CARD, 60);
    sampler.sample();
  } finally {
    sampler?.stop();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }

  console.log(table([stock, ours, distinct, hits]));
  const rate = (row: Row) => row.count / row.seconds;
  const median = (row: Row) =>
    quantile(
      [...row.latencies].sort((a, b) => a - b),
      0.5,
    );
  const check = (ok: boolean) => (ok ? "ok" : "MISSED");
  console.log(`
server RSS: ${rssIdle!.toFixed(0)} MB after warm-up, peak ${sampler!.peak.toFixed(0)} MB, ${rssAfterDistinct!.toFixed(0)} MB after ${distinct!.count} distinct renders

targets:
  (b) ≥ 1.5× (a) stock:          ${(rate(distinct!) / rate(stock)).toFixed(2)}× (${rate(distinct!).toFixed(1)} vs ${rate(stock).toFixed(1)} images/s)  ${check(rate(distinct!) >= 1.5 * rate(stock))}
      vs our in-process pipeline: ${(rate(distinct!) / rate(ours)).toFixed(2)}×
  (c) ≥ 1,000 images/s:          ${rate(hits!).toFixed(0)} images/s, median ${median(hits!).toFixed(1)} ms  ${check(rate(hits!) >= 1000)}
  RSS ≤ 300 MB after ${DISTINCT} renders: ${rssAfterDistinct!.toFixed(0)} MB (peak ${sampler!.peak.toFixed(0)} MB)  ${check(rssAfterDistinct! <= 300 && distinct!.count >= DISTINCT)}
  medians: (a) stock ${median(stock).toFixed(1)} ms, ours ${median(ours).toFixed(1)} ms; (b) ${median(distinct!).toFixed(1)} ms at concurrency ${CONCURRENCY}`);
}

await main();
process.exit(0);
