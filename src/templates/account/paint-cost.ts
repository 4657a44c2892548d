/**
 * What drawing a template costs the rasterizer, estimated from the checked tree before it is ever
 * drawn, so a definition whose drawing would take seconds is refused when it is created, updated
 * or previewed instead of being stopped mid-render (a stopped resvg keeps its core busy until it
 * ends). docs/render-bounds.md has the measurements behind the weights.
 *
 * The unit is one megapixel painted once at the largest output (2400×2400, where a canvas lays
 * out as a max(width, height) square). Each box costs its area clipped to the canvas: ×1 for a
 * fill, a border or an image, ×LAYER_WEIGHT when it is drawn apart by clip-path, ×OPACITY_WEIGHT
 * when made translucent around children, ×CLIP_WEIGHT when it clips children (overflow: hidden,
 * each level of nested clips a layer), ×GRADIENT_WEIGHT per gradient layer (background or mask);
 * each character of its own text ×GLYPH_WEIGHT its em square. Each shadow and each filter
 * function is a filter pass ×EFFECT_WEIGHT over its region as satori writes it: a box shadow's
 * box grown by blur²/4 + spread + offset, a text shadow's text box likewise (once per run of
 * text), a `filter`'s whole canvas grown by 3σ per blur — the part of the region past 5 canvases
 * (which resvg does not draw) counts ×EFFECT_OUTSIDE_WEIGHT. SVG filters, inline or in a data:
 * SVG image, are a pass per primitive for every element using one, over the element's reach (the
 * numbers of its geometry) grown by the filter's region; an SVG's shapes (inline, or in a data:
 * SVG image) count by their boxes as well, weighted for masks, clips, layers, patterns and dashes (svgDrawingCost), each
 * `<use>` again. A size the layout decides (auto,
 * flex) is taken at its largest: the parent's box, or for text whose values all have a
 * max_length, one font size per character.
 */
import { SaxesParser } from "saxes";
import { svgDataUriText } from "../../media/svg-safety.ts";
import { defaultTextLength, MAX_SIZE } from "../../media/card.ts";
import type { FieldProblem } from "../../errors.ts";
import type { CssValue } from "./css.ts";
import type { ParsedHtml } from "./html.ts";
import type { AccountFieldSpec, AccountTemplateSpec } from "./index.ts";
import { type ElementNode, isDeclaration, type StyleValue, type TemplateNode, type ThemedValue } from "./tree.ts";
import { type Length, lengthPx as resolvePx } from "./values/length.ts";
import type { Shadow as CssShadow } from "./values/shadow.ts";
import { svgTransformScale, transformScale } from "./values/transform.ts";
import { ROOT_FONT_PX } from "./values/units.ts";

type Theme = "dark" | "light";

export const PAINT_BUDGET = {
  /** Weighted megapixels at 2400×2400 (a fill megapixel is about 5 ms of resvg): about 2.5 s on one core. */
  megapixels: 500,
} as const;

const GRADIENT_WEIGHT = 20;
/** A box drawn apart and then composited: clipped by clip-path (and SVG's layers: clip-path, opacity, patterns). */
const LAYER_WEIGHT = 4;
/*
 * The weights below are measured by bench/paint-weights.ts, as render time per megapixel over
 * resvg's time for a fill megapixel (the unit), on the engine that is slower for each; the table
 * is in docs/render-bounds.md.
 */
/**
 * A box that clips its children (`overflow: hidden`, rounded or not): resvg draws what it clips
 * into a layer of its own and masks it, one more at every level when clips nest (about 5).
 */
const CLIP_WEIGHT = 5;
/** A box made translucent around its children: takumi draws it into a layer of its own (3.5, nested 6.6; resvg little). */
const OPACITY_WEIGHT = 6.5;
/** Each glyph, over its em square (font size²), wherever it lands (resvg: 0.2 to 0.9). */
const GLYPH_WEIGHT = 1;
const EFFECT_WEIGHT = 60;
const EFFECT_OUTSIDE_WEIGHT = 15;
/** A colour function (brightness(), sepia()…) is a cheap pass next to a blur. */
const COLOUR_FILTER_WEIGHT = EFFECT_WEIGHT / 5;
/** An SVG element drawn through a mask: the mask's content drawn too, then the two composited. */
const SVG_MASK_WEIGHT = 10;
/** An SVG stroke with dashes: each dash a path of its own to outline and fill. */
const SVG_DASH_WEIGHT = 20;
/** resvg draws a filtered layer at most this many canvases wide (from 2 before it to 3 after). */
const LAYER_CANVASES = 5;
/** satori widens a text shadow's filter region by a tenth. */
const TEXT_SHADOW_SLACK = 1.1;
const DEFAULT_FONT_PX = ROOT_FONT_PX;

