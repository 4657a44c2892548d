/**
 * An account template's HTML, parsed by a real HTML parser (parse5, with source positions)
 * into the template tree (tree.ts), checking everything on the way: elements and attributes
 * against allow-lists, placeholders against the declared fields, sections balanced among the
 * children of one element, styles and Tailwind classes against the CSS allow-list, inline SVG
 * against the SVG allow-list, and the size bounds. Every problem is collected with its line
 * and column so one 400 lists them all. Values are never part of this: they are put into the
 * finished tree at render time, as text.
 */
import { parseFragment } from "parse5";
import type { FieldProblem } from "../../errors.ts";
import { SVG_NS } from "../../media/svg-allow-list.ts";
import {
  attributeOffset,
  attributeValueOffset,
  checkField,
  type Context,
  HTML_BOUNDS,
  imageSource,
  lineStarts,
  type Orientation,
  orientationOf,
  type P5Element,
  type P5Node,
  type P5Text,
  position,
  report,
  startOf,
} from "./html-context.ts";
import { readFit } from "./html-fit.ts";
import { lastKeyword, paddingShorthand, pxOf, readStyles } from "./html-styles.ts";
import { convertSvg } from "./html-svg.ts";
import type { AccountTemplateSpec } from "./index.ts";
import { clip, splitPlaceholders, type Piece, type TagProblem } from "./placeholders.ts";
import type { ElementNode, FieldRef, StyleValue, TemplateNode } from "./tree.ts";

/** HTML elements a template may use (SVG's drawing elements are listed in svg-allow-list.ts). */
export const HTML_ELEMENTS = new Set(["div", "span", "p", "h1", "h2", "h3", "h4", "h5", "h6", "img", "svg", "br", "b", "strong", "i", "em", "u", "s", "small"]);
const ATTRIBUTES_ANYWHERE = new Set(["style", "class", "lang", "dir", "data-fit-lines", "data-min-font-size"]);
/** `dir` values, as in HTML: a direction, or `auto` (from the element's first strong character). */
const DIR_VALUES = new Set(["ltr", "rtl", "auto"]);
const ATTRIBUTES_BY_ELEMENT: Record<string, Set<string>> = {
  img: new Set(["src", "alt", "width", "height"]),
};

export interface ParsedHtml {
  root: TemplateNode[];
  /** 1-based line and column of a character offset in the HTML. */
  positionOf(offset: number): { line: number; column: number };
}

