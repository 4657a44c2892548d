/**
 * The bundled fonts: Inter (SIL OFL, from @fontsource/inter) in the subsets that cover Latin,
 * Latin-extended, Cyrillic and Greek, as WOFF. Imported `with { type: "file" }` so
 * `bun build --compile` embeds them: the binary never reads system fonts or node_modules,
 * which also keeps renders identical on every machine.
 *
 * Each subset is registered under its own family name. satori picks one face per family name
 * (the closest weight), then falls back to the other families for glyphs the first lacks, so
 * giving the subsets distinct names is what makes "Привет" or "Γειά" find their glyphs while
 * templates only ever ask for `fontFamily: "Inter"`.
 */
import type { Font } from "satori";

import inter_latin_400 from "../../assets/fonts/inter-latin-400-normal.woff" with { type: "file" };
import inter_latin_600 from "../../assets/fonts/inter-latin-600-normal.woff" with { type: "file" };
import inter_latin_700 from "../../assets/fonts/inter-latin-700-normal.woff" with { type: "file" };
import inter_latin_800 from "../../assets/fonts/inter-latin-800-normal.woff" with { type: "file" };
import inter_latin_ext_400 from "../../assets/fonts/inter-latin-ext-400-normal.woff" with { type: "file" };
import inter_latin_ext_600 from "../../assets/fonts/inter-latin-ext-600-normal.woff" with { type: "file" };
import inter_latin_ext_700 from "../../assets/fonts/inter-latin-ext-700-normal.woff" with { type: "file" };
import inter_latin_ext_800 from "../../assets/fonts/inter-latin-ext-800-normal.woff" with { type: "file" };
import inter_cyrillic_400 from "../../assets/fonts/inter-cyrillic-400-normal.woff" with { type: "file" };
import inter_cyrillic_600 from "../../assets/fonts/inter-cyrillic-600-normal.woff" with { type: "file" };
import inter_cyrillic_700 from "../../assets/fonts/inter-cyrillic-700-normal.woff" with { type: "file" };
import inter_cyrillic_800 from "../../assets/fonts/inter-cyrillic-800-normal.woff" with { type: "file" };
import inter_cyrillic_ext_400 from "../../assets/fonts/inter-cyrillic-ext-400-normal.woff" with { type: "file" };
import inter_cyrillic_ext_600 from "../../assets/fonts/inter-cyrillic-ext-600-normal.woff" with { type: "file" };
import inter_cyrillic_ext_700 from "../../assets/fonts/inter-cyrillic-ext-700-normal.woff" with { type: "file" };
import inter_cyrillic_ext_800 from "../../assets/fonts/inter-cyrillic-ext-800-normal.woff" with { type: "file" };
import inter_greek_400 from "../../assets/fonts/inter-greek-400-normal.woff" with { type: "file" };
import inter_greek_600 from "../../assets/fonts/inter-greek-600-normal.woff" with { type: "file" };
import inter_greek_700 from "../../assets/fonts/inter-greek-700-normal.woff" with { type: "file" };
import inter_greek_800 from "../../assets/fonts/inter-greek-800-normal.woff" with { type: "file" };
import inter_greek_ext_400 from "../../assets/fonts/inter-greek-ext-400-normal.woff" with { type: "file" };
import inter_greek_ext_600 from "../../assets/fonts/inter-greek-ext-600-normal.woff" with { type: "file" };
import inter_greek_ext_700 from "../../assets/fonts/inter-greek-ext-700-normal.woff" with { type: "file" };
import inter_greek_ext_800 from "../../assets/fonts/inter-greek-ext-800-normal.woff" with { type: "file" };

/** The family name templates use. */
export const FONT_FAMILY = "Inter";

type Weight = 400 | 600 | 700 | 800;
const BUNDLED: { family: string; weight: Weight; path: string }[] = [
  { family: "Inter", weight: 400, path: inter_latin_400 },
  { family: "Inter", weight: 600, path: inter_latin_600 },
  { family: "Inter", weight: 700, path: inter_latin_700 },
  { family: "Inter", weight: 800, path: inter_latin_800 },
  { family: "Inter Latin Ext", weight: 400, path: inter_latin_ext_400 },
  { family: "Inter Latin Ext", weight: 600, path: inter_latin_ext_600 },
  { family: "Inter Latin Ext", weight: 700, path: inter_latin_ext_700 },
  { family: "Inter Latin Ext", weight: 800, path: inter_latin_ext_800 },
  { family: "Inter Cyrillic", weight: 400, path: inter_cyrillic_400 },
  { family: "Inter Cyrillic", weight: 600, path: inter_cyrillic_600 },
  { family: "Inter Cyrillic", weight: 700, path: inter_cyrillic_700 },
  { family: "Inter Cyrillic", weight: 800, path: inter_cyrillic_800 },
  { family: "Inter Cyrillic Ext", weight: 400, path: inter_cyrillic_ext_400 },
  { family: "Inter Cyrillic Ext", weight: 600, path: inter_cyrillic_ext_600 },
  { family: "Inter Cyrillic Ext", weight: 700, path: inter_cyrillic_ext_700 },
  { family: "Inter Cyrillic Ext", weight: 800, path: inter_cyrillic_ext_800 },
  { family: "Inter Greek", weight: 400, path: inter_greek_400 },
  { family: "Inter Greek", weight: 600, path: inter_greek_600 },
  { family: "Inter Greek", weight: 700, path: inter_greek_700 },
  { family: "Inter Greek", weight: 800, path: inter_greek_800 },
  { family: "Inter Greek Ext", weight: 400, path: inter_greek_ext_400 },
  { family: "Inter Greek Ext", weight: 600, path: inter_greek_ext_600 },
  { family: "Inter Greek Ext", weight: 700, path: inter_greek_ext_700 },
  { family: "Inter Greek Ext", weight: 800, path: inter_greek_ext_800 },
];

let loaded: Promise<Font[]> | undefined;

/**
 * All bundled fonts, read once per process (or worker). satori caches parsed fonts per array
 * identity, so callers must keep passing this same array rather than copies.
 */
export function loadFonts(): Promise<Font[]> {
  loaded ??= Promise.all(
    BUNDLED.map(async ({ family, weight, path }) => ({
      name: family,
      weight,
      style: "normal" as const,
      data: await Bun.file(path).arrayBuffer(),
    })),
  );
  return loaded;
}