export interface PaintCost {
  /** Weighted megapixels at the largest output. */
  total: number;
  /** The element costing the most, and what it costs (for the message). */
  worst?: { element: ElementNode; cost: number; what: string };
}

interface Box {
  width: number;
  height: number;
  /** Product of the scale transforms on the way down. */
  scale: number;
  fontPx: number;
  /** Text shadows inherited from an ancestor (text-shadow is inherited). */
  textShadows: Shadow[];
}

interface Shadow {
  blur: number;
  spread: number;
  offset: number;
}

interface Walk {
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
 */
export function paintCost(root: TemplateNode[], width: number, height: number, theme: Theme, fields: AccountFieldSpec[] = []): PaintCost {
  const canvas = Math.max(width, height);
  const maxLengths = new Map(fields.map((f) => [f.name, f.type === "text" ? f.max_length : 64]));
  const longest = new Map(fields.map((f) => [f.name, f.type === "text" ? (f.max_length ?? defaultTextLength(f.name)) : 64]));
  const walk: Walk = { canvas, maxLengths, longest, theme, toMegapixels: (MAX_SIZE / canvas) ** 2 / 1e6, cost: { total: 0 } };
  const top: Box = { width: canvas, height: canvas, scale: 1, fontPx: DEFAULT_FONT_PX, textShadows: [] };
  for (const node of flatten(root)) if (node.kind === "element" && !node.svg) visit(node, top, walk);
  return walk.cost;
}

/** Sections' children in place: both branches count, as either may be drawn. */
function flatten(nodes: TemplateNode[]): TemplateNode[] {
  return nodes.flatMap((n) => (n.kind === "section" ? flatten(n.children) : [n]));
}

function visit(element: ElementNode, parent: Box, walk: Walk): void {
  const style = lastValues(element.style, walk.theme);
  const fontPx = lengthPx(style.fontSize, parent.fontPx, parent.fontPx, walk.canvas) ?? parent.fontPx;
  const transform = style.transform?.value;
  const scale = parent.scale * transformScale(transform?.kind === "transform" ? transform : undefined);
  let width = lengthPx(style.width, parent.width, fontPx, walk.canvas) ?? attributePx(element, "width") ?? parent.width;
  let height = lengthPx(style.height, parent.height, fontPx, walk.canvas) ?? attributePx(element, "height") ?? parent.height;
  const text = textBox(element, style, parent.width, fontPx, walk);
  if (text && style.width === undefined) width = Math.min(width, text.width);
  if (text && style.height === undefined) height = Math.min(height, typeof text.height === "number" ? text.height : text.height(width));
  width = Math.max(width, lengthPx(style.minWidth, parent.width, fontPx, walk.canvas) ?? 0);
  height = Math.max(height, lengthPx(style.minHeight, parent.height, fontPx, walk.canvas) ?? 0);
  const textShadows = style.textShadow === undefined ? parent.textShadows : shadows(style.textShadow);
  // Children lay out inside the padding and border (widths include them here: border-box).
  const [padX, padY] = padding(style, parent.width, fontPx, walk.canvas);
  const box: Box = { width: Math.max(0, width - padX), height: Math.max(0, height - padY), scale, fontPx, textShadows };

  const children = flatten(element.children);
  for (const child of children) {
    if (child.kind !== "element") continue;
    if (!child.svg) visit(child, box, walk);
    else if (child.tag === "svg") visitSvg(child, box, walk);
  }

  const w = width * scale;
  const h = height * scale;
  const canvas = walk.canvas;
  const visible = Math.min(w, canvas) * Math.min(h, canvas);
  const parts: Array<[cost: number, what: string]> = [];
  const fills = paints(element, style);
  if (fills) parts.push([visible * fills, "fill"]);
  for (const uri of svgImages(element, style)) {
    const text = svgDataUriText(uri) ?? "";
    parts.push([svgImagePasses(text, w, h, canvas), "SVG image's filters"]);
    parts.push([svgImageDrawing(text, w, h, canvas), "SVG image's drawing"]);
  }
  const opacity = style.opacity?.value;
  const translucent = opacity?.kind === "number" && opacity.number !== 1 && children.some((c) => c.kind === "element");
  const clip = style.clipPath?.value;
  const clipped = clip?.kind === "clipPath" && clip.shape !== undefined;
  if (clipped) parts.push([visible * LAYER_WEIGHT, "clip-path"]);
  else if (translucent) parts.push([visible * OPACITY_WEIGHT, "opacity"]);
  const overflow = style.overflow?.value;
  if (overflow?.kind === "keyword" && overflow.word === "hidden" && children.length > 0) {
    const rounded = lengthsOf(style.borderRadius?.value).some((l) => l !== "auto" && l.number !== 0);
    parts.push([visible * CLIP_WEIGHT, rounded ? "rounded clip" : "clip"]);
  }
  const characters = glyphs(children, walk);
  if (characters) {
    const em = (element.fit?.maxFontSize ?? fontPx) * scale;
    parts.push([characters * em * em * GLYPH_WEIGHT, "glyphs"]);
  }
  const gradients =
    gradientLayers(style.backgroundImage) + gradientLayers(style.background) + gradientLayers(style.maskImage) + gradientLayers(style.WebkitMaskImage);
  if (gradients) parts.push([visible * gradients * GRADIENT_WEIGHT, `${gradients} gradient layer${gradients > 1 ? "s" : ""}`]);

  for (const shadow of shadows(style.boxShadow)) {
    const margin = shadow.blur ** 2 / 4 + Math.abs(shadow.spread) + shadow.offset;
    parts.push([effectPass(w + 2 * margin * scale, h + 2 * margin * scale, canvas), "box-shadow"]);
  }
  const texts = children.filter((c) => c.kind === "text").length;
  if (texts && textShadows.length) {
    for (const shadow of textShadows) {
      const margin = shadow.blur ** 2 / 4 + shadow.offset;
      const pass = effectPass(TEXT_SHADOW_SLACK * (w + 2 * margin * scale), TEXT_SHADOW_SLACK * (h + 2 * margin * scale), canvas);
      parts.push([pass * texts, "text-shadow"]);
    }
  }
  const filters = filterFunctions(style.filter);
  if (filters.length) {
    // satori gives a filter the whole canvas as its region, grown by how far its functions reach,
    // whatever the element's size: every function is a pass over all of it.
    const margin = filters.reduce((sum, f) => sum + f.margin, 0);
    const side = (canvas + 2 * margin) * scale;
    for (const f of filters) parts.push([effectPass(side, side, canvas) * (f.colour ? COLOUR_FILTER_WEIGHT / EFFECT_WEIGHT : 1), "filter"]);
  }

  let cost = 0;
  const what = new Map<string, number>();
  for (const [c, label] of parts) {
    cost += c * walk.toMegapixels;
    what.set(label, (what.get(label) ?? 0) + c * walk.toMegapixels);
  }
  walk.cost.total += cost;
  if (cost > (walk.cost.worst?.cost ?? 0)) {
    const label = [...what].sort((a, b) => b[1] - a[1])[0]![0];
    walk.cost.worst = { element, cost, what: label };
  }
}

/** How many characters the element's own text can have, its fields at their longest. */
function glyphs(children: TemplateNode[], walk: Walk): number {
  let characters = 0;
  for (const child of children) {
    if (child.kind !== "text") continue;
    for (const piece of child.pieces) characters += typeof piece === "string" ? piece.replace(/\s+/g, "").length : (walk.longest.get(piece.field) ?? 0);
  }
  return characters;
}

/**
 * An element holding only text sizes to it: at most one font size per character (wide glyphs
 * included) on one line, as many lines as that needs in the width it has (or the lines it is
 * fitted or clamped to). Undefined when a value has no max_length (then the parent bounds it).
 */
function textBox(
  element: ElementNode,
  style: Style,
  parentWidth: number,
  fontPx: number,
  walk: Walk,
): { width: number; height: number | ((width: number) => number) } | undefined {
  const children = flatten(element.children);
  if (children.length === 0 || children.some((c) => c.kind !== "text") || element.tag === "img") return undefined;
  let characters = 0;
  for (const child of children) {
    if (child.kind !== "text") continue;
    for (const piece of child.pieces) {
      if (typeof piece === "string") characters += piece.length;
      else {
        const max = walk.maxLengths.get(piece.field);
        if (max === undefined) return element.fit ? { width: parentWidth, height: () => fittedHeight(element, style, parentWidth, fontPx) } : undefined;
        characters += max;
      }
    }
  }
  const [padX, padY] = padding(style, parentWidth, fontPx, walk.canvas);
  const size = element.fit?.maxFontSize ?? fontPx;
  const spacing = Math.max(0, lengthPx(style.letterSpacing, 0, fontPx, walk.canvas) ?? 0);
  const line = characters * (size + spacing);
  return {
    width: line + padX,
    height: (width: number) => {
      const lines = Math.max(1, Math.ceil(line / Math.max(1, width - padX)));
      return Math.min(lines, maxLines(element, style)) * lineHeightPx(style, size) + padY;
    },
  };
}

function fittedHeight(element: ElementNode, style: Style, parentWidth: number, fontPx: number): number {
  const [, padY] = padding(style, parentWidth, fontPx, 0);
  return maxLines(element, style) * (element.fit?.lineHeight ?? 1.2) * (element.fit?.maxFontSize ?? fontPx) + padY;
}

function maxLines(element: ElementNode, style: Style): number {
  const value = (style.lineClamp ?? style.WebkitLineClamp)?.value;
  const clamp = value?.kind === "number" ? value.number : Number.NaN;
  return element.fit?.lines ?? (Number.isInteger(clamp) && clamp > 0 ? clamp : Number.POSITIVE_INFINITY);
}

function lineHeightPx(style: Style, fontPx: number): number {
  const value = style.lineHeight?.value;
  if (value?.kind !== "lineHeight") return 1.2 * fontPx;
  if (value.factor !== undefined) return value.factor * fontPx;
  return resolvePx(single(value.length), { percentOf: fontPx, fontPx, canvas: 0 }) ?? 1.2 * fontPx;
}

/** Horizontal and vertical padding plus border, in px. */
function padding(style: Style, parentWidth: number, fontPx: number, canvas: number): [number, number] {
  const px = (v: ThemedValue | undefined) => lengthPx(v, parentWidth, fontPx, canvas) ?? 0;
  const basis = { percentOf: parentWidth, fontPx, canvas };
  const sides = lengthsOf(style.padding?.value).map((l) => resolvePx(l, basis) ?? 0);
  const [top = 0, right = top, bottom = top, left = right] = sides;
  const shorthand = style.border?.value;
  const widths = [
    shorthand?.kind === "stroke" ? (shorthand.widthPx ?? 0) : 0,
    ...lengthsOf(style.borderWidth?.value).map((l) => resolvePx(l, { ...basis, percentOf: 0 }) ?? 0),
  ];
  const border = 2 * Math.max(0, ...widths);
  return [
    (style.paddingLeft !== undefined ? px(style.paddingLeft) : left) + (style.paddingRight !== undefined ? px(style.paddingRight) : right) + border,
    (style.paddingTop !== undefined ? px(style.paddingTop) : top) + (style.paddingBottom !== undefined ? px(style.paddingBottom) : bottom) + border,
  ];
}

/**
 * An inline <svg>: satori draws it as an SVG image of its box, and resvg draws each element that
 * uses a <filter> through every primitive of it, over the filter's region (by default the
 * element's bounding box and a tenth more each way). The bounding box is taken from the numbers
 * in the element's geometry (and its descendants'), scaled by viewBox and transforms.
 */
function visitSvg(root: ElementNode, parent: Box, walk: Walk): void {
  const width = Number(root.attributes.width) || lengthPx(lastValues(root.style, walk.theme).width, parent.width, parent.fontPx, walk.canvas) || parent.width;
  const height =
    Number(root.attributes.height) || lengthPx(lastValues(root.style, walk.theme).height, parent.height, parent.fontPx, walk.canvas) || parent.height;
  const viewBox = (root.attributes.viewBox ?? "")
    .trim()
    .split(/[\s,]+/)
    .map(Number);
  const units = viewBox.length === 4 && viewBox[2]! > 0 && viewBox[3]! > 0 ? Math.max(width / viewBox[2]!, height / viewBox[3]!) : 1;
  const filters = new Map<string, ElementNode>();
  const each = (node: ElementNode, f: (n: ElementNode, scale: number) => void, scale: number) => {
    const own = scale * svgTransformScale(node.attributes.transform);
    f(node, own);
    for (const child of flatten(node.children)) if (child.kind === "element") each(child, f, own);
  };
  each(
    root,
    (node) => {
      if (node.tag === "filter" && node.attributes.id) filters.set(node.attributes.id, node);
    },
    1,
  );
  let cost = 0;
  each(
    root,
    (node, scale) => {
      const id = /url\(\s*#([^)\s]+)\s*\)/.exec(node.attributes.filter ?? "")?.[1];
      const filter = id === undefined ? undefined : filters.get(id);
      if (!filter) return;
      const passes = flatten(filter.children).filter((c) => c.kind === "element" && /^fe/.test(c.tag) && c.tag !== "feMergeNode").length;
      const side = 2 * geometryExtent(node) * scale * units;
      const region = (attribute: "width" | "height") => {
        const value = filter.attributes[attribute];
        if (filter.attributes.filterUnits === "userSpaceOnUse")
          return value === undefined ? 1.2 * Math.max(width, height) : Math.abs(Number.parseFloat(value) || 0) * scale * units;
        const factor = value === undefined ? 1.2 : value.trim().endsWith("%") ? Number.parseFloat(value) / 100 : Number(value);
        return side * (Number.isFinite(factor) ? Math.abs(factor) : 1.2);
      };
      cost += passes * effectPass(region("width") * parent.scale, region("height") * parent.scale, walk.canvas);
    },
    1,
  );
  const drawn = svgDrawingCost(root, width * parent.scale, height * parent.scale, units * parent.scale, walk.canvas);
  for (const [part, what] of [
    [cost, "SVG filters"],
    [drawn, "SVG drawing"],
  ] as const) {
    if (part === 0) continue;
    walk.cost.total += part * walk.toMegapixels;
    if (part * walk.toMegapixels > (walk.cost.worst?.cost ?? 0)) walk.cost.worst = { element: root, cost: part * walk.toMegapixels, what };
  }
}

/** SVG elements drawn only through a reference (a <use>, url(#id)), never where they stand. */
const SVG_REFERENCED_ONLY = new Set(["defs", "symbol", "clipPath", "mask", "pattern", "linearGradient", "radialGradient", "filter", "title", "desc"]);
const SVG_SHAPES = new Set(["rect", "circle", "ellipse", "line", "polyline", "polygon", "path", "image"]);

/**
 * What an inline SVG's own drawing costs, in logical px² weighted: each shape its box (from its
 * geometry, stroke included, at most the SVG's box) ×1, ×LAYER_WEIGHT when it or a group around
 * it is drawn apart (opacity, clip-path) or filled with a pattern, ×SVG_MASK_WEIGHT when masked,
 * ×SVG_DASH_WEIGHT when its stroke is dashed; a <use> costs what its target does, again.
 * `scale` turns user units into logical px; `width`×`height` is the SVG's box in logical px.
 */
function svgDrawingCost(root: ElementNode, width: number, height: number, scale: number, canvas: number): number {
  const cap = Math.min(width, canvas) * Math.min(height, canvas);
  const byId = new Map<string, ElementNode>();
  const index = (node: ElementNode) => {
    if (node.attributes.id && !byId.has(node.attributes.id)) byId.set(node.attributes.id, node);
    for (const child of flatten(node.children)) if (child.kind === "element") index(child);
  };
  index(root);
  const drawing = new Set<ElementNode>();
  const cost = (node: ElementNode, at: number): number => {
    // A reference back to an element being drawn is refused by the language (svg-expansion.ts).
    if (drawing.has(node)) return 0;
    drawing.add(node);
    const s = at * svgTransformScale(node.attributes.transform);
    const weight = svgWeight(node, byId);
    let total = 0;
    if (SVG_SHAPES.has(node.tag)) total += Math.min(shapeArea(node) * s * s, cap) * weight;
    else if (weight > 1) total += cap * (weight - 1); // a group drawn apart: one more layer
    for (const child of flatten(node.children)) {
      if (child.kind === "element" && !SVG_REFERENCED_ONLY.has(child.tag)) total += cost(child, s);
    }
    const target = node.tag === "use" ? byId.get((node.attributes.href ?? node.attributes["xlink:href"] ?? "").replace(/^#/, "")) : undefined;
    if (target) total += cost(target, s);
    drawing.delete(node);
    return total;
  };
  return cost(root, scale);
}

/** How many times over an element's area costs to draw (see svgDrawingCost). */
function svgWeight(node: ElementNode, byId: Map<string, ElementNode>): number {
  const a = node.attributes;
  const opacity = a.opacity === undefined ? 1 : Number.parseFloat(a.opacity);
  let weight = 1;
  if (Number.isFinite(opacity) && opacity < 1) weight *= LAYER_WEIGHT;
  if (a["clip-path"] && /url\(/i.test(a["clip-path"])) weight *= LAYER_WEIGHT;
  if (a.mask && /url\(/i.test(a.mask)) weight *= SVG_MASK_WEIGHT;
  const paintServer = (value: string | undefined) => byId.get(/url\(\s*#([^)\s]+)\s*\)/.exec(value ?? "")?.[1] ?? "")?.tag;
  if (paintServer(a.fill) === "pattern" || paintServer(a.stroke) === "pattern") weight *= LAYER_WEIGHT;
  if (a.stroke && !/^none$/i.test(a.stroke.trim()) && a["stroke-dasharray"] && !/^(none|0[\s,0]*)$/i.test(a["stroke-dasharray"].trim()))
    weight *= SVG_DASH_WEIGHT;
  return weight;
}

/** A shape's box in user units, from its own geometry (a bound for paths), with its stroke. */
function shapeArea(node: ElementNode): number {
  const a = node.attributes;
  const num = (name: string) => Math.abs(Number.parseFloat(a[name] ?? "0")) || 0;
  const stroke = a.stroke && !/^none$/i.test(a.stroke.trim()) ? (a["stroke-width"] === undefined ? 1 : num("stroke-width")) : 0;
  let w: number;
  let h: number;
  switch (node.tag) {
    case "rect":
    case "image":
      [w, h] = [num("width"), num("height")];
      break;
    case "circle":
      w = h = 2 * num("r");
      break;
    case "ellipse":
      [w, h] = [2 * num("rx"), 2 * num("ry")];
      break;
    case "line":
      [w, h] = [Math.abs(num("x2") - num("x1")), Math.abs(num("y2") - num("y1"))];
      break;
    default:
      // polyline, polygon, path: as far as the numbers in the geometry reach.
      w = h = geometryExtent(node);
  }
  return (w + stroke) * (h + stroke);
}

/** How far an SVG element's geometry reaches from the origin, in its user units (a bound, not its box). */
function geometryExtent(node: ElementNode): number {
  let extent = 0;
  for (const [name, value] of Object.entries(node.attributes)) {
    if (!/^(x|y|x1|y1|x2|y2|cx|cy|r|rx|ry|width|height|d|points)$/.test(name)) continue;
    const numbers = (value.match(/-?\d*\.?\d+(?:e[-+]?\d+)?/gi) ?? []).map((n) => Math.abs(Number(n)));
    // Relative path commands add up: their sum bounds how far the path gets.
    const reach = name === "d" && /[a-z]/.test(value.replace(/e[-+]?\d/gi, "")) ? numbers.reduce((a, b) => a + b, 0) : Math.max(0, ...numbers);
    extent = Math.max(extent, name === "width" || name === "height" || name === "r" ? reach * 2 : reach);
  }
  for (const child of flatten(node.children))
    if (child.kind === "element") extent = Math.max(extent, geometryExtent(child) * svgTransformScale(child.attributes.transform));
  return extent;
}

/** The data: SVG images an element draws (its src, url() in its styles). */
function svgImages(element: ElementNode, style: Style): string[] {
  const out: string[] = [];
  const src = element.attributes.src;
  if (src && /^data:image\/svg\+xml/i.test(src.trim())) out.push(src.trim());
  for (const value of Object.values(style)) for (const url of value?.urls ?? []) if (/^data:image\/svg\+xml/i.test(url)) out.push(url);
  return out;
}

/**
 * A data: SVG image's filters, read from its text: every element using a filter is a pass per
 * primitive in the image, over the image's box grown as far as the numbers in it reach past its
 * viewBox (and a tenth more, the default filter region).
 */
function svgImagePasses(text: string, w: number, h: number, canvas: number): number {
  const uses = (text.match(/filter\s*[=:]\s*["']?\s*url\(/gi) ?? []).length;
  if (uses === 0) return 0;
  const primitives = (text.match(/<(\w+:)?fe(?!MergeNode|Func)[A-Za-z]+/g) ?? []).length || 1;
  const viewBox =
    /viewBox\s*=\s*["']([^"']*)["']/i
      .exec(text)?.[1]
      ?.trim()
      .split(/[\s,]+/)
      .map(Number) ?? [];
  const size =
    viewBox.length === 4
      ? Math.max(viewBox[2]!, viewBox[3]!)
      : Math.max(...[/\swidth\s*=\s*["']?([\d.]+)/i, /\sheight\s*=\s*["']?([\d.]+)/i].map((re) => Number(re.exec(text)?.[1] ?? 0)));
  let reach = 0;
  for (const m of text.matchAll(/\s(x|y|x1|y1|x2|y2|cx|cy|r|rx|ry|width|height|d|points|transform)\s*=\s*(["'])(.*?)\2/gis)) {
    const numbers = (m[3]!.match(/-?\d*\.?\d+(?:e[-+]?\d+)?/gi) ?? []).map((n) => Math.abs(Number(n))).filter(Number.isFinite);
    reach = Math.max(reach, m[1] === "d" ? numbers.reduce((a, b) => a + b, 0) : Math.max(0, ...numbers));
  }
  const grow = 1.2 * Math.max(1, size > 0 ? (2 * reach) / size : 1);
  return uses * primitives * effectPass(w * grow, h * grow, canvas);
}

/**
 * A data: SVG image's own drawing, as an inline SVG's (svgDrawingCost), over the w×h logical px
 * box it is drawn in, its viewBox (or size) scaled to fit. 0 for an image that does not parse:
 * the language has refused it already.
 */
function svgImageDrawing(text: string, w: number, h: number, canvas: number): number {
  const root = svgTree(text);
  if (!root) return 0;
  const viewBox = (root.attributes.viewBox ?? "")
    .trim()
    .split(/[\s,]+/)
    .map(Number);
  const [vw, vh] =
    viewBox.length === 4 && viewBox[2]! > 0 && viewBox[3]! > 0
      ? [viewBox[2]!, viewBox[3]!]
      : [Number.parseFloat(root.attributes.width ?? "") || w, Number.parseFloat(root.attributes.height ?? "") || h];
  return svgDrawingCost(root, w, h, Math.max(w / vw, h / vh), canvas);
}

/** An SVG document as the elements svgDrawingCost reads (local names, attributes by local name). */
function svgTree(text: string): ElementNode | undefined {
  const parser = new SaxesParser({ xmlns: true });
  const top: ElementNode[] = [];
  const open: ElementNode[] = [];
  parser.on("opentag", (tag) => {
    const attributes: Record<string, string> = {};
    for (const a of Object.values(tag.attributes)) attributes[a.local === "href" && a.prefix === "xlink" ? "xlink:href" : a.local] = a.value;
    const node: ElementNode = { kind: "element", tag: tag.local, attributes, fieldAttributes: {}, style: [], children: [], svg: true };
    (open.length ? open[open.length - 1]!.children : top).push(node);
    open.push(node);
  });
  parser.on("closetag", () => {
    open.pop();
  });
  try {
    parser.write(text).close();
  } catch {
    return undefined;
  }
  return top[0]?.tag === "svg" ? top[0] : undefined;
}

/** One filter pass over a region of w×h logical px (unweighted area × weights). */
function effectPass(w: number, h: number, canvas: number): number {
  const limit = LAYER_CANVASES * canvas;
  const drawn = Math.min(w, limit) * Math.min(h, limit);
  return drawn * EFFECT_WEIGHT + (w * h - drawn) * EFFECT_OUTSIDE_WEIGHT;
}

/** The value each property's last declaration gives, as `theme` draws it. */
type Style = Record<string, ThemedValue | undefined>;

/** A colour field may stand in for a fill: it paints, whatever its value. */
const FIELD_COLOUR: ThemedValue = { text: "currentcolor", value: { kind: "color" }, urls: [] };

function lastValues(style: Array<[string, StyleValue]>, theme: Theme): Style {
  const out: Style = {};
  for (const [property, value] of style) out[property] = isDeclaration(value) ? value[theme] : FIELD_COLOUR;
  return out;
}

/** How many times the box is painted flat: a background colour, a border, an image. */
function paints(element: ElementNode, style: Style): number {
  let n = 0;
  const transparent = (v: ThemedValue | undefined) => v === undefined || /^(transparent|none)$/i.test(v.text.trim());
  if (!transparent(style.backgroundColor)) n++;
  else if (!transparent(style.background) && gradientLayers(style.background) === 0) n++;
  if (Object.keys(style).some((p) => /^border(Top|Right|Bottom|Left)?(Width)?$/.test(p) && !drawsNoBorder(style[p]!.value))) n++;
  if (element.tag === "img") n++;
  return n;
}

/** A border (or border width) of none, or of width 0. */
function drawsNoBorder(value: CssValue): boolean {
  if (value.kind === "stroke") return value.widthPx === 0 || value.style === "none" || value.style === "hidden";
  if (value.kind === "lengths") return value.lengths.length === 1 && value.lengths[0] !== "auto" && value.lengths[0]!.number === 0;
  return false;
}

function gradientLayers(value: ThemedValue | undefined): number {
  const v = value?.value;
  return v?.kind === "images" || v?.kind === "background" ? v.layers.filter((l) => l.kind === "gradient").length : 0;
}

const lengthsOf = (value: CssValue | undefined): Length[] => (value?.kind === "lengths" ? value.lengths : []);
const single = (value: CssValue | undefined): Length | undefined => {
  const all = lengthsOf(value);
  return all.length === 1 ? all[0] : undefined;
};

/** A one-length value in logical px, or undefined where the layout decides (auto, none, a keyword). */
function lengthPx(value: ThemedValue | undefined, percentOf: number, fontPx: number, canvas: number): number | undefined {
  return resolvePx(single(value?.value), { percentOf, fontPx, canvas });
}

function attributePx(element: ElementNode, name: "width" | "height"): number | undefined {
  const value = element.attributes[name];
  return value === undefined ? undefined : Number(value);
}

/** Shadows of a box-shadow or text-shadow value. */
function shadows(value: ThemedValue | undefined): Shadow[] {
  const v = value?.value;
  return v?.kind === "shadows" ? v.shadows.map(shadowOf) : [];
}

const shadowOf = (s: CssShadow): Shadow => ({ blur: s.blur, spread: s.spread, offset: Math.max(Math.abs(s.x), Math.abs(s.y)) });

/** Each filter function: how far it draws outside what it filters (a blur spreads 3σ), and whether it only recolours. */
function filterFunctions(value: ThemedValue | undefined): Array<{ margin: number; colour: boolean }> {
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

/**
 * Refuses a definition whose drawing costs more than the budget, with either theme, naming the
 * element that costs the most; returns the cost (of the costlier theme). Applied when a definition is created, updated or previewed; a
 * version stored before the budget existed still renders (bounded by the render time limit).
 */
export function checkPaintBudget(
  spec: Pick<AccountTemplateSpec, "width" | "height" | "themes" | "fields">,
  parsed: ParsedHtml,
  problems: FieldProblem[],
): number {
  const costs = [paintCost(parsed.root, spec.width, spec.height, "dark", spec.fields), paintCost(parsed.root, spec.width, spec.height, "light", spec.fields)];
  const cost = costs[0]!.total >= costs[1]!.total ? costs[0]! : costs[1]!;
  if (cost.total <= PAINT_BUDGET.megapixels) return cost.total;
  const worst = cost.worst!;
  problems.push({
    field: "html",
    message:
      `drawing this template would take about ${Math.round(cost.total)} units of work at ${MAX_SIZE}×${MAX_SIZE}; at most ${PAINT_BUDGET.megapixels} ` +
      `(a unit is one megapixel painted once; a shadow or filter costs ${EFFECT_WEIGHT} per megapixel it blurs). ` +
      `This <${worst.element.tag}> costs the most (${Math.round(worst.cost)}, mostly its ${worst.what}): ` +
      "a shadow's blur reaches blur²/4 px beyond its box, a filter is drawn over the whole canvas, and each layer paints its whole box — use smaller blurs, smaller boxes or fewer layers",
    ...parsed.positionOf(worst.element.at ?? 0),
  });
  return cost.total;
}
