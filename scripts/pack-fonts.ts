/**
 * `bun run scripts/pack-fonts.ts`: packs the fallback fonts for scripts Inter lacks into one
 * file, assets/fonts/noto-fallback.bin, which src/render/fonts/fonts.ts embeds in the binary.
 *
 * Source: the pinned @fontsource/noto-sans-* dev dependencies (SIL OFL 1.1). Fontsource ships
 * each family as WOFF2 slices with the unicode-range of each in its CSS (CJK in ~100 slices of
 * a few hundred characters each). We keep the slices as they are: satori decodes WOFF2 itself,
 * and a render then loads only the slices holding the characters it draws (a Japanese title
 * costs a few hundred KB, not the whole 4 MB family). Latin, Cyrillic, Greek and Vietnamese
 * slices are left out (Inter draws those).
 *
 * Weights: 400 and 700 for Arabic, Hebrew, Devanagari and Thai (small). CJK ships 400 only
 * (each CJK weight is ~3 MB per language); bold CJK is satori's synthetic bold.
 *
 * A slice's ranges in the index are the characters its own character map (cmap) holds, within
 * the unicode-range its CSS declares: the CSS can claim more than the font has (the "symbols"
 * slice of Noto Sans Arabic declares arrows and shapes but holds 71 glyphs, so it is not packed),
 * and a character must only count as covered when a glyph really exists, or it would be drawn
 * as a missing glyph without being counted in X-Missing-Glyphs.
 *
 * Layout: u32 LE index length, the index as UTF-8 JSON (`{ slices: PackSlice[] }`, PackSlice in src/render/fonts/fonts.ts),
 * then every slice's bytes back to back. Re-run after bumping a @fontsource package.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { cmapCodePoints, woff2Cmap } from "../src/render/fonts/cmap.ts";
import type { PackSlice } from "../src/render/fonts/fonts.ts";

const FAMILIES: { pkg: string; family: string; langs: string[]; weights: number[]; keep: (subset: string) => boolean }[] = [
  { pkg: "noto-sans-arabic", family: "Noto Sans Arabic", langs: ["ar-AR"], weights: [400, 700], keep: (s) => s === "arabic" },
  { pkg: "noto-sans-hebrew", family: "Noto Sans Hebrew", langs: ["he-IL"], weights: [400, 700], keep: (s) => s === "hebrew" },
  {
    pkg: "noto-sans-devanagari",
    family: "Noto Sans Devanagari",
    langs: ["devanagari", "hi-IN", "ne-NP", "mr-IN"],
    weights: [400, 700],
    keep: (s) => s === "devanagari",
  },
  { pkg: "noto-sans-thai", family: "Noto Sans Thai", langs: ["th-TH"], weights: [400, 700], keep: (s) => s === "thai" },
  { pkg: "noto-sans-jp", family: "Noto Sans JP", langs: ["ja-JP"], weights: [400], keep: (s) => /^\d+$/.test(s) },
  { pkg: "noto-sans-kr", family: "Noto Sans KR", langs: ["ko-KR"], weights: [400], keep: (s) => /^\d+$/.test(s) },
  { pkg: "noto-sans-sc", family: "Noto Sans SC", langs: ["zh-CN", "unknown"], weights: [400], keep: (s) => /^\d+$/.test(s) },
  { pkg: "noto-sans-tc", family: "Noto Sans TC", langs: ["zh-TW", "zh-HK"], weights: [400], keep: (s) => /^\d+$/.test(s) },
];

function parseRanges(css: string): [number, number][] {
  return css.split(",").map((part) => {
    const [a, b] = part.trim().replace(/^U\+/i, "").split("-");
    return [parseInt(a!, 16), parseInt(b ?? a!, 16)] as [number, number];
  });
}

/** Inclusive ranges of the code points in `declared` that the font really maps. */
function coveredRanges(font: Uint8Array, declared: [number, number][]): [number, number][] {
  const points = cmapCodePoints(woff2Cmap(font));
  const inDeclared = (c: number) => declared.some(([a, b]) => c >= a && c <= b);
  const sorted = [...points].filter(inDeclared).sort((a, b) => a - b);
  const ranges: [number, number][] = [];
  for (const c of sorted) {
    const last = ranges[ranges.length - 1];
    if (last && last[1] === c - 1) last[1] = c;
    else ranges.push([c, c]);
  }
  return ranges;
}

const slices: PackSlice[] = [];
const chunks: Uint8Array[] = [];
const versions: string[] = [];
let offset = 0;
for (const { pkg, family, langs, weights, keep } of FAMILIES) {
  const dir = dirname(Bun.resolveSync(`@fontsource/${pkg}/package.json`, import.meta.dir));
  versions.push(`${pkg}@${JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).version}`);
  for (const weight of weights) {
    const css = readFileSync(join(dir, `${weight}.css`), "utf8");
    for (const block of css.split("@font-face").slice(1)) {
      const file = block.match(/url\(\.\/files\/([^)]+\.woff2)\)/)?.[1];
      const range = block.match(/unicode-range:\s*([^;]+);/)?.[1];
      if (!file || !range) throw new Error(`${pkg} ${weight}.css: a @font-face without a woff2 url or unicode-range`);
      const subset = file.slice(pkg.length + 1).replace(new RegExp(`-${weight}-normal\\.woff2$`), "");
      if (!keep(subset)) continue;
      const bytes = readFileSync(join(dir, "files", file));
      slices.push({ family, langs, weight, offset, length: bytes.length, ranges: coveredRanges(bytes, parseRanges(range)) });
      chunks.push(bytes);
      offset += bytes.length;
    }
  }
}

const indexBytes = new TextEncoder().encode(JSON.stringify({ slices }));
const header = new Uint8Array(4);
new DataView(header.buffer).setUint32(0, indexBytes.length, true);
const out = join(import.meta.dir, "../assets/fonts/noto-fallback.bin");
const packed = Buffer.concat([header, indexBytes, ...chunks]);
writeFileSync(out, packed);
console.log(`packed ${slices.length} slices from ${versions.join(", ")}: ${packed.length} bytes → ${out}`);
