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
import { svgDataUriText } from "../../media/svg-safety.ts";
import { defaultTextLength, MAX_SIZE } from "../../media/card.ts";
import type { FieldProblem } from "../../errors.ts";
import type { ParsedHtml } from "./html.ts";
import type { AccountFieldSpec, AccountTemplateSpec } from "./index.ts";
import { type ElementNode, type TemplateNode, type ThemedValue } from "./tree.ts";
import { lengthPx as resolvePx } from "./values/length.ts";
import { transformScale } from "./values/transform.ts";
import {
  CLIP_WEIGHT,
  COLOUR_FILTER_WEIGHT,
  DEFAULT_FONT_PX,
  EFFECT_WEIGHT,
  GLYPH_WEIGHT,
  GRADIENT_WEIGHT,
  LAYER_WEIGHT,
  OPACITY_WEIGHT,
  TEXT_SHADOW_SLACK,
  type Box,
  type Style,
  type Theme,
  type Walk,
  attributePx,
  effectPass,
  filterFunctions,
  flatten,
  gradientLayers,
  lastValues,
  lengthPx,
  lengthsOf,
  paints,
  shadows,
  single,
} from "./paint-values.ts";
import { svgImageDrawing, svgImagePasses, svgImages, visitSvg } from "./paint-cost-svg.ts";
import { PAINT_BUDGET, type PaintCost } from "./paint-values.ts";

export { PAINT_BUDGET, type PaintCost };

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
