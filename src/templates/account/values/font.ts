/** Text: font-size, font-weight, line-height and font-family. */
import { CSS_BOUNDS } from "./bounds.ts";
import { type Grammar, significant, stringify } from "./nodes.ts";
import { type Lengths, lengths } from "./length.ts";
import { dimension, toPx } from "./units.ts";

export const fontSize: Grammar<Lengths> = (_value, nodes, report) => {
  const parts = significant(nodes);
  const d = parts.length === 1 && parts[0]!.type === "word" ? dimension(parts[0]!.value) : undefined;
  if (!d) return void report("takes one size");
  const px = toPx(d);
  if (px !== undefined) {
    if (px <= 0 || px > CSS_BOUNDS.fontSizePx) return void report(`must be above 0 and at most ${CSS_BOUNDS.fontSizePx}px`);
  } else if (d.unit === "em" || d.unit === "rem") {
    if (d.number <= 0 || d.number > CSS_BOUNDS.fontSizeEm) return void report(`must be above 0 and at most ${CSS_BOUNDS.fontSizeEm}${d.unit}`);
  } else if (d.unit === "%") {
    if (d.number <= 0 || d.number > CSS_BOUNDS.fontSizeEm * 100) return void report(`must be above 0 and at most ${CSS_BOUNDS.fontSizeEm * 100}%`);
  } else return void report(`"${stringify(nodes)}" must be in px, em, rem or %`);
  return { kind: "lengths", lengths: [d] };
};

export interface FontWeight {
  kind: "fontWeight";
}

export const fontWeight: Grammar<FontWeight> = (value, _nodes, report) => {
  const v = value.trim().toLowerCase();
  if (["normal", "bold", "lighter", "bolder"].includes(v)) return { kind: "fontWeight" };
  const n = Number(v);
  if (!Number.isInteger(n) || n < 100 || n > 900) return void report("takes normal, bold or a weight from 100 to 900");
  return { kind: "fontWeight" };
};

/** A line height: a factor of the font size, a length, or neither (`normal`). */
export interface LineHeight {
  kind: "lineHeight";
  factor?: number;
  length?: Lengths;
}

const lineHeightLength = lengths(CSS_BOUNDS.fontSizePx * CSS_BOUNDS.lineHeight, { allowNegative: false, count: 1 });

export const lineHeight: Grammar<LineHeight> = (value, nodes, report) => {
  if (value.trim().toLowerCase() === "normal") return { kind: "lineHeight" };
  const d = dimension(value.trim());
  if (d && d.unit === "") {
    if (d.number < 0 || d.number > CSS_BOUNDS.lineHeight) return void report(`a unitless line height is 0 to ${CSS_BOUNDS.lineHeight}`);
    return { kind: "lineHeight", factor: d.number };
  }
  const length = lineHeightLength(value, nodes, report);
  return length && { kind: "lineHeight", length };
};

export interface FontFamily {
  kind: "fontFamily";
  /** The names of the list, unquoted and trimmed, in order. */
  names: string[];
}

/** The names of a CSS font-family list, unquoted and trimmed, in order. */
export function familyNames(value: string): string[] {
  return value
    .split(",")
    .map((name) =>
      name
        .trim()
        .replace(/^(['"])(.*)\1$/, "$2")
        .trim(),
    )
    .filter((name) => name.length > 0);
}

export const fontFamily: Grammar<FontFamily> = (value, _nodes, report) => {
  // Names only: the fonts are the ones the server bundles or its operator installs.
  if (!/^[\w\s"',-]{1,200}$/.test(value)) return void report("takes font family names (letters, digits, spaces, quotes, commas)");
  return { kind: "fontFamily", names: familyNames(value) };
};
