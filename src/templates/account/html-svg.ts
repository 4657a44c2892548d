/**
 * Inline SVG: the same allow-list as SVG images in templates, on parse5's namespaced tree.
 */
import { drawnElements, expansionProblem, referencesOf, type SvgReferenceNode } from "../../media/svg-expansion.ts";
import { SVG_ATTRIBUTES, SVG_BOUNDS, SVG_ELEMENTS, SVG_NS } from "../../media/svg-allow-list.ts";
import { drawnBySvgImage } from "../../media/svg-safety.ts";
import {
  attributeOffset,
  attributeValueOffset,
  type Context,
  HTML_BOUNDS,
  imageSource,
  type P5Element,
  type P5Node,
  type P5Text,
  report,
  startOf,
} from "./html-context.ts";
import { readStyles, resolveVariables } from "./html-styles.ts";
import type { ElementNode, TemplateNode } from "./tree.ts";

/** SVG elements satori's inline SVG cannot draw (it throws on <text>); fine inside a data: URI. */
const INLINE_SVG_UNSUPPORTED = new Set(["text", "tspan", "textPath"]);
/** SVG attributes that may be a whole `{{color}}` placeholder. */
const SVG_COLOR_ATTRIBUTES = new Set(["fill", "stroke", "stop-color", "flood-color", "color"]);

export function convertSvg(node: P5Element, ctx: Context, depth: number): ElementNode {
  const root: ElementNode = { kind: "element", tag: "svg", attributes: { xmlns: SVG_NS }, fieldAttributes: {}, style: [], children: [], svg: true };
  readStyles(node, ctx, root);
  svgAttributes(node, ctx, root, true);
  root.children = svgChildren(node.childNodes, ctx, depth);
  const tooMany = expansionProblem(drawnElements(referenceTree(root)), SVG_BOUNDS.drawnElements);
  if (tooMany) report(ctx, startOf(node), tooMany);
  return root;
}

/** Elements among `nodes`, those inside sections included (either branch may be drawn). */
const elementsIn = (nodes: TemplateNode[]): ElementNode[] =>
  nodes.flatMap((n) => (n.kind === "element" ? [n] : n.kind === "section" ? elementsIn(n.children) : []));

/** An inline SVG's elements as far as their references go (svg-expansion.ts). */
function referenceTree(node: ElementNode): SvgReferenceNode {
  const href = node.attributes.href ?? node.attributes["xlink:href"];
  return {
    tag: node.tag,
    id: node.attributes.id,
    refs: referencesOf(Object.entries(node.attributes)),
    children: elementsIn(node.children).map(referenceTree),
    self: 1 + (node.tag === "image" && href ? drawnBySvgImage(href) : 0),
  };
}

function svgChildren(nodes: P5Node[], ctx: Context, depth: number): TemplateNode[] {
  const out: TemplateNode[] = [];
  for (const child of nodes) {
    if (child.nodeName === "#comment") continue;
    if (child.nodeName === "#text") {
      if ((child as P5Text).value.trim())
        report(ctx, startOf(child), "text inside an inline <svg> is not drawn (satori draws no SVG <text>; use HTML text over it, or a data: SVG image)");
      continue;
    }
    if (!("tagName" in child)) continue;
    const element = child as P5Element;
    ctx.elements++;
    if (ctx.elements > HTML_BOUNDS.elements) {
      ctx.tooManyElements = true;
      continue;
    }
    const at = startOf(element);
    if (depth + 1 > HTML_BOUNDS.depth) {
      report(ctx, at, `<${element.tagName}> is nested ${depth + 1} levels deep; at most ${HTML_BOUNDS.depth}`);
      continue;
    }
    if (element.namespaceURI !== SVG_NS) {
      report(ctx, at, `<${element.tagName}> inside <svg> is not an SVG element`);
      continue;
    }
    const local = element.tagName;
    if (!SVG_ELEMENTS.has(local) || local === "svg" || INLINE_SVG_UNSUPPORTED.has(local)) {
      report(
        ctx,
        at,
        local === "foreignObject" || local === "script" || local === "style"
          ? `SVG <${local}> is not allowed`
          : `SVG element <${local}> is not allowed in an inline <svg>`,
      );
      continue;
    }
    const converted: ElementNode = { kind: "element", tag: local, attributes: {}, fieldAttributes: {}, style: [], children: [], svg: true };
    svgAttributes(element, ctx, converted, false);
    converted.children = svgChildren(element.childNodes, ctx, depth + 1);
    out.push(converted);
  }
  return out;
}

