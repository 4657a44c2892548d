/**
 * The paint estimate of inline SVG and of SVG images (data: URIs): shapes by their boxes,
 * weighted for masks, clips, layers, patterns and dashes, and each filter primitive a pass over
 * the filter's region.
 */
import { SaxesParser } from "saxes";
import { type ElementNode } from "./tree.ts";
import { svgTransformScale } from "./values/transform.ts";
import { LAYER_WEIGHT, SVG_DASH_WEIGHT, SVG_MASK_WEIGHT, type Box, type Style, type Walk, effectPass, flatten, lastValues, lengthPx } from "./paint-values.ts";

/**
 * An inline <svg>: satori draws it as an SVG image of its box, and resvg draws each element that
 * uses a <filter> through every primitive of it, over the filter's region (by default the
 * element's bounding box and a tenth more each way). The bounding box is taken from the numbers
 * in the element's geometry (and its descendants'), scaled by viewBox and transforms.
 */
export function visitSvg(root: ElementNode, parent: Box, walk: Walk): void {
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
export function svgImages(element: ElementNode, style: Style): string[] {
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
export function svgImagePasses(text: string, w: number, h: number, canvas: number): number {
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
export function svgImageDrawing(text: string, w: number, h: number, canvas: number): number {
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
