/**
 * The paint estimate's weights (src/templates/account/paint-cost.ts), measured: how long each
 * kind of drawing takes per megapixel it covers, as a ratio to a plain fill, on both engines.
 * Each case is a 2400×2400 card (design canvas 2400×2400, so a logical px is an output px) that
 * repeats one thing K times over a white page; the page alone is subtracted, and what is left is
 * divided by K and by the area each repetition covers. Then the estimate is checked against the
 * render times of the costliest definitions the language accepts.
 *
 *   bun run bench/paint-weights.ts            (RUNS=7 renders per case and engine, medians)
 *
 * The table it prints is the one in docs/render-bounds.md (#the-paint-budget).
 */
import { EXPENSIVE_TEMPLATES } from "./lib/expensive-templates.ts";
import type { RenderEngine } from "../src/render/engines/engine.ts";
import { renderTemplate } from "../src/render/engines/in-process.ts";
import { accountTemplateDefinition, parseAccountTemplate } from "../src/templates/account/index.ts";
import { parseTemplateHtml } from "../src/templates/account/html.ts";
import { PAINT_BUDGET, paintCost } from "../src/templates/account/paint-cost.ts";
import type { AccountTemplateSpec } from "../src/templates/account/index.ts";
import { NESTED_CLIPS_TEMPLATE } from "../test/e2e/fixtures/hostile-cards.ts";

const RUNS = Number(process.env.RUNS ?? 7);
const ENGINES: RenderEngine[] = ["satori", "takumi"];
const SIDE = 2400;
const CANVAS_MP = (SIDE * SIDE) / 1e6;
const K = 8;
const n = (count: number, f: (i: number) => string) => Array.from({ length: count }, (_, i) => f(i)).join("");
const page = (body: string) => `<div style="display:flex;width:100%;height:100%;background-color:#ffffff">${body}</div>`;
const full = "position:absolute;left:0;top:0;width:2400px;height:2400px";
const dot = '<div style="display:flex;width:10px;height:10px;background-color:#00f"></div>';
const GLYPHS = 400;
const glyphs = (px: number, color: string) =>
  page(`<div style="display:flex;width:${px * 1.25}px;font-size:${px}px;line-height:0;color:${color}">${"W ".repeat(GLYPHS)}</div>`);

/** name → [html, what one repetition covers in megapixels, repetitions]. */
const CASES: Record<string, [html: string, mp: number, count: number]> = {
  page: [page(""), 0, 1],
  fill: [page(n(K, () => `<div style="${full};background-color:rgba(255,0,0,0.5)"></div>`)), CANVAS_MP, K],
  "clip (overflow: hidden)": [page(n(K, () => `<div style="${full};display:flex;overflow:hidden">${dot}</div>`)), CANVAS_MP, K],
  "rounded clip (overflow: hidden; border-radius)": [
    page(n(K, () => `<div style="${full};display:flex;overflow:hidden;border-radius:40px">${dot}</div>`)),
    CANVAS_MP,
    K,
  ],
  "nested rounded clips": [
    page(`${n(K, () => '<div style="display:flex;flex-grow:1;overflow:hidden;border-radius:40px;padding:1px">')}${dot}${"</div>".repeat(K)}`),
    CANVAS_MP,
    K,
  ],
  "opacity group": [page(n(K, () => `<div style="${full};display:flex;opacity:0.5">${dot}${dot}</div>`)), CANVAS_MP, K],
  "nested opacity groups": [
    page(`${n(K, () => '<div style="display:flex;flex-grow:1;opacity:0.9;padding:1px">')}${dot}${dot}${"</div>".repeat(K)}`),
    CANVAS_MP,
    K,
  ],
  "nested boxes (depth)": [page(`${n(K * 4, () => '<div style="display:flex;flex-grow:1;padding:1px">')}${dot}${"</div>".repeat(K * 4)}`), 0, K * 4],
  // One W per line, the lines stacked on one another (line-height 0): every glyph lands on the canvas.
  "glyphs 200 px, opaque": [glyphs(200, "#000"), (GLYPHS * 200 * 200) / 1e6, 1],
  "glyphs 200 px, translucent": [glyphs(200, "rgba(0,0,0,0.5)"), (GLYPHS * 200 * 200) / 1e6, 1],
  "glyphs 400 px, translucent": [glyphs(400, "rgba(0,0,0,0.5)"), (GLYPHS * 400 * 400) / 1e6, 1],
};

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function once(spec: AccountTemplateSpec, engine: RenderEngine, fields: Record<string, string> = {}): Promise<number> {
  const definition = accountTemplateDefinition(spec);
  const started = performance.now();
  await renderTemplate(definition, fields, { width: SIDE, height: SIDE, theme: "dark", images: {}, engine });
  const ms = performance.now() - started;
  Bun.gc(true);
  return ms;
}

