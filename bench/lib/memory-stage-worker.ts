/**
 * A worker for bench/worker-memory.ts: it goes as far into a render worker's life as it is told
 * (see STAGES there), then reports its own JS heap and, when it rendered, the median time per
 * render and the mean time of the upkeep after it. The render loop does what the pool's worker
 * does between renders (worker-memory.ts).
 */
import { heapStats } from "bun:jsc";
import { median } from "./load.ts";

declare const self: Worker;

export interface StageRequest {
  stage: number;
  renders: number;
  /** The upkeep's backstop: a full collection at least every this many renders (the pool's is 32). */
  fullEvery: number;
  /** satori's layout engine, compiled by the parent as the pool's main thread compiles it. */
  layout: WebAssembly.Module;
}

/** Sent once before the renders of the rendering stages, so the parent can tell the warm-up's peak from theirs. */
export interface StageWarmed {
  warmed: true;
}

export interface StageReply {
  heapMb: number;
  msPerRender?: number;
  /** The upkeep after each render (collections and event-loop turns), mean: full collections are rare and long. */
  upkeepMs?: number;
}

const mean = (values: number[]) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : undefined);

const CONTEXT = { width: 1200, height: 630, theme: "dark" as const, images: {} };

self.onmessage = async (event: MessageEvent<StageRequest>) => {
  const { stage, renders, fullEvery, layout } = event.data;
  if (stage >= 1) await (await import("../../src/render/engines/layout.ts")).initLayout(layout);
  if (stage >= 2) await import("@resvg/resvg-js");
  let setup: import("../../src/render/setup.ts").RenderSetup | undefined;
  if (stage >= 3) {
    const { prepareRendering } = await import("../../src/render/setup.ts");
    const { loadFonts } = await import("../../src/render/fonts/fonts.ts");
    const { silentLogger } = await import("../../src/logger.ts");
    setup = await prepareRendering({ templatesDir: undefined, fontsDir: undefined, logger: silentLogger });
    await loadFonts();
  }
  const template = setup?.templates.get("event");
  const times: number[] = [];
  const upkeepTimes: number[] = [];
  if (stage >= 4 && template) {
    const { renderTemplate } = await import("../../src/render/engines/in-process.ts");
    await renderTemplate(template, { title: "warm-up" }, CONTEXT);
    Bun.gc(true);
    if (stage >= 5) {
      self.postMessage({ warmed: true } satisfies StageWarmed);
      const { createMemoryUpkeep } = await import("../../src/render/sandbox/worker-memory.ts");
      const { satori } = await import("../../src/render/engines/layout.ts");
      const { Resvg } = await import("@resvg/resvg-js");
      const { loadFonts } = await import("../../src/render/fonts/fonts.ts");
      const fonts = await loadFonts();
      const layout = (title: string) => satori(template.render({ title }, CONTEXT) as Parameters<typeof satori>[0], { width: 1200, height: 630, fonts });
      // Stage 7 rasterizes one card over and over; the others draw a new card each time.
      const svg = stage === 7 ? await layout("one card") : "";
      const upkeep = createMemoryUpkeep({ fullEvery });
      for (let i = 0; i < renders; i++) {
        const started = performance.now();
        if (stage === 5) await renderTemplate(template, { title: `A distinct card, number ${i}` }, CONTEXT);
        else if (stage === 6) await layout(`A distinct card, number ${i}`);
        else void new Resvg(svg, { font: { loadSystemFonts: false }, fitTo: { mode: "original" } }).render().pixels;
        const rendered = performance.now();
        times.push(rendered - started);
        await upkeep();
        upkeepTimes.push(performance.now() - rendered);
      }
    }
  }
  Bun.gc(true);
  const reply: StageReply = { heapMb: heapStats().heapSize / 1e6, msPerRender: times.length ? median(times) : undefined, upkeepMs: mean(upkeepTimes) };
  self.postMessage(reply);
};
