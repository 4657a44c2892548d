/**
 * The bundled faces: Inter (SIL OFL, from @fontsource/inter) in the subsets that cover Latin,
 * Latin-extended, Vietnamese, Cyrillic and Greek (with their extended ranges), and the
 * monospace and serif families (JetBrains Mono, Source Serif 4), as WOFF. Imported
 * `with { type: "file" }` so `bun build --compile` embeds them: the binary never reads system
 * fonts or node_modules, which also keeps renders identical on every machine.
 *
 * Each face's bytes are read once per process, and what each Inter subset draws is read from
 * its own character map; which of them a card's font list holds is decided in fonts.ts.
 */
import type { Font } from "satori";
import { MONO_FAMILY, PRIMARY_FAMILY, SERIF_FAMILY } from "../../media/font-families.ts";
import { cmapCodePoints, woffTable } from "./cmap.ts";

import inter_latin_400 from "../../../assets/fonts/inter-latin-400-normal.woff" with { type: "file" };
import inter_latin_600 from "../../../assets/fonts/inter-latin-600-normal.woff" with { type: "file" };
import inter_latin_700 from "../../../assets/fonts/inter-latin-700-normal.woff" with { type: "file" };
import inter_latin_800 from "../../../assets/fonts/inter-latin-800-normal.woff" with { type: "file" };
import inter_latin_ext_400 from "../../../assets/fonts/inter-latin-ext-400-normal.woff" with { type: "file" };
import inter_latin_ext_600 from "../../../assets/fonts/inter-latin-ext-600-normal.woff" with { type: "file" };
import inter_latin_ext_700 from "../../../assets/fonts/inter-latin-ext-700-normal.woff" with { type: "file" };
import inter_latin_ext_800 from "../../../assets/fonts/inter-latin-ext-800-normal.woff" with { type: "file" };
import inter_latin_400_italic from "../../../assets/fonts/inter-latin-400-italic.woff" with { type: "file" };
import inter_latin_700_italic from "../../../assets/fonts/inter-latin-700-italic.woff" with { type: "file" };
import inter_latin_ext_400_italic from "../../../assets/fonts/inter-latin-ext-400-italic.woff" with { type: "file" };
import inter_latin_ext_700_italic from "../../../assets/fonts/inter-latin-ext-700-italic.woff" with { type: "file" };
import inter_cyrillic_400 from "../../../assets/fonts/inter-cyrillic-400-normal.woff" with { type: "file" };
import inter_cyrillic_600 from "../../../assets/fonts/inter-cyrillic-600-normal.woff" with { type: "file" };
import inter_cyrillic_700 from "../../../assets/fonts/inter-cyrillic-700-normal.woff" with { type: "file" };
import inter_cyrillic_800 from "../../../assets/fonts/inter-cyrillic-800-normal.woff" with { type: "file" };
import inter_cyrillic_ext_400 from "../../../assets/fonts/inter-cyrillic-ext-400-normal.woff" with { type: "file" };
import inter_cyrillic_ext_600 from "../../../assets/fonts/inter-cyrillic-ext-600-normal.woff" with { type: "file" };
import inter_cyrillic_ext_700 from "../../../assets/fonts/inter-cyrillic-ext-700-normal.woff" with { type: "file" };
import inter_cyrillic_ext_800 from "../../../assets/fonts/inter-cyrillic-ext-800-normal.woff" with { type: "file" };
import inter_greek_400 from "../../../assets/fonts/inter-greek-400-normal.woff" with { type: "file" };
import inter_greek_600 from "../../../assets/fonts/inter-greek-600-normal.woff" with { type: "file" };
import inter_greek_700 from "../../../assets/fonts/inter-greek-700-normal.woff" with { type: "file" };
import inter_greek_800 from "../../../assets/fonts/inter-greek-800-normal.woff" with { type: "file" };
import inter_greek_ext_400 from "../../../assets/fonts/inter-greek-ext-400-normal.woff" with { type: "file" };
import inter_greek_ext_600 from "../../../assets/fonts/inter-greek-ext-600-normal.woff" with { type: "file" };
import inter_greek_ext_700 from "../../../assets/fonts/inter-greek-ext-700-normal.woff" with { type: "file" };
import inter_greek_ext_800 from "../../../assets/fonts/inter-greek-ext-800-normal.woff" with { type: "file" };
import inter_vietnamese_400 from "../../../assets/fonts/inter-vietnamese-400-normal.woff" with { type: "file" };
import inter_vietnamese_600 from "../../../assets/fonts/inter-vietnamese-600-normal.woff" with { type: "file" };
import inter_vietnamese_700 from "../../../assets/fonts/inter-vietnamese-700-normal.woff" with { type: "file" };
import inter_vietnamese_800 from "../../../assets/fonts/inter-vietnamese-800-normal.woff" with { type: "file" };
import inter_cyrillic_400_italic from "../../../assets/fonts/inter-cyrillic-400-italic.woff" with { type: "file" };
import inter_cyrillic_700_italic from "../../../assets/fonts/inter-cyrillic-700-italic.woff" with { type: "file" };
import inter_cyrillic_ext_400_italic from "../../../assets/fonts/inter-cyrillic-ext-400-italic.woff" with { type: "file" };
import inter_cyrillic_ext_700_italic from "../../../assets/fonts/inter-cyrillic-ext-700-italic.woff" with { type: "file" };
import inter_greek_400_italic from "../../../assets/fonts/inter-greek-400-italic.woff" with { type: "file" };
import inter_greek_700_italic from "../../../assets/fonts/inter-greek-700-italic.woff" with { type: "file" };
import inter_greek_ext_400_italic from "../../../assets/fonts/inter-greek-ext-400-italic.woff" with { type: "file" };
import inter_greek_ext_700_italic from "../../../assets/fonts/inter-greek-ext-700-italic.woff" with { type: "file" };
import inter_vietnamese_400_italic from "../../../assets/fonts/inter-vietnamese-400-italic.woff" with { type: "file" };
import inter_vietnamese_700_italic from "../../../assets/fonts/inter-vietnamese-700-italic.woff" with { type: "file" };
import mono_400 from "../../../assets/fonts/jetbrains-mono-latin-400-normal.woff" with { type: "file" };
import mono_700 from "../../../assets/fonts/jetbrains-mono-latin-700-normal.woff" with { type: "file" };
import mono_400_italic from "../../../assets/fonts/jetbrains-mono-latin-400-italic.woff" with { type: "file" };
import serif_400 from "../../../assets/fonts/source-serif-4-latin-400-normal.woff" with { type: "file" };
import serif_700 from "../../../assets/fonts/source-serif-4-latin-700-normal.woff" with { type: "file" };
import serif_400_italic from "../../../assets/fonts/source-serif-4-latin-400-italic.woff" with { type: "file" };