function svgAttributes(node: P5Element, ctx: Context, element: ElementNode, isRoot: boolean): void {
  let primitives = 0;
  for (const attribute of node.attrs) {
    const name = attribute.prefix ? `${attribute.prefix}:${attribute.name}` : attribute.name;
    const offset = attributeOffset(node, attribute.name);
    const valueOffset = attributeValueOffset(ctx, node, attribute.name);
    if (/^on/i.test(attribute.name)) {
      report(ctx, offset, `event handler attribute "${name}" on <${node.tagName}> is not allowed`);
      continue;
    }
    if (isRoot && (name === "style" || name === "class" || name === "xmlns" || name === "xmlns:xlink")) continue;
    if (name === "style") {
      report(ctx, offset, `attribute "style" on SVG <${node.tagName}> is not allowed (use presentation attributes such as fill)`);
      continue;
    }
    const reference = attribute.name === "href";
    if (!reference && !SVG_ATTRIBUTES.has(name)) {
      report(ctx, offset, `attribute "${name}" on SVG <${node.tagName}> is not allowed`);
      continue;
    }
    const value = attribute.value;
    if (reference) {
      if (value.trim().startsWith("#")) element.attributes.href = value.trim();
      else if (node.tagName === "image") imageSource(ctx, element, value, valueOffset, "href");
      else report(ctx, offset, `<${node.tagName} ${name}> may only reference #fragments inside the svg`);
      continue;
    }
    if (value.includes("{{")) {
      const whole = /^\{\{\s*([a-z][a-z0-9_]{0,63})\s*\}\}$/.exec(value.trim());
      const field = whole ? ctx.fields.get(whole[1]!) : undefined;
      if (whole && !field) report(ctx, valueOffset, `placeholder {{${whole[1]}}} names no declared field (declare it in fields)`);
      else if (field?.type === "color" && SVG_COLOR_ATTRIBUTES.has(name)) element.fieldAttributes[name] = { field: field.name };
      else
        report(
          ctx,
          valueOffset,
          `in SVG, a placeholder may only be a whole ${[...SVG_COLOR_ATTRIBUTES].join("/")} value naming a color field, or an <image href> naming an image_url field`,
        );
      continue;
    }
    const variables = [...value.matchAll(/var\(\s*--([a-zA-Z][a-zA-Z0-9_-]*)\s*(?:,[^)]*)?\)/g)].map((m) => m[1]!);
    const unknown = variables.find((v) => !(v in ctx.themes.dark));
    if (unknown) {
      report(ctx, valueOffset, `theme variable --${unknown} is not defined in themes`);
      continue;
    }
    // A theme variable is checked as each theme will draw it.
    const drawn = variables.length ? [resolveVariables(value, ctx.themes.dark), resolveVariables(value, ctx.themes.light)] : [value];
    if (drawn.some((v) => /url\(/i.test(v) && !/^\s*url\(\s*#[^)]*\)\s*$/.test(v))) {
      report(ctx, valueOffset, `attribute "${name}" may only use url(#id) references inside the svg`);
      continue;
    }
    if (drawn.some((v) => /javascript:/i.test(v))) {
      report(ctx, valueOffset, `attribute "${name}": javascript: is not allowed`);
      continue;
    }
    if (name === "stdDeviation" && value.split(/[\s,]+/).some((n) => !(Math.abs(Number(n)) <= SVG_BOUNDS.stdDeviation))) {
      report(ctx, valueOffset, `stdDeviation is bounded to ${SVG_BOUNDS.stdDeviation}`);
      continue;
    }
    if (node.tagName === "feMorphology" && name === "radius" && value.split(/[\s,]+/).some((n) => !(Math.abs(Number(n)) <= SVG_BOUNDS.morphologyRadius))) {
      report(ctx, valueOffset, `feMorphology radius is bounded to ${SVG_BOUNDS.morphologyRadius}`);
      continue;
    }
    element.attributes[name] = value;
  }
  if (node.tagName === "filter") {
    primitives = node.childNodes.filter((c) => "tagName" in c && /^fe/.test((c as P5Element).tagName) && (c as P5Element).tagName !== "feMergeNode").length;
    if (primitives > SVG_BOUNDS.filterPrimitives) report(ctx, startOf(node), `a <filter> has at most ${SVG_BOUNDS.filterPrimitives} primitives`);
  }
}
