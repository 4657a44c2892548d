/**
 * The font families every card may name: the bundled ones (src/render/fonts/fonts.ts holds their
 * files) and the generic names that stand for them. The template language checks the names a
 * template uses against these; the renderer loads the faces.
 */

/** The family templates name; its faces (Latin) are the only ones satori gets up front. */
export const PRIMARY_FAMILY = "Inter";
/** The bundled monospace and serif families (Latin only): what `monospace`, `serif`, `font-mono` and `font-serif` draw. */
export const MONO_FAMILY = "JetBrains Mono";
export const SERIF_FAMILY = "Source Serif 4";

/** The families a template may name, with the generic names that stand for them (lowercase). */
export const BUNDLED_FAMILIES: {
  family: string;
  generic: "sans-serif" | "serif" | "monospace";
  aliases: string[];
  weights: number[];
  styles: ("normal" | "italic")[];
}[] = [
  {
    family: PRIMARY_FAMILY,
    generic: "sans-serif",
    aliases: ["sans-serif", "ui-sans-serif", "system-ui"],
    weights: [400, 600, 700, 800],
    styles: ["normal", "italic"],
  },
  { family: SERIF_FAMILY, generic: "serif", aliases: ["serif", "ui-serif"], weights: [400, 700], styles: ["normal", "italic"] },
  { family: MONO_FAMILY, generic: "monospace", aliases: ["monospace", "ui-monospace"], weights: [400, 700], styles: ["normal", "italic"] },
];

/** The bundled family a name stands for (a family's own name or a generic one, any case), or undefined. */
export function bundledFamilyOf(name: string): string | undefined {
  const key = name.trim().toLowerCase();
  for (const entry of BUNDLED_FAMILIES) if (entry.family.toLowerCase() === key || entry.aliases.includes(key)) return entry.family;
  return undefined;
}

/** One face a render needs: the account's family, its weight and style, and the file's digest. */
export interface AccountFace {
  family: string;
  weight: number;
  style: "normal" | "italic";
  digest: string;
}

/** The fonts a render of an account template uses beyond Inter: the account's faces and the bundled serif or monospace family. */
export interface RenderFonts {
  faces: AccountFace[];
  bundled: string[];
}
