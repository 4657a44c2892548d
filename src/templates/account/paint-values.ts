/**
 * The units and weights of the paint estimate (paint-cost.ts has what they mean and
 * docs/render-bounds.md the measurements behind them), and the reads of a checked tree's values
 * that both the box walk and the SVG walk make.
 */
import type { CssValue } from "./css.ts";
import { type ElementNode, isDeclaration, type StyleValue, type TemplateNode, type ThemedValue } from "./tree.ts";
import { type Length, lengthPx as resolvePx } from "./values/length.ts";
import type { Shadow as CssShadow } from "./values/shadow.ts";
import { ROOT_FONT_PX } from "./values/units.ts";

export type Theme = "dark" | "light";

export const PAINT_BUDGET = {
  /** Weighted megapixels at 2400×2400 (a fill megapixel is about 5 ms of resvg): about 2.5 s on one core. */
  megapixels: 500,
} as const;

export const GRADIENT_WEIGHT = 20;
/** A box drawn apart and then composited: clipped by clip-path (and SVG's layers: clip-path, opacity, patterns). */
export const LAYER_WEIGHT = 4;
/*
 * The weights below are measured by bench/paint-weights.ts, as render time per megapixel over
 * resvg's time for a fill megapixel (the unit), on the engine that is slower for each; the table
 * is in docs/render-bounds.md.
 */
/**
 * A box that clips its children (`overflow: hidden`, rounded or not): resvg draws what it clips
 * into a layer of its own and masks it, one more at every level when clips nest (about 5).
 */
export const CLIP_WEIGHT = 5;
/** A box made translucent around its children: takumi draws it into a layer of its own (3.5, nested 6.6; resvg little). */
export const OPACITY_WEIGHT = 6.5;
/** Each glyph, over its em square (font size²), wherever it lands (resvg: 0.2 to 0.9). */
export const GLYPH_WEIGHT = 1;
export const EFFECT_WEIGHT = 60;
export const EFFECT_OUTSIDE_WEIGHT = 15;
/** A colour function (brightness(), sepia()…) is a cheap pass next to a blur. */
export const COLOUR_FILTER_WEIGHT = EFFECT_WEIGHT / 5;
/** An SVG element drawn through a mask: the mask's content drawn too, then the two composited. */
export const SVG_MASK_WEIGHT = 10;
/** An SVG stroke with dashes: each dash a path of its own to outline and fill. */
export const SVG_DASH_WEIGHT = 20;
/** resvg draws a filtered layer at most this many canvases wide (from 2 before it to 3 after). */
export const LAYER_CANVASES = 5;
/** satori widens a text shadow's filter region by a tenth. */
export const TEXT_SHADOW_SLACK = 1.1;
export const DEFAULT_FONT_PX = ROOT_FONT_PX;

export interface PaintCost {
  /** Weighted megapixels at the largest output. */
  total: number;
  /** The element costing the most, and what it costs (for the message). */
  worst?: { element: ElementNode; cost: number; what: string };
}

export interface Box {
  width: number;
  height: number;
  /** Product of the scale transforms on the way down. */
  scale: number;
  fontPx: number;
  /** Text shadows inherited from an ancestor (text-shadow is inherited). */
  textShadows: Shadow[];
}

export interface Shadow {
  blur: number;
  spread: number;
  offset: number;
}

export interface Walk {
  canvas: number;
  /** Each text field's max_length (undefined: unbounded). */
  maxLengths: Map<string, number | undefined>;
  /** Each field's longest value (its max_length, or the default bound of a request's value). */
  longest: Map<string, number>;
  /** The theme whose values are read. */
  theme: Theme;
  /** Output pixels per logical pixel squared, over 1e6: logical area → megapixels. */
  toMegapixels: number;
  cost: PaintCost;
}

/**
 * The cost of drawing `root` on a `width`×`height` design canvas at the largest output. At
 * 2400×2400 a canvas lays out as a max(width, height) square (the design scaled to fit).

/** Sections' children in place: both branches count, as either may be drawn. */
export function flatten(nodes: TemplateNode[]): TemplateNode[] {
  return nodes.flatMap((n) => (n.kind === "section" ? flatten(n.children) : [n]));
}

