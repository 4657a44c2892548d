/**
 * The fidelity harness: a corpus design (test/fidelity/corpus/*.json) drawn by ogsmith on each
 * engine and by Chromium from the same HTML, and a score for how far apart two drawings are.
 * docs/templates.md ("Fidelity") describes the method and the thresholds corpus.test.ts holds.
 *
 * The browser's page is the template's HTML with the sample values put in as ogsmith puts them
 * (sections kept or dropped, `{{field}}` as text, image fields as their data: URIs, colour
 * fields as values, `var(--name)` as the theme's value), in a box of the card's exact size, on
 * a page that gives every element ogsmith's defaults (`box-sizing: border-box`, Inter) and
 * loads the bundled font files from assets/fonts with @font-face, so both sides set type with
 * the same outlines. A design written in Tailwind classes also gets Tailwind's own CSS,
 * compiled here by the `tailwindcss` package (offline: its compiler and its CSS come from
 * node_modules) for exactly the classes the corpus uses.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { compile } from "tailwindcss";
import type { DecodedPng } from "../support/png.ts";

export const CORPUS_DIR = join(import.meta.dir, "corpus");
const FONTS_DIR = join(import.meta.dir, "../../assets/fonts");

export interface CorpusDesign {
  /** The public design it is modelled on (written anew here, not copied). */
  source: string;
  /** What it exercises, and how it is written. */
  notes?: string;
  theme: "dark" | "light";
  /**
   * Values drawn over the definition's sample: image fields whose data: URI is longer than a
   * sample value may be (4,096 characters), as a request would send them.
   */
  values?: Record<string, string>;
  definition: {
    id: string;
    name?: string;
    fields: Array<{ name: string; type: "text" | "image_url" | "color"; required?: boolean }>;
    themes?: { dark?: Record<string, string>; light?: Record<string, string> };
    width?: number;
    height?: number;
    sample: Record<string, string>;
    html: string;
  };
}

export function loadCorpus(): Array<{ name: string; design: CorpusDesign }> {
  return readdirSync(CORPUS_DIR)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => ({ name: f.replace(/\.json$/, ""), design: JSON.parse(readFileSync(join(CORPUS_DIR, f), "utf8")) as CorpusDesign }));
}

/** What a design is drawn with: its sample, with `values` over it. */
export const valuesOf = (design: CorpusDesign): Record<string, string> => ({ ...design.definition.sample, ...design.values });

export const usesTailwind = (html: string): boolean => /\sclass\s*=\s*"[^"]*\S/.test(html);

const escapeHtml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/**
 * The template's HTML with the values put in, as ogsmith fills its tree: `{{#f}}…{{/f}}` kept
 * when `f` has a non-blank value, `{{^f}}…{{/f}}` when it has none, `{{f}}` the value as text,
 * `var(--name)` the theme's value (each theme's set over the other, as themeVariables does).
 */
