/**
 * Reads an uploaded font file in the serving process: its format from the first bytes, then its
 * tables with fontkit (pure JavaScript: no native code parses what an account sent here). A
 * file fontkit cannot read, or that maps no characters, is not a font.
 */
import type * as Fontkit from "fontkit";

// fontkit (with its brotli decoder and Unicode tables) is loaded at the first font upload or by
// `warmFontInspection`, not at start-up: only font uploads read a font in the serving process.
let fontkit: typeof Fontkit | undefined;
const loadFontkit = (): typeof Fontkit => (fontkit ??= require("fontkit") as typeof Fontkit);

/** Loads fontkit ahead of the first upload (serve.ts calls it once the server is up). */
export function warmFontInspection(): void {
  loadFontkit();
}

export type FontFormat = "ttf" | "otf" | "woff" | "woff2";

export interface FontFacts {
  format: FontFormat;
  /** The typographic family (name ID 16), else the family (name ID 1). */
  family: string | undefined;
  /** OS/2 usWeightClass, to the nearest 100 within 100–900. */
  weight: number;
  style: "normal" | "italic";
  glyphs: number;
  variable: boolean;
  /** The variation axes' tags, for the refusal's message. */
  axes: string[];
}

/** The first four bytes of each format accepted (a collection, .ttc, is not: it holds several fonts). */
export function sniffFontFormat(data: Uint8Array): FontFormat | undefined {
  if (data.length < 12) return undefined;
  const tag = String.fromCharCode(data[0]!, data[1]!, data[2]!, data[3]!);
  if (tag === "\0\x01\0\0" || tag === "true") return "ttf";
  if (tag === "OTTO") return "otf";
  if (tag === "wOFF") return "woff";
  if (tag === "wOF2") return "woff2";
  return undefined;
}

/** What the file says about itself; throws with why when it is not a usable font. */
export function inspectFont(data: Uint8Array): FontFacts {
  const format = sniffFontFormat(data);
  if (!format) throw new Error("is not a TrueType, OpenType, WOFF or WOFF2 font");
  let font: Fontkit.Font;
  try {
    const created = loadFontkit().create(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
    if (!created || "fonts" in created) throw new Error("a font collection");
    font = created as Fontkit.Font;
  } catch (error) {
    throw new Error(`does not parse as a font (${error instanceof Error ? error.message : String(error)})`);
  }
  try {
    const characters = font.characterSet;
    if (!characters || characters.length === 0) throw new Error("it maps no characters (no cmap)");
    const glyphs = font.numGlyphs;
    if (!glyphs) throw new Error("it has no glyphs");
    // Draw a few of its glyphs, as a renderer will: a damaged glyph table fails here, not in a render.
    for (const cp of characters.slice(0, 8)) void font.glyphForCodePoint(cp).path.commands.length;
    const os2 = (font as unknown as { "OS/2"?: { usWeightClass?: number; fsSelection?: { italic?: boolean } } })["OS/2"];
    const rawWeight = os2?.usWeightClass ?? 400;
    const weight = Math.min(900, Math.max(100, Math.round(rawWeight / 100) * 100));
    const italic = os2?.fsSelection?.italic === true || (Number.isFinite(font.italicAngle) && font.italicAngle !== 0);
    let axes = Object.keys(font.variationAxes ?? {});
    // A variation table whose axes fontkit cannot name is still a variable font.
    const tables = (font as unknown as { directory?: { tables?: Record<string, unknown> } }).directory?.tables ?? {};
    if (axes.length === 0 && ("fvar" in tables || "gvar" in tables || "CFF2" in tables)) axes = ["unnamed"];
    const names = font as unknown as { getName?(key: string): string | null };
    const family = (names.getName?.("preferredFamily") ?? font.familyName ?? undefined) || undefined;
    return { format, family, weight, style: italic ? "italic" : "normal", glyphs, variable: axes.length > 0, axes };
  } catch (error) {
    throw new Error(`is not a usable font: ${error instanceof Error ? error.message : String(error)}`);
  }
}