export type Weight = 400 | 600 | 700 | 800;
/**
 * Every subset has italic faces at 400 and 700 (what `<i>`, `<em>` and `font-style: italic` ask
 * for, bold or not; other weights take the nearest); they come after the upright faces of their
 * family, whose first face stands for the family's coverage.
 */
const BUNDLED: { family: string; weight: Weight; style?: "italic"; path: string }[] = [
  { family: "Inter", weight: 400, path: inter_latin_400 },
  { family: "Inter", weight: 600, path: inter_latin_600 },
  { family: "Inter", weight: 700, path: inter_latin_700 },
  { family: "Inter", weight: 800, path: inter_latin_800 },
  { family: "Inter", weight: 400, style: "italic", path: inter_latin_400_italic },
  { family: "Inter", weight: 700, style: "italic", path: inter_latin_700_italic },
  { family: "Inter Latin Ext", weight: 400, path: inter_latin_ext_400 },
  { family: "Inter Latin Ext", weight: 600, path: inter_latin_ext_600 },
  { family: "Inter Latin Ext", weight: 700, path: inter_latin_ext_700 },
  { family: "Inter Latin Ext", weight: 800, path: inter_latin_ext_800 },
  { family: "Inter Latin Ext", weight: 400, style: "italic", path: inter_latin_ext_400_italic },
  { family: "Inter Latin Ext", weight: 700, style: "italic", path: inter_latin_ext_700_italic },
  { family: "Inter Cyrillic", weight: 400, path: inter_cyrillic_400 },
  { family: "Inter Cyrillic", weight: 600, path: inter_cyrillic_600 },
  { family: "Inter Cyrillic", weight: 700, path: inter_cyrillic_700 },
  { family: "Inter Cyrillic", weight: 800, path: inter_cyrillic_800 },
  { family: "Inter Cyrillic", weight: 400, style: "italic", path: inter_cyrillic_400_italic },
  { family: "Inter Cyrillic", weight: 700, style: "italic", path: inter_cyrillic_700_italic },
  { family: "Inter Cyrillic Ext", weight: 400, path: inter_cyrillic_ext_400 },
  { family: "Inter Cyrillic Ext", weight: 600, path: inter_cyrillic_ext_600 },
  { family: "Inter Cyrillic Ext", weight: 700, path: inter_cyrillic_ext_700 },
  { family: "Inter Cyrillic Ext", weight: 800, path: inter_cyrillic_ext_800 },
  { family: "Inter Cyrillic Ext", weight: 400, style: "italic", path: inter_cyrillic_ext_400_italic },
  { family: "Inter Cyrillic Ext", weight: 700, style: "italic", path: inter_cyrillic_ext_700_italic },
  { family: "Inter Greek", weight: 400, path: inter_greek_400 },
  { family: "Inter Greek", weight: 600, path: inter_greek_600 },
  { family: "Inter Greek", weight: 700, path: inter_greek_700 },
  { family: "Inter Greek", weight: 800, path: inter_greek_800 },
  { family: "Inter Greek", weight: 400, style: "italic", path: inter_greek_400_italic },
  { family: "Inter Greek", weight: 700, style: "italic", path: inter_greek_700_italic },
  { family: "Inter Greek Ext", weight: 400, path: inter_greek_ext_400 },
  { family: "Inter Greek Ext", weight: 600, path: inter_greek_ext_600 },
  { family: "Inter Greek Ext", weight: 700, path: inter_greek_ext_700 },
  { family: "Inter Greek Ext", weight: 800, path: inter_greek_ext_800 },
  { family: "Inter Greek Ext", weight: 400, style: "italic", path: inter_greek_ext_400_italic },
  { family: "Inter Greek Ext", weight: 700, style: "italic", path: inter_greek_ext_700_italic },
  { family: "Inter Vietnamese", weight: 400, path: inter_vietnamese_400 },
  { family: "Inter Vietnamese", weight: 600, path: inter_vietnamese_600 },
  { family: "Inter Vietnamese", weight: 700, path: inter_vietnamese_700 },
  { family: "Inter Vietnamese", weight: 800, path: inter_vietnamese_800 },
  { family: "Inter Vietnamese", weight: 400, style: "italic", path: inter_vietnamese_400_italic },
  { family: "Inter Vietnamese", weight: 700, style: "italic", path: inter_vietnamese_700_italic },
];

