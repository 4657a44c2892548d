/**
 * satori + resvg against takumi (OG_RENDER_ENGINE; docs/engines.md), measured in one run on the
 * same machine, the engines interleaved so a noisy neighbour hurts both alike; medians.
 *
 *   bun bench/engines.ts [inprocess] [encode] [http] [batch] [soak]     (no argument: all but soak)
 *
 * - inprocess: this process, one render at a time, the `event` card with logo and avatar, dark
 *   and light: CPU ms per image (process CPU time, all threads) and images/s (wall).
 *   Target: takumi ≥ 2.5× satori + resvg.
 * - encode: takumi's own PNG/JPEG/WebP encoders against ours (encode.ts) on takumi's raw pixels.
 * - http: `ogsmith serve` children, cold renders (distinct titles, no cache) over POST
 *   /api/generate with 1 and 2 render workers per engine: images/s, peak RSS of the process,
 *   and what the second worker added at the peak. Targets: takumi ≥ 2× satori; ≤ 60 MB per
 *   takumi worker.
 * - batch: `ogsmith render --batch` of BENCH_BATCH (2,000) distinct items per engine: images/s
 *   and peak RSS (target ≤ 500 MB for both).
 * - soak: BENCH_SOAK (10,000) distinct cards per engine through the render pool (one worker,
 *   the service's memory upkeep), RSS every 1,000: flat means the caches are bounded.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RenderEngine } from "../src/render/engines/engine.ts";
import { renderTemplate } from "../src/render/engines/in-process.ts";
import { encodeImage } from "../src/render/output/encode.ts";
import { silentLogger } from "../src/logger.ts";
import { RenderPool } from "../src/render/sandbox/pool.ts";
import { loadTakumiNative } from "../src/render/engines/takumi-native.ts";
import { createTemplateRegistry } from "../src/templates/registry.ts";
import { solidPngDataUri } from "../test/support/png.ts";
import { runLoad } from "./lib/load-client.ts";
import { markdownTable, median } from "./lib/load.ts";
import { CARD } from "./lib/phases.ts";
import { createBenchAccount, RssSampler, rssMb, startOgsmith } from "./lib/server.ts";

const ENGINES: RenderEngine[] = ["satori", "takumi"];
const REPO = join(import.meta.dir, "..");
const sections = process.argv.slice(2);
const wanted = (name: string) => (sections.length === 0 ? name !== "soak" : sections.includes(name));
const registry = createTemplateRegistry();
const event = registry.get("event")!;
const LOGO = solidPngDataUri(480, 160, [139, 92, 246]);
const AVATAR = solidPngDataUri(256, 256, [236, 72, 153]);
const images = { logo_url: LOGO, speaker_avatar_url: AVATAR };
const fields = { ...CARD, logo_url: "logo", speaker_avatar_url: "avatar" };
const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

console.log(
  `# satori + resvg vs takumi — ${new Date().toISOString()} — ${navigator.hardwareConcurrency} cores (shared with other work; medians, engines interleaved)\n`,
);

if (wanted("inprocess")) {
  const runs = Number(process.env.BENCH_RUNS ?? 40);
  const samples: Record<string, { cpu: number[]; wall: number[] }> = {};
  for (const theme of ["dark", "light"] as const) for (const engine of ENGINES) samples[`${engine} ${theme}`] = { cpu: [], wall: [] };
  // Warm-up: fonts parsed, layout compiled, caches primed.
  for (const engine of ENGINES)
    for (const theme of ["dark", "light"] as const) await renderTemplate(event, fields, { width: 1200, height: 630, theme, images, engine });
  for (let i = 0; i < runs; i++) {
    for (const theme of ["dark", "light"] as const) {
      for (const engine of i % 2 ? [...ENGINES].reverse() : ENGINES) {
        const c0 = cpuMs();
        const t0 = performance.now();
        await renderTemplate(event, { ...fields, title: `${CARD.title} ${i}` }, { width: 1200, height: 630, theme, images, engine });
        samples[`${engine} ${theme}`]!.wall.push(performance.now() - t0);
        samples[`${engine} ${theme}`]!.cpu.push(cpuMs() - c0);
      }
    }
  }
  const rows: (string | number)[][] = [];
  for (const theme of ["dark", "light"]) {
    const s = samples[`satori ${theme}`]!;
    const t = samples[`takumi ${theme}`]!;
    for (const [engine, m] of [
      ["satori + resvg", s],
      ["takumi", t],
    ] as const) {
      rows.push([theme, engine, median(m.cpu).toFixed(1), (1000 / median(m.wall)).toFixed(1), engine === "takumi" ? ratio(median(s.cpu), median(t.cpu)) : ""]);
    }
  }
  console.log(`## In process, one render at a time: event card with logo and avatar, PNG, 1200×630 (${runs} per row)\n`);
  console.log(markdownTable(["theme", "engine", "CPU ms/image", "images/s", "takumi vs satori (CPU)"], rows));
  console.log("\nTarget: takumi ≥ 2.5× satori + resvg.\n");
}

if (wanted("encode")) {
  // The event card's own tree would do as well; a full-card gradient under a title is the same
  // kind of image and keeps this section independent of the template.
  const native = loadTakumiNative();
  const renderer = new native.Renderer({ cacheMaxBytes: 8 << 20 });
  const tree = JSON.stringify({
    type: "container",
    style: {
      display: "flex",
      width: "100%",
      height: "100%",
      backgroundImage: "linear-gradient(135deg, #0B0B14 0%, #8B5CF6 100%)",
      color: "white",
      fontSize: 80,
      padding: 60,
    },
    children: [{ type: "text", text: CARD.title }],
  });
  const opts = { width: 1200, height: 630 };
  const runs = Number(process.env.BENCH_ENCODE_RUNS ?? 30);
  const cpuOf = async (work: () => Promise<unknown>) => {
    const c0 = cpuMs();
    await work();
    return cpuMs() - c0;
  };
  const rows: (string | number)[][] = [];
  for (const format of ["png", "jpeg", "webp"] as const) {
    const own: number[] = [];
    const ours: number[] = [];
    let ownBytes = 0;
    let ourBytes = 0;
    for (let i = 0; i < runs; i++) {
      let pixels = new Uint8Array();
      // CPU of takumi's encoder = its encoded render − its raw render (the same drawing).
      const rawCpu = await cpuOf(async () => {
        pixels = new Uint8Array(await renderer.render(tree, { ...opts, format: "raw" }));
      });
      const encodedCpu = await cpuOf(async () => {
        ownBytes = (await renderer.render(tree, { ...opts, format, quality: format === "png" ? undefined : 85 })).length;
      });
      own.push(encodedCpu - rawCpu);
      ours.push(
        await cpuOf(async () => {
          ourBytes = (await encodeImage(pixels, 1200, 630, format, 85)).length;
        }),
      );
    }
    rows.push([format, median(own).toFixed(1), Math.round(ownBytes / 1024), median(ours).toFixed(1), Math.round(ourBytes / 1024)]);
  }
  console.log(`## Encoding takumi's pixels, 1200×630, CPU ms (median of ${runs}; takumi's = its encoded render − its raw render)\n`);
  console.log(markdownTable(["format", "takumi's encoder CPU ms", "KiB", "ours (encode.ts) CPU ms", "KiB"], rows));
  console.log("");
}

async function httpRun(engine: RenderEngine, workers: number, seconds: number): Promise<{ rate: number; peak: number; errors: number }> {
  const dir = mkdtempSync(join(tmpdir(), "ogsmith-engines-"));
  const server = await startOgsmith(dir, { OG_RENDER_ENGINE: engine, OG_RENDER_WORKERS: String(workers), OG_CACHE_MAX_BYTES: "0" });
  try {
    const key = await createBenchAccount(server.url);
    const sampler = new RssSampler(server.pid, 25);
    const result = await runLoad({
      url: `${server.url}/api/generate`,
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: JSON.stringify({ template: "event", ...CARD, title: `${CARD.title} {i}` }),
      connections: workers * 2,
      seconds,
    });
    sampler.stop();
    return { rate: result.ok / result.seconds, peak: sampler.peak, errors: Object.values(result.errors).reduce((a, b) => a + b, 0) };
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (wanted("http")) {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const seconds = Number(process.env.BENCH_SECONDS ?? 15);
  const results: Record<string, { rate: number[]; peak: number[]; errors: number }> = {};
  for (let round = 0; round < rounds; round++) {
    for (const workers of [1, 2]) {
      for (const engine of round % 2 ? [...ENGINES].reverse() : ENGINES) {
        const r = await httpRun(engine, workers, seconds);
        const entry = (results[`${engine} ${workers}`] ??= { rate: [], peak: [], errors: 0 });
        entry.rate.push(r.rate);
        entry.peak.push(r.peak);
        entry.errors += r.errors;
      }
    }
  }
  const rows: (string | number)[][] = [];
  for (const engine of ENGINES) {
    for (const workers of [1, 2]) {
      const r = results[`${engine} ${workers}`]!;
      const satori = results[`satori ${workers}`]!;
      const perWorker = workers === 2 ? (median(r.peak) - median(results[`${engine} 1`]!.peak)).toFixed(0) : "";
      rows.push([
        engine,
        workers,
        median(r.rate).toFixed(1),
        engine === "takumi" ? ratio(median(r.rate), median(satori.rate)) : "",
        median(r.peak).toFixed(0),
        perWorker,
        r.errors,
      ]);
    }
  }
  console.log(`## Over HTTP: cold renders (distinct titles, caches off), event card, ${rounds} rounds × ${seconds} s per row, 2 connections per worker\n`);
  console.log(markdownTable(["engine", "workers", "images/s", "vs satori", "peak RSS MB (process)", "second worker adds MB", "errors"], rows));
  console.log("\nTargets: takumi ≥ 2× satori; ≤ 60 MB per takumi worker at the peak.\n");
}

if (wanted("batch")) {
  const items = Number(process.env.BENCH_BATCH ?? 2_000);
  const dir = mkdtempSync(join(tmpdir(), "ogsmith-batch-"));
  const list = join(dir, "items.jsonl");
  writeFileSync(
    list,
    Array.from({ length: items }, (_, i) =>
      JSON.stringify({ template: i % 2 ? "blog" : "event", theme: i % 4 < 2 ? "dark" : "light", title: `${CARD.title} #${i}`, subtitle: CARD.subtitle }),
    ).join("\n"),
  );
  const rows: (string | number)[][] = [];
  for (const engine of ENGINES) {
    const out = join(dir, engine);
    const started = performance.now();
    const proc = Bun.spawn(["bun", join(REPO, "src/main.ts"), "render", "--engine", engine, "--batch", list, "--out-dir", out], {
      stdout: "ignore",
      stderr: "ignore",
    });
    const sampler = new RssSampler(proc.pid, 50);
    const code = await proc.exited;
    sampler.stop();
    const seconds = (performance.now() - started) / 1000;
    rows.push([engine, items, code, (items / seconds).toFixed(1), sampler.peak.toFixed(0)]);
  }
  rmSync(dir, { recursive: true, force: true });
  const s = Number(rows[0]![3]);
  const t = Number(rows[1]![3]);
  console.log(`## ogsmith render --batch: ${items} distinct items (event and blog, both themes), default workers\n`);
  console.log(markdownTable(["engine", "items", "exit", "images/s", "peak RSS MB"], rows));
  console.log(`\ntakumi vs satori: ${ratio(t, s)}. Target: peak RSS ≤ 500 MB for both.\n`);
}

if (wanted("soak")) {
  const rows: (string | number)[][] = [];
  for (const engine of ENGINES) {
    // BENCH_SOAK_SATORI shortens satori's soak, which takes 2–3× as long, when time is short.
    const cards = Number((engine === "satori" ? process.env.BENCH_SOAK_SATORI : undefined) ?? process.env.BENCH_SOAK ?? 10_000);
    const every = Math.max(1, Math.floor(cards / 10));
    const pool = new RenderPool({ workers: 1, logger: silentLogger, engine });
    await pool.ready();
    const readings: number[] = [];
    const started = performance.now();
    for (let i = 0; i < cards; i++) {
      await pool.render({
        template: i % 2 ? "blog" : "event",
        theme: i % 4 < 2 ? "dark" : "light",
        fields: { title: `Soak card ${i} ${engine}`, subtitle: `Distinct subtitle ${i * 7919}` },
        images: {},
        width: 1200,
        height: 630,
      });
      if ((i + 1) % every === 0) readings.push(rssMb(process.pid));
    }
    const seconds = (performance.now() - started) / 1000;
    await pool.close();
    rows.push([engine, cards, (cards / seconds).toFixed(1), ...readings.map((mb) => mb.toFixed(0))]);
  }
  console.log("## Soak: distinct cards per engine, one render worker (the service's memory upkeep), RSS of this process in MB after each tenth of the run\n");
  console.log(markdownTable(["engine", "cards", "images/s", ...Array.from({ length: 10 }, (_, i) => `${(i + 1) * 10}%`)], rows));
  console.log("");
}