export function fillTemplate(design: CorpusDesign): string {
  const { html, themes = {} } = design.definition;
  const sample = valuesOf(design);
  const variables = design.theme === "dark" ? { ...themes.light, ...themes.dark } : { ...themes.dark, ...themes.light };
  const present = (field: string) => (sample[field] ?? "").trim() !== "";
  const tokens = html.split(/(\{\{\s*[#^/]?\s*[a-z][a-z0-9_]*\s*\}\})/);
  let out = "";
  // A stack of "is this section drawn": everything inside a dropped section is dropped.
  const drawn: boolean[] = [true];
  for (const token of tokens) {
    const tag = /^\{\{\s*([#^/]?)\s*([a-z][a-z0-9_]*)\s*\}\}$/.exec(token);
    const on = drawn.at(-1)!;
    if (!tag) {
      if (on) out += token;
    } else if (tag[1] === "#" || tag[1] === "^") {
      drawn.push(on && present(tag[2]!) === (tag[1] === "#"));
    } else if (tag[1] === "/") {
      drawn.pop();
    } else if (on) {
      // Text as given (white-space decides what shows); a colour or image value trimmed, as ogsmith puts it in.
      const field = design.definition.fields.find((f) => f.name === tag[2]);
      const value = sample[tag[2]!] ?? "";
      out += escapeHtml(field?.type === "text" ? value : value.trim());
    }
  }
  return out
    .replace(/var\(\s*--([a-zA-Z][a-zA-Z0-9_-]*)\s*(?:,[^)]*)?\)/g, (whole, name: string) => variables[name] ?? whole)
    .replace(/font-family:\s*([^;"]+)/g, (_, list: string) => `font-family: ${browserFamilies(list)}`);
}

/** The generic names as ogsmith draws them (src/render/fonts/fonts.ts): its bundled families. */
const GENERIC: Record<string, string> = {
  "sans-serif": "Inter",
  "system-ui": "Inter",
  "ui-sans-serif": "Inter",
  serif: "Source Serif 4",
  "ui-serif": "Source Serif 4",
  monospace: "JetBrains Mono",
  "ui-monospace": "JetBrains Mono",
};

/**
 * A style's font-family list as ogsmith reads it (each name unquoted, a generic name as the
 * bundled family it draws), written for the browser with every name quoted: a browser's own
 * `serif` is a system font, and `Source Serif 4` unquoted is not CSS.
 */
function browserFamilies(list: string): string {
  return list
    .split(",")
    .map((name) =>
      name
        .trim()
        .replace(/^(['"]|&quot;)(.*)\1$/, "$2")
        .trim(),
    )
    .filter(Boolean)
    .map((name) => JSON.stringify(GENERIC[name.toLowerCase()] ?? name).replace(/"/g, "'"))
    .join(", ");
}

/** Every class the corpus's Tailwind designs use, to compile Tailwind's CSS for. */
export function classesOf(html: string): string[] {
  return [...html.matchAll(/\sclass\s*=\s*"([^"]*)"/g)].flatMap((m) => m[1]!.split(/\s+/).filter(Boolean));
}

/**
 * Tailwind 4's CSS (preflight, theme, the utilities for `candidates`) from the `tailwindcss`
 * package's own compiler, with its font stacks pointed at the bundled families as ogsmith draws
 * `font-sans`, `font-serif` and `font-mono`.
 */
export async function tailwindCss(candidates: string[]): Promise<string> {
  const base = dirname(require.resolve("tailwindcss/package.json"));
  const input = `@import "tailwindcss";
@theme {
  --font-sans: Inter, sans-serif;
  --font-serif: "Source Serif 4", serif;
  --font-mono: "JetBrains Mono", monospace;
}`;
  const compiler = await compile(input, {
    base,
    loadStylesheet: async (id: string, from: string) => {
      const path = id === "tailwindcss" ? join(base, "index.css") : join(from, id);
      return { path, base: dirname(path), content: readFileSync(path, "utf8") };
    },
  });
  return compiler.build([...new Set(candidates)]);
}

/** The bundled faces the corpus draws with (Latin), as @font-face rules on data: URIs. */
export function fontFaceCss(): string {
  const faces: Array<[family: string, file: string, weight: number, style: string]> = [];
  for (const weight of [400, 600, 700, 800]) faces.push(["Inter", `inter-latin-${weight}-normal.woff`, weight, "normal"]);
  for (const weight of [400, 700]) faces.push(["Inter", `inter-latin-${weight}-italic.woff`, weight, "italic"]);
  faces.push(["Source Serif 4", "source-serif-4-latin-400-normal.woff", 400, "normal"]);
  faces.push(["Source Serif 4", "source-serif-4-latin-700-normal.woff", 700, "normal"]);
  faces.push(["Source Serif 4", "source-serif-4-latin-400-italic.woff", 400, "italic"]);
  faces.push(["JetBrains Mono", "jetbrains-mono-latin-400-normal.woff", 400, "normal"]);
  faces.push(["JetBrains Mono", "jetbrains-mono-latin-700-normal.woff", 700, "normal"]);
  faces.push(["JetBrains Mono", "jetbrains-mono-latin-400-italic.woff", 400, "italic"]);
  return faces
    .map(([family, file, weight, style]) => {
      const data = readFileSync(join(FONTS_DIR, file)).toString("base64");
      return `@font-face { font-family: "${family}"; src: url(data:font/woff;base64,${data}) format("woff"); font-weight: ${weight}; font-style: ${style}; font-display: block; }`;
    })
    .join("\n");
}

/**
 * The page Chromium draws: ogsmith's defaults for every element (border-box, Inter, the
 * font-family generics as the bundled families), the card in a box of its exact size at the
 * top left. `tailwind` is the compiled Tailwind CSS for a class-based design, else undefined.
 */
export function browserPage(design: CorpusDesign, size: { width: number; height: number }, fonts: string, tailwind: string | undefined): string {
  return `<!doctype html>
<html><head><meta charset="utf-8"><style>
${fonts}
</style>${tailwind ? `<style>${tailwind}</style>` : ""}<style>
*, ::before, ::after { box-sizing: border-box; }
html, body { margin: 0; padding: 0; background: white; }
body { font-family: Inter, sans-serif; }
#card { display: flex; position: relative; overflow: hidden; width: ${size.width}px; height: ${size.height}px; }
</style></head><body><div id="card">${fillTemplate(design)}</div></body></html>`;
}

/** The picture composited over white, as RGB floats: what a viewer sees of a card. */
function rgbOverWhite(png: DecodedPng): Float32Array {
  const out = new Float32Array(png.width * png.height * 3);
  for (let i = 0, j = 0; i < png.pixels.length; i += 4, j += 3) {
    const a = png.pixels[i + 3]! / 255;
    for (let c = 0; c < 3; c++) out[j + c] = png.pixels[i + c]! * a + 255 * (1 - a);
  }
  return out;
}

/** A box blur of radius 1 (3×3), horizontally then vertically, edges clamped. */
function boxBlur(src: Float32Array, width: number, height: number): Float32Array {
  const tmp = new Float32Array(src.length);
  const out = new Float32Array(src.length);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const l = Math.max(0, x - 1);
      const r = Math.min(width - 1, x + 1);
      for (let c = 0; c < 3; c++) {
        const row = y * width;
        tmp[(row + x) * 3 + c] = (src[(row + l) * 3 + c]! + src[(row + x) * 3 + c]! + src[(row + r) * 3 + c]!) / 3;
      }
    }
  }
  for (let y = 0; y < height; y++) {
    const u = Math.max(0, y - 1) * width;
    const d = Math.min(height - 1, y + 1) * width;
    const m = y * width;
    for (let x = 0; x < width; x++) {
      for (let c = 0; c < 3; c++) out[(m + x) * 3 + c] = (tmp[(u + x) * 3 + c]! + tmp[(m + x) * 3 + c]! + tmp[(d + x) * 3 + c]!) / 3;
    }
  }
  return out;
}

/** The blur the score looks through: two 3×3 box passes, close to a Gaussian of σ ≈ 1.15 px. */
export const BLUR_PASSES = 2;
/** A pixel differs when a channel is more than this far apart (of 255) after the blur. */
export const TOLERANCE = 40;

export interface FidelityScore {
  /** Percent of the card's pixels that differ (after the blur, beyond the tolerance): the score held. */
  differing: number;
  /** Mean absolute channel difference after the blur (0–255), for reading only. */
  mean: number;
}

/**
 * How far apart two drawings of one card are. Both are composited over white and blurred a
 * little, so that antialiasing and sub-pixel glyph placement (which differ between any two
 * rasterizers) mostly fall under the tolerance, while a box, a line of text or a colour in
 * another place or of another size does not. `diff`, when given, receives a picture of where.
 */
export function fidelityScore(a: DecodedPng, b: DecodedPng, diff?: Uint8Array): FidelityScore {
  if (a.width !== b.width || a.height !== b.height) throw new Error(`sizes differ: ${a.width}×${a.height} vs ${b.width}×${b.height}`);
  let x = rgbOverWhite(a);
  let y = rgbOverWhite(b);
  for (let pass = 0; pass < BLUR_PASSES; pass++) {
    x = boxBlur(x, a.width, a.height);
    y = boxBlur(y, a.width, a.height);
  }
  let differing = 0;
  let sum = 0;
  for (let p = 0, i = 0; i < x.length; p++, i += 3) {
    let worst = 0;
    for (let c = 0; c < 3; c++) {
      const d = Math.abs(x[i + c]! - y[i + c]!);
      sum += d;
      if (d > worst) worst = d;
    }
    const far = worst > TOLERANCE;
    if (far) differing++;
    if (diff) {
      // Differing pixels red, the rest a faint grey copy of the first picture.
      const grey = 215 + ((a.pixels[p * 4]! + a.pixels[p * 4 + 1]! + a.pixels[p * 4 + 2]!) / 3) * (40 / 255);
      diff.set(far ? [230, 0, 40, 255] : [grey, grey, grey, 255], p * 4);
    }
  }
  const pixels = a.width * a.height;
  return { differing: (100 * differing) / pixels, mean: sum / (pixels * 3) };
}