/**
 * The monospace and serif faces. Never in the shared list: satori parses every face of a list
 * before its first layout, and most cards name neither. A card that names one gets a list with
 * its faces (`fontsForCard`); a glyph they lack falls back to Inter and its subsets.
 */
const BUNDLED_EXTRA: { family: string; weight: Weight; style?: "italic"; path: string }[] = [
  { family: MONO_FAMILY, weight: 400, path: mono_400 },
  { family: MONO_FAMILY, weight: 700, path: mono_700 },
  { family: MONO_FAMILY, weight: 400, style: "italic", path: mono_400_italic },
  { family: SERIF_FAMILY, weight: 400, path: serif_400 },
  { family: SERIF_FAMILY, weight: 700, path: serif_700 },
  { family: SERIF_FAMILY, weight: 400, style: "italic", path: serif_400_italic },
];

/** The faces of the bundled monospace or serif family (read once per process; satori caches parses by the bytes). */
export function extraBundledFaces(family: string): Promise<Font[]> {
  const faces = BUNDLED_EXTRA.filter((face) => face.family === family);
  return Promise.all(
    faces.map(async ({ family, weight, style, path }) => ({ name: family, weight, style: style ?? ("normal" as const), data: await readFace(path) })),
  );
}

const faceData = new Map<string, Promise<ArrayBuffer>>();

/** A bundled face's bytes, read once: satori keeps one parse per ArrayBuffer, so a face read twice would be parsed twice. */
function readFace(path: string): Promise<ArrayBuffer> {
  let data = faceData.get(path);
  if (!data) {
    data = Bun.file(path).arrayBuffer();
    faceData.set(path, data);
  }
  return data;
}

/** The faces of one bundled Inter family, or of every one when none is named, in the order satori is to try them. */
export function bundledFaces(family?: string): Promise<Font[]> {
  const faces = family ? BUNDLED.filter((face) => face.family === family) : BUNDLED;
  return Promise.all(
    faces.map(async ({ family, weight, style, path }) => ({ name: family, weight, style: style ?? ("normal" as const), data: await readFace(path) })),
  );
}

export interface Coverage {
  /** What the Latin faces draw: satori hands over whole words, and their Latin letters need nothing more. */
  primary: Set<number>;
  /** The other subsets, in the order they were once all registered, so a character two have goes to the same one. */
  subsets: { family: string; points: Set<number> }[];
}
let coverage: Promise<Coverage> | undefined;

/**
 * What each Inter subset draws, from its own character map (every weight of a subset maps the
 * same characters). Read once, at the first render.
 */
export function interCoverage(): Promise<Coverage> {
  coverage ??= (async () => {
    const first = new Map<string, string>();
    for (const face of BUNDLED) if (!first.has(face.family)) first.set(face.family, face.path);
    const families = await Promise.all(
      [...first].map(async ([family, path]) => ({ family, points: cmapCodePoints(woffTable(new Uint8Array(await readFace(path)), "cmap")) })),
    );
    return { primary: families.find((f) => f.family === PRIMARY_FAMILY)!.points, subsets: families.filter((f) => f.family !== PRIMARY_FAMILY) };
  })();
  return coverage;
}
