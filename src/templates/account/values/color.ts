/**
 * What a `color` field accepts: one CSS colour and nothing else (`#rgb`, `#rgba`, `#rrggbb`,
 * `#rrggbbaa`, `rgb()`/`rgba()`, `hsl()`/`hsla()` with numbers, a named colour, `transparent`).
 * The value goes into an inline style, so anything looser would be CSS injection.
 */
import namedColors from "css-color-keywords/colors.json" with { type: "json" };
import { clipValue, type Grammar } from "./nodes.ts";

const NAMED = new Set(
  Object.keys(namedColors)
    .map((n) => n.toLowerCase())
    .concat(["transparent", "rebeccapurple"]),
);
const HEX = /^#(?:[0-9a-f]{3}|[0-9a-f]{4}|[0-9a-f]{6}|[0-9a-f]{8})$/i;
const NUM = String.raw`[+-]?(?:\d+(?:\.\d+)?|\.\d+)`;
const PCT = `${NUM}%`;
const NUM_OR_PCT = `${NUM}%?`;
const ANGLE = `${NUM}(?:deg|rad|grad|turn)?`;
const SEP = String.raw`\s*,\s*`;
const ALPHA_COMMA = `(?:${SEP}${NUM_OR_PCT})?`;
const ALPHA_SLASH = String.raw`(?:\s*/\s*${NUM_OR_PCT})?`;
const RGB = new RegExp(
  String.raw`^rgba?\(\s*(?:${NUM_OR_PCT}${SEP}${NUM_OR_PCT}${SEP}${NUM_OR_PCT}${ALPHA_COMMA}|${NUM_OR_PCT}\s+${NUM_OR_PCT}\s+${NUM_OR_PCT}${ALPHA_SLASH})\s*\)$`,
  "i",
);
const HSL = new RegExp(String.raw`^hsla?\(\s*(?:${ANGLE}${SEP}${PCT}${SEP}${PCT}${ALPHA_COMMA}|${ANGLE}\s+${PCT}\s+${PCT}${ALPHA_SLASH})\s*\)$`, "i");

export function isCssColor(value: string): boolean {
  const v = value.trim();
  if (v.length === 0 || v.length > 64) return false;
  return HEX.test(v) || RGB.test(v) || HSL.test(v) || NAMED.has(v.toLowerCase());
}

export const COLOR_FORMS = "a CSS colour (#rgb, #rrggbb, #rrggbbaa, rgb(), hsl() or a named colour)";

/** A colour property's value (its text is the colour: the renderer draws it as written). */
export interface Color {
  kind: "color";
}

export const color: Grammar<Color> = (value, _nodes, report) => {
  if (!isCssColor(value) && value.trim().toLowerCase() !== "currentcolor") return void report(`"${clipValue(value)}" is not a colour`);
  return { kind: "color" };
};

/** A colour word or function inside a longer value (a shadow's, a border's). */
export const isColorWord = (text: string): boolean => isCssColor(text) || text.toLowerCase() === "currentcolor";