/** Whether the template has classes whose meaning depends on the orientation of the card drawn. */
export const usesOrientation = (html: string): boolean => /(?:^|[\s"':])(?:portrait|landscape):/.test(html);

/**
 * The canvas Tailwind classes are expanded against for a card of one orientation: the design
 * canvas when it has that orientation, else one of the design width with the other orientation.
 * Width breakpoints (`sm:` … `2xl:`) so stay those of the design width, while `portrait:` and
 * `landscape:` follow the card being drawn, as a media query follows the viewport.
 */
function variantCanvas(spec: { width: number; height: number }, orientation: Orientation): { width: number; height: number } {
  if (orientationOf(spec) === orientation) return { width: spec.width, height: spec.height };
  return { width: spec.width, height: orientation === "portrait" ? spec.width : spec.width - 1 };
}

/**
 * Parses and checks a template for cards of one orientation (by default the design canvas's).
 * A template without `portrait:` or `landscape:` classes parses to the same tree for both.
 */
export function parseTemplateHtml(
  spec: Pick<AccountTemplateSpec, "html" | "fields" | "themes" | "width" | "height">,
  problems: FieldProblem[],
  orientation: Orientation = orientationOf(spec),
): ParsedHtml {
  const html = spec.html;
  const bytes = Buffer.byteLength(html, "utf8");
  if (bytes > HTML_BOUNDS.bytes) {
    problems.push({ field: "html", message: `is ${Math.ceil(bytes / 1024)} KiB; at most ${HTML_BOUNDS.bytes / 1024} KiB`, line: 1, column: 1 });
    return { root: [], positionOf: () => ({ line: 1, column: 1 }) };
  }
  const { dark, light } = themeVariables(spec.themes);
  const ctx: Context = {
    html,
    lineStarts: lineStarts(html),
    fields: new Map(spec.fields.map((f) => [f.name, f])),
    themes: { dark, light },
    canvas: variantCanvas(spec, orientation),
    problems,
    elements: 0,
    tooManyElements: false,
    effects: 0,
    orientation,
    tailwind: false,
  };
  const fragment = parseFragment(html, { sourceCodeLocationInfo: true });
  ctx.tailwind = hasClasses(fragment.childNodes);
  const root = children(fragment.childNodes, ctx, 0, spec.width, undefined, false, false);
  if (ctx.tooManyElements) report(ctx, 0, `has ${ctx.elements} elements or more; at most ${HTML_BOUNDS.elements}`);
  if (root.length === 0 && problems.length === 0) report(ctx, 0, 'has no elements: write the card as HTML, e.g. <div style="display: flex">…</div>');
  return { root, positionOf: (offset) => position(ctx, offset) };
}

/**
 * Each theme's variables: its own set over the other one, so one set given serves both themes
 * and a variable only one set defines still has a value in the other.
 */
export function themeVariables(themes: AccountTemplateSpec["themes"]): { dark: Record<string, string>; light: Record<string, string> } {
  return { dark: { ...themes.light, ...themes.dark }, light: { ...themes.dark, ...themes.light } };
}

/** Whether any HTML element has a class (SVG's own elements take none). */
function hasClasses(nodes: P5Node[]): boolean {
  return nodes.some((node) => {
    if (!("tagName" in node)) return false;
    const element = node as P5Element;
    if (element.attrs.some((a) => a.name === "class" && a.value.trim() !== "")) return true;
    return element.namespaceURI !== SVG_NS && hasClasses(element.childNodes);
  });
}

// ---------------------------------------------------------------------------------------------
// Children: text, elements and sections.

type Item = { kind: "node"; node: TemplateNode } | { kind: "tag"; tag: Exclude<Piece, string>; offset: number };

/**
 * The children of one element. Sections open and close among these children only, so a
 * section tag is found in the text between elements and the list is then folded by a stack.
 * `flow`: the element lays its text out as HTML's inline flow (see flowOf), so whitespace
 * between elements is kept for the renderer to judge (compile.ts keeps it between inline
 * content). `preserves`: a white-space the element inherits keeps spaces as written.
 */
function children(
  nodes: P5Node[],
  ctx: Context,
  depth: number,
  width: number,
  parentFont: number | undefined,
  flow: boolean,
  preserves: boolean,
): TemplateNode[] {
  const items: Item[] = [];
  for (const node of nodes) {
    if (node.nodeName === "#comment") continue;
    if (node.nodeName === "#text") {
      textItems(node as P5Text, ctx, items, flow);
      continue;
    }
    if (node.nodeName === "#documentType") {
      report(ctx, startOf(node), "a DOCTYPE is not allowed; a template is a fragment of HTML");
      continue;
    }
    if (!("tagName" in node)) continue;
    const element = convertElement(node as P5Element, ctx, depth + 1, width, parentFont, preserves);
    if (element) items.push({ kind: "node", node: element });
  }
  return foldSections(items, ctx);
}

/** HTML's whitespace: no-break spaces (&nbsp;) are text, not layout. */
const HTML_SPACE = /[ \t\n\f\r]+/g;
const isBlank = (text: string): boolean => !/[^ \t\n\f\r]/.test(text);

function textItems(node: P5Text, ctx: Context, items: Item[], flow: boolean): void {
  // Inside text, runs of whitespace collapse to one space, as in HTML. Whitespace alone between
  // elements is kept as one space in an element with inline flow (the renderer drops it again
  // next to boxes and at the edges); elsewhere (a flex box) it is layout, as in a browser.
  if (isBlank(node.value)) {
    if (flow && node.value) items.push({ kind: "node", node: { kind: "text", pieces: [" "] } });
    return;
  }
  const base = startOf(node);
  const tagProblems: TagProblem[] = [];
  const pieces = splitPlaceholders(node.value, tagProblems);
  for (const p of tagProblems) report(ctx, base + p.offset, p.message);
  for (const piece of pieces) {
    if (typeof piece === "string") {
      // Outside inline flow, whitespace that only lays out the source (a line break around a
      // section tag) is not text.
      if (!flow && isBlank(piece) && /\n/.test(piece)) continue;
      items.push({ kind: "node", node: { kind: "text", pieces: [piece.replace(HTML_SPACE, " ")] } });
    } else if (piece.kind === "value") {
      if (checkField(ctx, piece.name, base + piece.offset)) items.push({ kind: "node", node: { kind: "text", pieces: [{ field: piece.name }] } });
    } else {
      checkField(ctx, piece.name, base + piece.offset);
      items.push({ kind: "tag", tag: piece, offset: base + piece.offset });
    }
  }
}

function foldSections(items: Item[], ctx: Context): TemplateNode[] {
  const root: TemplateNode[] = [];
  const stack: Array<{ name: string; inverted: boolean; offset: number; children: TemplateNode[] }> = [];
  const current = () => (stack.length ? stack[stack.length - 1]!.children : root);
  for (const item of items) {
    if (item.kind === "node") {
      const list = current();
      const last = list[list.length - 1];
      // Adjacent text joins into one node, so "Hi {{name}}!" is one run of text.
      if (item.node.kind === "text" && last?.kind === "text") last.pieces.push(...item.node.pieces);
      else list.push(item.node);
      continue;
    }
    const { tag } = item;
    if (tag.kind === "open" || tag.kind === "inverted") {
      stack.push({ name: tag.name, inverted: tag.kind === "inverted", offset: item.offset, children: [] });
      continue;
    }
    const open = stack[stack.length - 1];
    if (!open) {
      report(ctx, item.offset, `{{/${tag.name}}} closes a section that is not open among this element's children`);
      continue;
    }
    if (open.name !== tag.name) {
      report(ctx, item.offset, `{{/${tag.name}}} closes {{${open.inverted ? "^" : "#"}${open.name}}}; sections must close in the order they open`);
      continue;
    }
    stack.pop();
    current().push({ kind: "section", field: open.name, inverted: open.inverted, children: open.children });
  }
  for (const open of stack) {
    report(ctx, open.offset, `section {{${open.inverted ? "^" : "#"}${open.name}}} is not closed among the children of the element it opens in`);
  }
  return root;
}

// ---------------------------------------------------------------------------------------------
// Elements.

function convertElement(
  node: P5Element,
  ctx: Context,
  depth: number,
  width: number,
  parentFont: number | undefined,
  parentPreserves: boolean,
): ElementNode | undefined {
  ctx.elements++;
  if (ctx.elements > HTML_BOUNDS.elements) {
    ctx.tooManyElements = true;
    return undefined;
  }
  const at = startOf(node);
  const inSvgNamespace = node.namespaceURI === SVG_NS;
  const tag = node.tagName;
  if (depth > HTML_BOUNDS.depth) {
    report(ctx, at, `<${tag}> is nested ${depth} levels deep; at most ${HTML_BOUNDS.depth}`);
    return undefined;
  }
  if (inSvgNamespace && tag !== "svg") {
    report(ctx, at, `SVG element <${tag}> must be inside an <svg>`);
    return undefined;
  }
  if (!HTML_ELEMENTS.has(tag) || (tag === "svg" && !inSvgNamespace)) {
    report(ctx, at, refusedElementMessage(tag));
    return undefined;
  }
  if (tag === "svg") return convertSvg(node, ctx, depth);

  const element: ElementNode = { kind: "element", tag, attributes: {}, fieldAttributes: {}, style: [], children: [], svg: false, at };
  for (const attribute of node.attrs) {
    const name = attribute.prefix ? `${attribute.prefix}:${attribute.name}` : attribute.name;
    const offset = attributeOffset(node, attribute.name);
    if (/^on/i.test(name)) {
      report(ctx, offset, `event handler attribute "${name}" on <${tag}> is not allowed`);
      continue;
    }
    if (!ATTRIBUTES_ANYWHERE.has(name) && !ATTRIBUTES_BY_ELEMENT[tag]?.has(name)) {
      report(ctx, offset, `attribute "${name}" on <${tag}> is not allowed`);
      continue;
    }
    if (name === "style" || name === "class" || name.startsWith("data-")) continue;
    if (/javascript:/i.test(attribute.value)) {
      report(ctx, offset, `attribute "${name}" on <${tag}>: javascript: URLs are not allowed`);
      continue;
    }
    const valueOffset = attributeValueOffset(ctx, node, attribute.name);
    if (name === "src") imageSource(ctx, element, attribute.value, valueOffset, "src");
    else if (name === "dir") {
      const dir = attribute.value.trim().toLowerCase();
      if (DIR_VALUES.has(dir)) element.attributes.dir = dir;
      else report(ctx, valueOffset, `attribute "dir" on <${tag}> takes ltr, rtl or auto, not "${clip(attribute.value)}"`);
    } else if (name === "width" || name === "height") {
      if (!/^\d{1,5}(\.\d+)?$/.test(attribute.value.trim()) || Number(attribute.value) > 10_000)
        report(ctx, valueOffset, `attribute "${name}" on <${tag}> takes a number of pixels up to 10000`);
      else element.attributes[name] = attribute.value.trim();
    } else element.attributes[name] = textAttribute(ctx, attribute.value, valueOffset, name, tag);
  }
  if (tag === "img" && !node.attrs.some((a) => a.name === "src")) report(ctx, at, "<img> needs a src (a data: URI or {{image_field}})");

  readStyles(node, ctx, element);
  const whiteSpace = lastKeyword(element.style, "whiteSpace");
  const preserves = whiteSpace === undefined ? parentPreserves : PRESERVED_WHITE_SPACE.has(whiteSpace);
  const flow = flowOf(tag, element.style, preserves);
  if (flow) element.flow = flow;
  const fontSize = pxOf(element.style, "fontSize") ?? parentFont;
  const ownWidth = pxOf(element.style, "width") ?? pxOf(element.style, "maxWidth") ?? width;
  const inner = Math.max(
    1,
    ownWidth - (pxOf(element.style, "paddingLeft") ?? 0) - (pxOf(element.style, "paddingRight") ?? 0) - (paddingShorthand(element.style) ?? 0),
  );
  if (tag === "img" || tag === "br") {
    if (node.childNodes.length) report(ctx, at, `<${tag}> has no content`);
  } else element.children = children(node.childNodes, ctx, depth, inner, fontSize, flow !== undefined, preserves);
  readFit(node, ctx, element, inner, fontSize);
  return element;
}

/** white-space values that keep spaces as written: whitespace is then left as it always was. */
const PRESERVED_WHITE_SPACE = new Set(["pre", "pre-wrap", "pre-line", "break-spaces"]);

/**
 * Whether an element lays its text out as HTML's inline flow: one the template gives no
 * display (the renderer makes it a row of its children) or `display: block`. A box given
 * `display: flex` (or grid, contents, none) keeps a browser's flex rule instead: each child
 * is an item and whitespace between items is not drawn.
 */
function flowOf(tag: string, style: Array<[string, StyleValue]>, preserves: boolean): ElementNode["flow"] {
  if (preserves || tag === "img" || tag === "br") return undefined;
  const display = lastKeyword(style, "display");
  if (display === undefined) return "row";
  return display === "block" ? "block" : undefined;
}

function refusedElementMessage(tag: string): string {
  if (tag === "script") return "<script> is not allowed: a template is drawn, never run";
  if (tag === "style") return "<style> is not allowed: put styles in style attributes or Tailwind classes";
  if (tag === "link") return "<link> is not allowed: nothing is loaded from outside the template";
  return `<${tag}> is not allowed (use ${[...HTML_ELEMENTS].join(", ")})`;
}

/** A plain text attribute (alt): literal, or text with placeholders joined at render time. */
function textAttribute(ctx: Context, value: string, offset: number, name: string, tag: string): string {
  if (!value.includes("{{")) return value;
  const problems: TagProblem[] = [];
  const pieces = splitPlaceholders(value, problems);
  for (const p of problems) report(ctx, offset + p.offset, p.message);
  for (const piece of pieces) {
    if (typeof piece === "string") continue;
    if (piece.kind !== "value") report(ctx, offset + piece.offset, `sections cannot be used inside attribute "${name}" on <${tag}>`);
    else checkField(ctx, piece.name, offset + piece.offset);
  }
  // alt text is not drawn; keep it literal rather than carrying placeholders into the output.
  return value.replace(/\{\{[^}]*\}\}/g, "").trim();
}

export type { FieldRef };
