/**
 * Lengths: one to `count` of them (`10px`, `2em`, `50%`, `auto` where allowed), bounded, and
 * how many px a length comes to in a box of known size (for the paint estimate).
 */
import { type Grammar, significant, stringify } from "./nodes.ts";
import { ABSOLUTE_UNITS, type Dimension, dimension, RELATIVE_UNITS, ROOT_FONT_PX, toPx } from "./units.ts";

/** A length as written: a number with its unit, or `auto`. */
export type Length = Dimension | "auto";

export interface Lengths {
  kind: "lengths";
  lengths: Length[];
}

export function lengths(maxPx: number, { allowNegative = true, allowAuto = false, allowRelative = true, count = 4 } = {}): Grammar<Lengths> {
  return (_value, nodes, report) => {
    const parts = significant(nodes);
    if (parts.length === 0 || parts.length > count) return void report(`takes ${count === 1 ? "one length" : `1 to ${count} lengths`}`);
    const out: Length[] = [];
    for (const node of parts) {
      if (node.type !== "word") return void report(`takes lengths, not ${stringify(node)}`);
      if (allowAuto && node.value.toLowerCase() === "auto") {
        out.push("auto");
        continue;
      }
      const d = dimension(node.value);
      if (!d) return void report(`"${node.value}" is not a length`);
      if (!allowNegative && d.number < 0) return void report("must not be negative");
      const px = toPx(d);
      if (px === undefined) {
        if (!allowRelative || !RELATIVE_UNITS.has(d.unit)) return void report(`"${node.value}" must be in px${allowRelative ? ", em, rem, % or vw/vh" : ""}`);
        const relativeMax = d.unit === "%" ? 1000 : d.unit === "em" || d.unit === "rem" ? maxPx / 16 : d.unit === "ch" || d.unit === "ex" ? maxPx / 8 : 1000;
        if (Math.abs(d.number) > relativeMax) return void report(`"${node.value}" is beyond the bound of ${relativeMax}${d.unit}`);
      } else if (Math.abs(px) > maxPx) return void report(`"${node.value}" is beyond the bound of ${maxPx}px`);
      out.push(d);
    }
    return { kind: "lengths", lengths: out };
  };
}

/** What a relative length is relative to, in px. */
export interface LengthBasis {
  /** What 100% is. */
  percentOf: number;
  /** The element's font size (em, ch, ex). */
  fontPx: number;
  /** The canvas side (vw, vh, vmin, vmax). */
  canvas: number;
}

/**
 * The size a length comes to, in px (its magnitude: a negative margin is as big as a positive
 * one), or undefined where the layout decides (auto). A bare number counts as px.
 */
export function lengthPx(length: Length | undefined, basis: LengthBasis): number | undefined {
  if (length === undefined || length === "auto") return undefined;
  const number = Math.abs(length.number);
  const unit = length.unit;
  if (unit === "") return number;
  const factor = ABSOLUTE_UNITS[unit];
  if (factor !== undefined) return number * factor;
  if (unit === "%") return (number / 100) * basis.percentOf;
  if (unit === "em" || unit === "ch" || unit === "ex") return number * basis.fontPx;
  if (unit === "rem") return number * ROOT_FONT_PX;
  if (unit === "vw" || unit === "vh" || unit === "vmin" || unit === "vmax") return (number / 100) * basis.canvas;
  return undefined;
}
