/**
 * One render split into its phases, for bench/render-phases.ts: the same steps as
 * renderTemplateToPng (src/render/engines/in-process.ts), each timed on its own, run either in the calling
 * thread or inside a worker (bench/lib/phases-worker.ts) so the two can be compared.
 */
import { Resvg } from "@resvg/resvg-js";
import satori from "satori";
import { layoutSize } from "../../src/render/engines/engine.ts";
import { loadAdditionalAsset } from "../../src/render/fonts/emoji.ts";
import { loadFonts } from "../../src/render/fonts/fonts.ts";
import { encodePng, unpremultiply } from "../../src/render/output/png.ts";
import { createTemplateRegistry } from "../../src/templates/registry.ts";
import type { SatoriNode } from "../../src/templates/types.ts";
import { median } from "./load.ts";

export const PHASES = [
  "template → tree",
  "satori layout + SVG",
  "resvg parse",
  "resvg rasterize",
  "pixels to JS",
  "unpremultiply",
  "encodePng (ours)",
  "asPng (resvg's)",
  "Bun.gc(false)",
  "Bun.gc(true)",
] as const;
export type Phase = (typeof PHASES)[number];

/** The card every row uses: every text field of the event template set. */
export const CARD = {
  title: "Bun Meetup Berlin: rendering Open Graph images at scale",
  subtitle: "Workers, caches and a PNG encoder that earns its keep",
  date: "Thursday, March 14",
  time: "18:30 CET",
  location: "c-base, Berlin",
  speaker_name: "Ada Lovelace",
};

export interface PhaseRun {
  /** Median ms per phase over the measured renders. */
  medians: Record<Phase, number>;
  /** RSS at the end, MB (the whole process: a worker shares it with its parent). */
  rssMb: number;
}

/** `count` renders of the event card with distinct titles after 5 warm-ups; every phase timed. */
export async function measurePhases(count: number): Promise<PhaseRun> {
  const template = createTemplateRegistry().get("event")!;
  const fonts = await loadFonts();
  const logical = layoutSize(1200, 630);
  const samples = Object.fromEntries(PHASES.map((p) => [p, [] as number[]])) as Record<Phase, number[]>;
  for (let i = -5; i < count; i++) {
    const t0 = performance.now();
    const tree = template.render({ ...CARD, title: `${CARD.title} #${i}` }, { ...logical, theme: i % 2 ? "light" : "dark", images: {} });
    const t1 = performance.now();
    const svg = await satori(tree as SatoriNode as Parameters<typeof satori>[0], { ...logical, fonts, loadAdditionalAsset });
    const t2 = performance.now();
    const resvg = new Resvg(svg, { font: { loadSystemFonts: false }, fitTo: { mode: "original" } });
    const t3 = performance.now();
    const image = resvg.render();
    const t4 = performance.now();
    const raw = image.pixels;
    const t5 = performance.now();
    const pixels = unpremultiply(raw);
    const t6 = performance.now();
    encodePng(pixels, image.width, image.height);
    const t7 = performance.now();
    image.asPng();
    const t8 = performance.now();
    Bun.gc(false);
    const t9 = performance.now();
    // A full collection only every 8th render, as a sample of what one costs.
    const full = i % 8 === 0;
    if (full) Bun.gc(true);
    const t10 = performance.now();
    if (i < 0) continue;
    const times = [t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4, t6 - t5, t7 - t6, t8 - t7, t9 - t8];
    PHASES.slice(0, 9).forEach((p, k) => {
      samples[p].push(times[k]!);
    });
    if (full) samples["Bun.gc(true)"].push(t10 - t9);
  }
  const medians = Object.fromEntries(PHASES.map((p) => [p, median(samples[p])])) as Record<Phase, number>;
  return { medians, rssMb: process.memoryUsage.rss() / 1024 / 1024 };
}
