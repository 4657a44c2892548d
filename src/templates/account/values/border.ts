/** Borders and text strokes: a width (bounded, absolute units), a style and a colour. */
import { isCssColor, isColorWord } from "./color.ts";
import { CSS_BOUNDS } from "./bounds.ts";
import { clipValue, type Grammar, significant, stringify } from "./nodes.ts";
import { dimension, toPx } from "./units.ts";

export const BORDER_STYLES = ["none", "solid", "dashed", "dotted", "double", "hidden"];

/** A border shorthand or a text stroke: its width in px (absent when it gives none). */
export interface Stroke {
  kind: "stroke";
  widthPx?: number;
  /** The border's style keyword, when it names one. */
  style?: string;
}

/** border, border-top, …: width style colour in any order. */
export const borderShorthand: Grammar<Stroke> = (_value, nodes, report) => {
  const parts = significant(nodes);
  if (parts.length < 1 || parts.length > 3) return void report("takes a width, a style and a colour");
  let widthPx: number | undefined;
  let style: string | undefined;
  for (const node of parts) {
    const text = stringify(node);
    if (BORDER_STYLES.includes(text.toLowerCase())) {
      style = text.toLowerCase();
      continue;
    }
    if (isColorWord(text)) continue;
    const d = node.type === "word" ? dimension(node.value) : undefined;
    const px = d && toPx(d);
    if (px === undefined || px < 0 || px > CSS_BOUNDS.borderWidthPx)
      return void report(`"${clipValue(text)}" is not a border width (0 to ${CSS_BOUNDS.borderWidthPx}px), style or colour`);
    widthPx = Math.max(widthPx ?? 0, px);
  }
  return { kind: "stroke", ...(widthPx === undefined ? {} : { widthPx }), ...(style === undefined ? {} : { style }) };
};

export const textStroke: Grammar<Stroke> = (_value, nodes, report) => {
  let widthPx: number | undefined;
  for (const node of significant(nodes)) {
    const text = stringify(node);
    if (isCssColor(text)) continue;
    const d = node.type === "word" ? dimension(node.value) : undefined;
    const px = d && toPx(d);
    if (px === undefined || px < 0 || px > CSS_BOUNDS.textStrokePx) return void report(`takes a width (0 to ${CSS_BOUNDS.textStrokePx}px) and a colour`);
    widthPx = Math.max(widthPx ?? 0, px);
  }
  return widthPx === undefined ? { kind: "stroke" } : { kind: "stroke", widthPx };
};