async function time(spec: AccountTemplateSpec, engine: RenderEngine, fields: Record<string, string> = {}): Promise<number> {
  await once(spec, engine, fields);
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) samples.push(await once(spec, engine, fields));
  return median(samples);
}

/**
 * A case's cost over the page alone: the two drawn alternately and the median of the
 * differences taken, so a neighbour's load on the shared box falls on both alike.
 */
async function over(html: string, engine: RenderEngine): Promise<number> {
  const differences: number[] = [];
  await once(spec(html), engine);
  for (let i = 0; i < RUNS; i++) differences.push((await once(spec(html), engine)) - (await once(spec(CASES.page![0]), engine)));
  return median(differences);
}

const spec = (html: string, extra: Partial<AccountTemplateSpec> = {}): AccountTemplateSpec => ({
  id: "bench",
  name: "",
  description: "",
  html,
  fields: [],
  themes: {},
  width: SIDE,
  height: SIDE,
  sample: {},
  ...extra,
});

console.log(
  `# Paint weights — ${new Date().toISOString()} — ${navigator.hardwareConcurrency} cores, ${SIDE}×${SIDE}, median of ${RUNS} differences from the page alone\n`,
);
const ms: Record<string, Record<RenderEngine, number>> = {};
// Warm-up: fonts read, layout compiled, before the page alone is timed.
for (const engine of ENGINES) for (let i = 0; i < 3; i++) await time(spec(CASES.page![0]), engine);
for (const [name, [html]] of Object.entries(CASES)) {
  ms[name] = {} as Record<RenderEngine, number>;
  for (const engine of ENGINES) ms[name]![engine] = name === "page" ? await time(spec(html), engine) : await over(html, engine);
}
const perItem = (name: string, engine: RenderEngine) => ms[name]![engine] / CASES[name]![2];
const fillPerMp = (engine: RenderEngine) => perItem("fill", engine) / CANVAS_MP;

console.log("| what | covers (MP each) | satori ms each | takumi ms each | satori weight | takumi weight |");
console.log("|---|---:|---:|---:|---:|---:|");
for (const [name, [, mp]] of Object.entries(CASES)) {
  if (name === "page") continue;
  const cells = ENGINES.map((e) => perItem(name, e).toFixed(2));
  // Weight: ms per megapixel covered over a fill's ms per megapixel; for depth, per level in fill-megapixels.
  const weights = ENGINES.map((e) => (mp > 0 ? perItem(name, e) / mp / fillPerMp(e) : perItem(name, e) / fillPerMp(e)).toFixed(2));
  console.log(`| ${name} | ${mp ? mp.toFixed(2) : "—"} | ${cells[0]} | ${cells[1]} | ${weights[0]} | ${weights[1]}${mp ? "" : " (MP of fill per level)"} |`);
}
console.log(
  `\npage alone: satori ${ms.page!.satori.toFixed(0)} ms, takumi ${ms.page!.takumi.toFixed(0)} ms; a fill megapixel: satori ${fillPerMp("satori").toFixed(2)} ms, takumi ${fillPerMp("takumi").toFixed(2)} ms\n`,
);

// The estimate against render times: the costliest accepted definitions.
const checked: Record<string, Record<string, unknown>> = { ...EXPENSIVE_TEMPLATES, "nested-clips (8×44)": NESTED_CLIPS_TEMPLATE };
console.log("| definition | estimate (units) | accepted | satori ms | takumi ms | satori ms/unit | takumi ms/unit |");
console.log("|---|---:|---|---:|---:|---:|---:|");
for (const [name, definition] of Object.entries(checked)) {
  const full = spec(definition.html as string, {
    width: (definition.width as number) ?? 1200,
    height: (definition.height as number) ?? 630,
    fields: (definition.fields as AccountTemplateSpec["fields"]) ?? [],
  });
  const units = paintCost(parseTemplateHtml(full, []).root, full.width, full.height, "dark", full.fields).total;
  let accepted = true;
  try {
    parseAccountTemplate(definition);
  } catch {
    accepted = false;
  }
  const fields = { title: "A title of a few words" };
  // Drawn only when accepted or cheap enough to draw here (the nested clips took minutes before).
  const draw = accepted || units < 5 * PAINT_BUDGET.megapixels;
  const times = draw ? await Promise.all(ENGINES.map((e) => time(full, e, fields))) : [Number.NaN, Number.NaN];
  console.log(
    `| ${name} | ${units.toFixed(0)} | ${accepted ? "yes" : "no"} | ${times[0]!.toFixed(0)} | ${times[1]!.toFixed(0)} | ${(times[0]! / units).toFixed(2)} | ${(times[1]! / units).toFixed(2)} |`,
  );
}
