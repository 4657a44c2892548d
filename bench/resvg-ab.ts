/**
 * Two resvg-js installs side by side in one process: the same SVGs rasterized by each, the order
 * alternating every round, medians reported, and whether their pixels are identical. Written to
 * decide a resvg-js upgrade on a shared, noisy box (both see the same load at the same moment).
 *
 *   mkdir -p /tmp/resvg-old && (cd /tmp/resvg-old && bun init -y >/dev/null && bun add @resvg/resvg-js@2.6.2)
 *   bun bench/resvg-ab.ts /tmp/resvg-old/node_modules node_modules
 *
 * The SVGs are satori's output for the built-in cards (every field set, 1200×630 and 2400×1260)
 * and for a translucent account-template layout; ROUNDS (default 60) sets the rounds per SVG.
 */
import { layoutSize } from "../src/render/engines/engine.ts";
import { loadFonts } from "../src/render/fonts/fonts.ts";
import { initLayout, satori } from "../src/render/engines/layout.ts";
import { accountTemplateDefinition, parseAccountTemplate } from "../src/templates/account/index.ts";
import { createTemplateRegistry } from "../src/templates/registry.ts";
import type { TemplateDefinition } from "../src/templates/types.ts";
import { CARD } from "./lib/phases.ts";

const [oldModules, newModules] = Bun.argv.slice(2);
if (!oldModules || !newModules) {
  console.error("usage: bun bench/resvg-ab.ts OLD_NODE_MODULES NEW_NODE_MODULES");
  process.exit(2);
}
const ROUNDS = Number(process.env.ROUNDS ?? 60);

interface ResvgModule {
  Resvg: new (svg: string, options: object) => { render(): { pixels: Uint8Array } };
}
const load = (dir: string) => require(`${dir.startsWith("/") ? dir : `${process.cwd()}/${dir}`}/@resvg/resvg-js`) as ResvgModule;
const version = (dir: string) => require(`${dir.startsWith("/") ? dir : `${process.cwd()}/${dir}`}/@resvg/resvg-js/package.json`).version as string;
const sides = [
  { name: version(oldModules), module: load(oldModules) },
  { name: version(newModules), module: load(newModules) },
];

await initLayout();
const fonts = await loadFonts();
const registry = createTemplateRegistry();
const translucent = accountTemplateDefinition(
  parseAccountTemplate({
    id: "translucent",
    html: `<div class="flex flex-col w-full h-full bg-slate-900 p-16"><div class="flex opacity-50 rounded-3xl bg-indigo-500 p-10 text-6xl text-white">Translucent hero</div><div class="flex mt-8 text-4xl text-slate-300 opacity-75">and a softer line under it</div></div>`,
  }),
);

async function svgOf(template: TemplateDefinition, width: number, height: number): Promise<string> {
  const logical = layoutSize(width, height);
  const tree = template.render(CARD, { width: logical.width, height: logical.height, theme: "dark", images: {} });
  const svg = await satori(tree as never, { width: logical.width, height: logical.height, fonts, loadAdditionalAsset: async () => [] });
  return svg.replace(/^<svg width="[^"]*" height="[^"]*"/, `<svg width="${width}" height="${height}" preserveAspectRatio="none"`);
}

const cases: [string, string][] = [
  ["event 1200×630", await svgOf(registry.get("event")!, 1200, 630)],
  ["blog 1200×630", await svgOf(registry.get("blog")!, 1200, 630)],
  ["event 2400×1260", await svgOf(registry.get("event")!, 2400, 1260)],
  ["translucent account template 1200×630", await svgOf(translucent, 1200, 630)],
];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const draw = (module: ResvgModule, svg: string) => {
  const started = performance.now();
  const pixels = new module.Resvg(svg, { font: { loadSystemFonts: false }, fitTo: { mode: "original" } }).render().pixels;
  return { ms: performance.now() - started, pixels };
};

console.log(`| SVG | ${sides[0]!.name} median ms | ${sides[1]!.name} median ms | ratio | pixels |`);
console.log("|---|---:|---:|---:|---|");
for (const [name, svg] of cases) {
  for (let i = 0; i < 3; i++) for (const side of sides) draw(side.module, svg);
  const times: number[][] = [[], []];
  const identical = Buffer.from(draw(sides[0]!.module, svg).pixels).equals(Buffer.from(draw(sides[1]!.module, svg).pixels));
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? [0, 1] : [1, 0];
    for (const i of order) times[i]!.push(draw(sides[i]!.module, svg).ms);
    Bun.gc(false);
  }
  const [a, b] = [median(times[0]!), median(times[1]!)];
  console.log(`| ${name} | ${a.toFixed(1)} | ${b.toFixed(1)} | ${(b / a).toFixed(2)} | ${identical ? "identical" : "DIFFER"} |`);
}
