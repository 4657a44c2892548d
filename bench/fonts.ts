/**
 * Fonts benchmark: what the bundled fallback fonts cost.
 *
 *   bun run bench:fonts
 *
 * From one run it prints
 *   (1) Latin render speed, in this process, single-threaded, interleaved round by round:
 *       "before" is the pipeline without the fallback machinery (satori with the Inter list and
 *       the emoji-only asset hook, then resvg and our encoder, as before fallback fonts existed);
 *       "after" is `renderTemplateToPng` as served now. A Latin card never asks for a fallback,
 *       so the two should match within noise;
 *   (2) memory of one render worker: a RenderPool with 1 worker; process RSS (main thread and
 *       worker) after warm-up and Latin renders, after the first CJK render, and after renders
 *       of every bundled script. The difference is what fallback fonts cost a worker.
 * Knobs: BENCH_ROUNDS (default 6), BENCH_PER_ROUND (default 10).
 */
import { Resvg } from "@resvg/resvg-js";
import { readFileSync } from "node:fs";
import satori from "satori";
import fallbackPackPath from "../assets/fonts/noto-fallback.bin" with { type: "file" };
import { silentLogger } from "../src/logger.ts";
import { layoutSize } from "../src/render/engines/engine.ts";
import { renderTemplateToPng } from "../src/render/engines/in-process.ts";
import { loadAdditionalAsset } from "../src/render/fonts/emoji.ts";
import { loadFonts } from "../src/render/fonts/fonts.ts";
import { encodePng, unpremultiply } from "../src/render/output/png.ts";
import { RenderPool, type RenderJob } from "../src/render/sandbox/pool.ts";
import { createTemplateRegistry } from "../src/templates/registry.ts";
import type { SatoriNode } from "../src/templates/types.ts";
import { median } from "./lib/load.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const PER_ROUND = Number(process.env.BENCH_PER_ROUND ?? 10);
const template = createTemplateRegistry().get("event")!;
const card = (i: number) => ({
  title: `Bun Meetup Berlin #${i}: rendering Open Graph images`,
  subtitle: "Workers, caches and fonts",
  date: "Thursday, March 14",
});

/** The render pipeline as it was before fallback fonts: Inter + emoji only. */
async function before(fields: Record<string, string>): Promise<void> {
  const { width, height } = layoutSize(1200, 630);
  const svg = await satori(template.render(fields, { width, height, theme: "dark", images: {} }) as SatoriNode as Parameters<typeof satori>[0], {
    width,
    height,
    fonts: await loadFonts(),
    loadAdditionalAsset,
  });
  const image = new Resvg(svg, { font: { loadSystemFonts: false }, fitTo: { mode: "original" } }).render();
  encodePng(unpremultiply(image.pixels), image.width, image.height);
}
const after = (fields: Record<string, string>) => renderTemplateToPng(template, fields, { width: 1200, height: 630, theme: "dark", images: {} });

async function speed(): Promise<void> {
  for (let i = 0; i < 5; i++) {
    await before(card(-i));
    await after(card(-i));
  }
  const times: Record<"before" | "after", number[]> = { before: [], after: [] };
  let n = 0;
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate which goes first, so neither always inherits the other's garbage.
    const order = [
      ["before", before],
      ["after", after],
    ] as const;
    for (const [name, fn] of round % 2 ? [...order].reverse() : order) {
      for (let i = 0; i < PER_ROUND; i++) {
        const t = performance.now();
        await fn(card(n++));
        times[name].push(performance.now() - t);
      }
    }
  }
  console.log("\n(1) Latin event card, 1200×630, in-process, single thread, interleaved rounds\n");
  console.log("| pipeline | renders | median ms | mean ms |");
  console.log("|---|---:|---:|---:|");
  for (const name of ["before", "after"] as const) {
    const xs = times[name];
    console.log(
      `| ${name === "before" ? "before: Inter + emoji only (baseline)" : "after: with bundled fallback fonts"} | ${xs.length} | ${median(xs).toFixed(1)} | ${(xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(1)} |`,
    );
  }
}

function rssMb(): number {
  const line = readFileSync("/proc/self/status", "utf8").match(/VmRSS:\s+(\d+)/);
  return line ? Number(line[1]) / 1024 : process.memoryUsage().rss / 1048576;
}

/** The first character of every slice face in the fallback pack. */
async function charactersOfEverySlice(): Promise<string[]> {
  const file = Bun.file(fallbackPackPath);
  const length = new DataView(await file.slice(0, 4).arrayBuffer()).getUint32(0, true);
  const { slices } = JSON.parse(await file.slice(4, 4 + length).text()) as { slices: { ranges: [number, number][] }[] };
  return [...new Set(slices.map((s) => String.fromCodePoint(s.ranges[0]![0])))];
}

async function memory(): Promise<void> {
  const pool = new RenderPool({ workers: 1, logger: silentLogger, gcEvery: 1 });
  await pool.ready();
  const job = (title: string): RenderJob => ({ template: "event", theme: "dark", fields: { title }, images: {}, width: 1200, height: 630 });
  const settle = async () => {
    Bun.gc(true);
    await Bun.sleep(200); // let the worker's own GC after its last job finish before sampling
    return rssMb();
  };
  const rows: [string, number][] = [];
  for (let i = 0; i < 30; i++) await pool.render(job(`Latin only ${i}`));
  rows.push(["after warm-up + 30 Latin renders", await settle()]);
  for (let i = 0; i < 30; i++) await pool.render(job(`Latin again ${i}`));
  rows.push(["after 30 more Latin renders (noise floor)", await settle()]);
  const first = await pool.render(job("开源的社交图片生成服务"));
  rows.push([`after the first CJK render (${first.missingGlyphs.length} missing)`, await settle()]);
  const scripts = [
    "开源的社交图片生成服务",
    "開源的社交圖片產生服務",
    "こんにちは、日本語のタイトル",
    "안녕하세요 한국어 제목입니다",
    "مرحبا بالعالم العربي",
    "שלום עולם",
    "नमस्ते दुनिया",
    "สวัสดีชาวโลก",
  ];
  for (let i = 0; i < 40; i++) await pool.render(job(`${scripts[i % scripts.length]} ${i}`));
  rows.push(["after 40 renders across all 8 bundled scripts", await settle()]);
  // Worst case: one character from every bundled slice, so the worker holds every fallback font.
  const everySlice = await charactersOfEverySlice();
  for (let i = 0; i < everySlice.length; i += 24) await pool.render(job(everySlice.slice(i, i + 24).join("")));
  rows.push([`after touching all ${everySlice.length} slice faces (worst case)`, await settle()]);
  await pool.close();
  console.log("\n(2) one render worker (RenderPool, 1 worker): process RSS, main thread + worker\n");
  console.log("| moment | RSS MB |");
  console.log("|---|---:|");
  for (const [name, mb] of rows) console.log(`| ${name} | ${mb.toFixed(1)} |`);
}

if (!process.argv.includes("--memory-only")) await speed();
await memory();