/** One filter pass over a region of w×h logical px (unweighted area × weights). */
export function effectPass(w: number, h: number, canvas: number): number {
  const limit = LAYER_CANVASES * canvas;
  const drawn = Math.min(w, limit) * Math.min(h, limit);
  return drawn * EFFECT_WEIGHT + (w * h - drawn) * EFFECT_OUTSIDE_WEIGHT;
}

/** The value each property's last declaration gives, as `theme` draws it. */
export type Style = Record<string, ThemedValue | undefined>;

/** A colour field may stand in for a fill: it paints, whatever its value. */
const FIELD_COLOUR: ThemedValue = { text: "currentcolor", value: { kind: "color" }, urls: [] };

export function lastValues(style: Array<[string, StyleValue]>, theme: Theme): Style {
  const out: Style = {};
  for (const [property, value] of style) out[property] = isDeclaration(value) ? value[theme] : FIELD_COLOUR;
  return out;
}

/** How many times the box is painted flat: a background colour, a border, an image. */
export function paints(element: ElementNode, style: Style): number {
  let n = 0;
  const transparent = (v: ThemedValue | undefined) => v === undefined || /^(transparent|none)$/i.test(v.text.trim());
  if (!transparent(style.backgroundColor)) n++;
  else if (!transparent(style.background) && gradientLayers(style.background) === 0) n++;
  if (Object.keys(style).some((p) => /^border(Top|Right|Bottom|Left)?(Width)?$/.test(p) && !drawsNoBorder(style[p]!.value))) n++;
  if (element.tag === "img") n++;
  return n;
}

/** A border (or border width) of none, or of width 0. */
export function drawsNoBorder(value: CssValue): boolean {
  if (value.kind === "stroke") return value.widthPx === 0 || value.style === "none" || value.style === "hidden";
  if (value.kind === "lengths") return value.lengths.length === 1 && value.lengths[0] !== "auto" && value.lengths[0]!.number === 0;
  return false;
}

export function gradientLayers(value: ThemedValue | undefined): number {
  const v = value?.value;
  return v?.kind === "images" || v?.kind === "background" ? v.layers.filter((l) => l.kind === "gradient").length : 0;
}

export const lengthsOf = (value: CssValue | undefined): Length[] => (value?.kind === "lengths" ? value.lengths : []);
export const single = (value: CssValue | undefined): Length | undefined => {
  const all = lengthsOf(value);
  return all.length === 1 ? all[0] : undefined;
};

/** A one-length value in logical px, or undefined where the layout decides (auto, none, a keyword). */
export function lengthPx(value: ThemedValue | undefined, percentOf: number, fontPx: number, canvas: number): number | undefined {
  return resolvePx(single(value?.value), { percentOf, fontPx, canvas });
}

export function attributePx(element: ElementNode, name: "width" | "height"): number | undefined {
  const value = element.attributes[name];
  return value === undefined ? undefined : Number(value);
}

/** Shadows of a box-shadow or text-shadow value. */
export function shadows(value: ThemedValue | undefined): Shadow[] {
  const v = value?.value;
  return v?.kind === "shadows" ? v.shadows.map(shadowOf) : [];
}

export const shadowOf = (s: CssShadow): Shadow => ({ blur: s.blur, spread: s.spread, offset: Math.max(Math.abs(s.x), Math.abs(s.y)) });

/** Each filter function: how far it draws outside what it filters (a blur spreads 3σ), and whether it only recolours. */
export function filterFunctions(value: ThemedValue | undefined): Array<{ margin: number; colour: boolean }> {
  const v = value?.value;
  if (v?.kind !== "filter") return [];
  return v.functions.map((f) => {
    if ("blurPx" in f) return { margin: 3 * f.blurPx, colour: false };
    if ("shadows" in f) {
      const shadow = f.shadows[0] && shadowOf(f.shadows[0]);
      return { margin: shadow ? 3 * shadow.blur + shadow.offset : 0, colour: false };
    }
    return { margin: 0, colour: true };
  });
}
