/**
 * Where render time goes (not part of `bun test`): `bun test/unit/render/timings.ts`.
 * Prints the median over N warm runs of each stage for a full event card, and compares
 * resvg's own PNG encoder with ours on the same pixels.
 */
import satori from "satori";
import { Resvg } from "@resvg/resvg-js";
import { loadFonts } from "../../../src/render/fonts/fonts.ts";
import { encodePng, unpremultiply } from "../../../src/render/output/png.ts";
import { createTemplateRegistry } from "../../../src/templates/registry.ts";
import { solidPngDataUri } from "../../support/png.ts";

const N = Number(process.argv[2] ?? 40);
const event = createTemplateRegistry().get("event")!;
const fonts = await loadFonts();
const images = { logo_url: solidPngDataUri(240, 80, [255, 80, 0]), speaker_avatar_url: solidPngDataUri(256, 256, [0, 200, 120]) };
const fields = {
  title: "Bun Meetup Berlin: Fast JavaScript Everywhere",
  subtitle: "An evening of talks on runtimes, bundlers and shipping faster",
  date: "Thursday, March 14, 2025",
  time: "18:30 CET",
  location: "Factory Görlitzer Park, Berlin",
  speaker_name: "Jarred Sumner",
};

const samples: Record<string, number[]> = {
  satori: [],
  rasterize: [],
  unpremultiply: [],
  "resvg asPng": [],
  "encodePng l6": [],
  "encodePng l3": [],
  "encodePng l1": [],
};
const sizes: Record<string, number> = {};
for (let i = 0; i < N + 5; i++) {
  const t0 = performance.now();
  const svg = await satori(event.render(fields, { width: 1200, height: 630, theme: i % 2 ? "light" : "dark", images }) as any, {
    width: 1200,
    height: 630,
    fonts,
  });
  const t1 = performance.now();
  const img = new Resvg(svg, { font: { loadSystemFonts: false } }).render();
  const t2 = performance.now();
  const theirs = img.asPng();
  const t3 = performance.now();
  const px = unpremultiply(img.pixels);
  const t4 = performance.now();
  const l6 = encodePng(px, 1200, 630, 6);
  const t5 = performance.now();
  const l3 = encodePng(px, 1200, 630, 3);
  const t6 = performance.now();
  const l1 = encodePng(px, 1200, 630, 1);
  const t7 = performance.now();
  if (i < 5) continue; // warm-up
  samples.satori.push(t1 - t0);
  samples.rasterize.push(t2 - t1);
  samples["resvg asPng"].push(t3 - t2);
  samples.unpremultiply.push(t4 - t3);
  samples["encodePng l6"].push(t5 - t4);
  samples["encodePng l3"].push(t6 - t5);
  samples["encodePng l1"].push(t7 - t6);
  sizes["resvg asPng"] = theirs.length;
  sizes["encodePng l6"] = l6.length;
  sizes["encodePng l3"] = l3.length;
  sizes["encodePng l1"] = l1.length;
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`median of ${N} warm runs, 1200×630 event card (alternating themes)`);
for (const [stage, xs] of Object.entries(samples)) {
  console.log(`${stage.padEnd(16)} ${median(xs).toFixed(1).padStart(6)} ms${sizes[stage] ? `   last size ${(sizes[stage] / 1024).toFixed(0)} KiB` : ""}`);
}
