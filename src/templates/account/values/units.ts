/**
 * CSS units: the one table of absolute lengths in px, the relative units a template may write,
 * and a number with its unit as read from one word. Every reader of a length (the checks, the
 * paint estimate, the layout guesses of html-styles.ts) goes through here.
 */
import valueParser from "postcss-value-parser";

/** px per absolute unit (CSS's fixed ratios: 96 px to the inch). */
export const ABSOLUTE_UNITS: Readonly<Record<string, number>> = { px: 1, pt: 4 / 3, pc: 16, in: 96, cm: 96 / 2.54, mm: 96 / 25.4, q: 96 / 101.6 };
export const RELATIVE_UNITS: ReadonlySet<string> = new Set(["em", "rem", "%", "vw", "vh", "vmin", "vmax", "ch", "ex"]);

/** A number with its unit (lowercase; "" for a bare number). */
export interface Dimension {
  number: number;
  unit: string;
}

/** A number with its unit, or undefined for a word that is not one. */
export function dimension(word: string): Dimension | undefined {
  const parsed = valueParser.unit(word);
  if (!parsed) return undefined;
  const number = Number(parsed.number);
  return Number.isFinite(number) ? { number, unit: parsed.unit.toLowerCase() } : undefined;
}

/** px for absolute lengths (and unitless 0); undefined for relative units and other numbers. */
export function toPx(d: Dimension): number | undefined {
  if (d.unit === "" && d.number === 0) return 0;
  const factor = ABSOLUTE_UNITS[d.unit];
  return factor === undefined ? undefined : d.number * factor;
}

/** The root font size rem is relative to. */
export const ROOT_FONT_PX = 16;
