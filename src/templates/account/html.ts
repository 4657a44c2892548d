/**
 * An account template's HTML, parsed by a real HTML parser (parse5, with source positions)
 * into the template tree (tree.ts), checking everything on the way: elements and attributes
 * against allow-lists, placeholders against the declared fields, sections balanced among the
 * children of one element, styles and Tailwind classes against the CSS allow-list, inline SVG
 * against the SVG allow-list, and the size bounds. Every problem is collected with its line
 * and column so one 400 lists them all. Values are never part of this: they are put into the
 * finished tree at render time, as text.
 */
import { parseFragment, type DefaultTreeAdapterMap } from "parse5";
import type { FieldProblem } from "../../errors.ts";
import { drawnElements, expansionProblem, referencesOf, type SvgReferenceNode } from "../../media/svg-expansion.ts";
import { checkDataImage, drawnBySvgImage, SVG_ATTRIBUTES, SVG_BOUNDS, SVG_ELEMENTS, SVG_NS } from "../../media/svg-safety.ts";
import {
  CSS_BOUNDS,
  camelCaseProperty,
  clipValue,
  COLOR_PROPERTIES,
  EFFECT_PROPERTIES,
  kebabCaseProperty,
  parseDeclaration,
  splitDeclarations,
} from "./css.ts";
import type { AccountFieldSpec, AccountTemplateSpec } from "./index.ts";
import { clip, splitPlaceholders, type Piece, type TagProblem } from "./placeholders.ts";
import { embeddedImageProblem } from "./images.ts";
import { expandClasses } from "./tailwind.ts";
import {
  type Declaration,
  type ElementNode,
  type FieldRef,
  isDeclaration,
  type StyleValue,
  type TemplateNode,
  type TextFit,
  type ThemedValue,
} from "./tree.ts";

type P5Node = DefaultTreeAdapterMap["childNode"];
type P5Element = DefaultTreeAdapterMap["element"];
type P5Text = DefaultTreeAdapterMap["textNode"];

export const HTML_BOUNDS = {
  bytes: 256 * 1024,
  elements: 2000,
  depth: 48,
  fitLines: 10,
  minFontSize: 8,
  /** Problems listed in one answer; past this the rest are summarised. */
  problems: 50,
} as const;

/** HTML elements a template may use (SVG's drawing elements are listed in svg-safety.ts). */
export const HTML_ELEMENTS = new Set(["div", "span", "p", "h1", "h2", "h3", "h4", "h5", "h6", "img", "svg", "br", "b", "strong", "i", "em", "u", "s", "small"]);
const ATTRIBUTES_ANYWHERE = new Set(["style", "class", "lang", "dir", "data-fit-lines", "data-min-font-size"]);
/** `dir` values, as in HTML: a direction, or `auto` (from the element's first strong character). */
const DIR_VALUES = new Set(["ltr", "rtl", "auto"]);
const ATTRIBUTES_BY_ELEMENT: Record<string, Set<string>> = {
  img: new Set(["src", "alt", "width", "height"]),
};
/** SVG elements satori's inline SVG cannot draw (it throws on <text>); fine inside a data: URI. */
const INLINE_SVG_UNSUPPORTED = new Set(["text", "tspan", "textPath"]);
/** SVG attributes that may be a whole `{{color}}` placeholder. */
const SVG_COLOR_ATTRIBUTES = new Set(["fill", "stroke", "stop-color", "flood-color", "color"]);

interface Context {
  html: string;
  lineStarts: number[];
  fields: Map<string, AccountFieldSpec>;
  /** Theme variable values, per theme (one set given: both themes use it). */
  themes: { dark: Record<string, string>; light: Record<string, string> };
  canvas: { width: number; height: number };
  problems: FieldProblem[];
  elements: number;
  tooManyElements: boolean;
  effects: number;
  /** The orientation of card this tree is for (orientation classes and fit values follow it). */
  orientation: Orientation;
  /** The template uses Tailwind classes, so its elements get Tailwind's border reset (see readStyles). */
  tailwind: boolean;
}

export interface ParsedHtml {
  root: TemplateNode[];
  /** 1-based line and column of a character offset in the HTML. */
  positionOf(offset: number): { line: number; column: number };
}

/** A card's orientation as Tailwind's `portrait:` and `landscape:` see it: a square card is portrait. */
export type Orientation = "portrait" | "landscape";
export const orientationOf = (size: { width: number; height: number }): Orientation => (size.height >= size.width ? "portrait" : "landscape");

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

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  return starts;
}

function position(ctx: Context, offset: number): { line: number; column: number } {
  let lo = 0;
  let hi = ctx.lineStarts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (ctx.lineStarts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo + 1, column: offset - ctx.lineStarts[lo]! + 1 };
}

function report(ctx: Context, offset: number, message: string): void {
  if (ctx.problems.length >= HTML_BOUNDS.problems) return;
  ctx.problems.push({ field: "html", message, ...position(ctx, Math.max(0, Math.min(offset, ctx.html.length))) });
}

const startOf = (node: P5Node): number => node.sourceCodeLocation?.startOffset ?? 0;

/** Where an attribute's value starts in the source (for positions inside it). */
function attributeValueOffset(ctx: Context, element: P5Element, name: string): number {
  const loc = element.sourceCodeLocation?.attrs?.[name];
  if (!loc) return startOf(element);
  const raw = ctx.html.slice(loc.startOffset, loc.endOffset);
  const eq = raw.indexOf("=");
  if (eq < 0) return loc.startOffset;
  let i = eq + 1;
  while (i < raw.length && /\s/.test(raw[i]!)) i++;
  if (raw[i] === '"' || raw[i] === "'") i++;
  return loc.startOffset + i;
}

function attributeOffset(element: P5Element, name: string): number {
  return element.sourceCodeLocation?.attrs?.[name]?.startOffset ?? startOf(element);
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

function checkField(ctx: Context, name: string, offset: number): boolean {
  if (ctx.fields.has(name)) return true;
  report(ctx, offset, `placeholder {{${name}}} names no declared field (declare it in fields)`);
  return false;
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

/**
 * The keyword the last declaration of `property` gives, undefined when there is none; "" when
 * it depends on the theme (the tree is the same for both themes, so neither keyword decides).
 */
function lastKeyword(style: Array<[string, StyleValue]>, property: string): string | undefined {
  let found: string | undefined;
  for (const [p, v] of style) if (p === property) found = isDeclaration(v) && v.dark === v.light && v.dark.value.kind === "keyword" ? v.dark.value.word : "";
  return found;
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

/** An image source: a data:image URI, or `{{field}}` naming an image_url field. */
function imageSource(ctx: Context, element: ElementNode, value: string, offset: number, attribute: string): void {
  const v = value.trim();
  const whole = /^\{\{\s*([a-z][a-z0-9_]{0,63})\s*\}\}$/.exec(v);
  if (whole) {
    const field = ctx.fields.get(whole[1]!);
    if (!field) report(ctx, offset, `placeholder {{${whole[1]}}} names no declared field (declare it in fields)`);
    else if (field.type !== "image_url") report(ctx, offset, `${attribute}="{{${field.name}}}" must name an image_url field (${field.name} is ${field.type})`);
    else element.fieldAttributes[attribute] = { field: field.name };
    return;
  }
  if (v.includes("{{")) {
    report(ctx, offset, `${attribute} takes one whole {{image_field}} placeholder, or a data: URI`);
    return;
  }
  if (/^(https?:)?\/\//i.test(v)) {
    report(ctx, offset, `${attribute}: a literal http(s) URL is not allowed (declare an image_url field and use {{field}}, or embed a data: URI)`);
    return;
  }
  const problem = checkDataImage(v, "template", 0) ?? embeddedImageProblem(v);
  if (problem) {
    report(ctx, offset, `${attribute}: the image ${problem}`);
    return;
  }
  element.attributes[attribute] = v;
}

// ---------------------------------------------------------------------------------------------
// Styles: Tailwind classes first, then the style attribute (which wins, as in satori).

function readStyles(node: P5Element, ctx: Context, element: ElementNode): void {
  const classAttribute = node.attrs.find((a) => a.name === "class");
  if (classAttribute?.value.trim()) {
    const offset = attributeValueOffset(ctx, node, "class");
    if (classAttribute.value.includes("{{")) report(ctx, offset, "placeholders cannot be used in class");
    else {
      const expanded = expandClasses(classAttribute.value, ctx.canvas);
      for (const p of expanded.problems) report(ctx, offset + p.offset, p.message);
      for (const [property, value] of expanded.style) {
        const read = parseDeclaration(property, value, dataUriCheck);
        if ("problem" in read) report(ctx, offset, `class expands to a value out of bounds: ${read.problem}`);
        else {
          const declaration = sameForBothThemes(value, read);
          if (countEffect(ctx, property, declaration, offset)) element.style.push([property, declaration]);
        }
      }
    }
  }
  const styleAttribute = node.attrs.find((a) => a.name === "style");
  if (styleAttribute) {
    const offset = attributeValueOffset(ctx, node, "style");
    for (const declaration of splitDeclarations(styleAttribute.value)) {
      const parsed = readDeclaration(ctx, declaration.property, declaration.value.replace(/\s*!important\s*$/i, ""), offset + declaration.offset);
      if (parsed && countEffect(ctx, parsed[0], parsed[1], offset + declaration.offset)) element.style.push(parsed);
    }
  }
  // Tailwind's preflight gives every element `border-width: 0; border-style: solid`, so that
  // `border-t border-slate-300` is a 1px top rule and nothing more. Under the element's own
  // declarations, and only where it draws a border at all, so other trees stay as they were.
  if (ctx.tailwind && element.style.some(([property]) => BORDER_PROPERTY.test(property))) {
    element.style.unshift(["borderWidth", TAILWIND_BORDER_WIDTH], ["borderStyle", TAILWIND_BORDER_STYLE]);
  }
  // The preflight also takes the browser's margins off paragraphs and headings, and gives
  // headings the size and weight of the text around them: `<h1 class="text-6xl">` is 72 px with
  // no margin, `<p class="mt-4">` has no bottom margin. Only what the element does not set itself.
  if (ctx.tailwind && PREFLIGHT_BLOCKS.has(element.tag)) {
    const own = new Set(element.style.map(([property]) => property));
    const reset: Array<[string, StyleValue]> = [];
    if (!own.has("margin")) for (const side of ["marginTop", "marginBottom"] as const) if (!own.has(side)) reset.push([side, PREFLIGHT_RESET[side]]);
    if (element.tag !== "p" && !own.has("fontSize")) reset.push(["fontSize", PREFLIGHT_RESET.fontSize]);
    if (element.tag !== "p" && !own.has("fontWeight")) reset.push(["fontWeight", PREFLIGHT_RESET.fontWeight]);
    element.style.unshift(...reset);
  }
}

/** A declaration that names no theme variable: both themes draw the one value read. */
function sameForBothThemes(source: string, read: { value: ThemedValue["value"]; urls: string[] }): Declaration {
  const themed: ThemedValue = { text: source, value: read.value, urls: read.urls };
  return { source, dark: themed, light: themed };
}

/** A declaration the language writes itself (always valid). */
function ownDeclaration(property: string, value: string): Declaration {
  const read = parseDeclaration(property, value, () => undefined);
  if ("problem" in read) throw new Error(`the language's own ${property}: ${value} is refused: ${read.problem}`);
  return sameForBothThemes(value, read);
}

const TAILWIND_BORDER_WIDTH = ownDeclaration("borderWidth", "0");
const TAILWIND_BORDER_STYLE = ownDeclaration("borderStyle", "solid");

/** Elements the browser gives margins (and headings a size and weight) that Tailwind's preflight takes off. */
const PREFLIGHT_BLOCKS = new Set(["p", "h1", "h2", "h3", "h4", "h5", "h6"]);

/** What the preflight sets on those elements, where they do not set it themselves. */
const PREFLIGHT_RESET = {
  marginTop: ownDeclaration("marginTop", "0"),
  marginBottom: ownDeclaration("marginBottom", "0"),
  fontSize: ownDeclaration("fontSize", "1em"),
  // The language takes no `inherit` from authors (weights are 100–900, normal or bold); the
  // engines do, and it is what the preflight means: the weight of the text around the heading.
  fontWeight: sameForBothThemes("inherit", { value: { kind: "fontWeight" }, urls: [] }),
};

/** Border widths, styles and colours (not radii). */
const BORDER_PROPERTY = /^border(Top|Right|Bottom|Left)?(Width|Style|Color)?$/;

/** Counts shadows and filters across the template; false (reported once) past the bound. */
function countEffect(ctx: Context, property: string, value: StyleValue, offset: number): boolean {
  if (!EFFECT_PROPERTIES.has(property) || (isDeclaration(value) && value.source.trim().toLowerCase() === "none")) return true;
  ctx.effects++;
  if (ctx.effects === CSS_BOUNDS.effects + 1)
    report(ctx, offset, `more than ${CSS_BOUNDS.effects} shadows and filters in one template (box-shadow, text-shadow, filter)`);
  return ctx.effects <= CSS_BOUNDS.effects;
}

const dataUriCheck = (uri: string) => {
  const problem = checkDataImage(uri, "template", 0) ?? embeddedImageProblem(uri);
  return problem && `the image ${problem}`;
};

function readDeclaration(ctx: Context, rawProperty: string, value: string, offset: number): [string, StyleValue] | undefined {
  if (!rawProperty || !/^-?[a-zA-Z][a-zA-Z-]*$/.test(rawProperty)) {
    report(
      ctx,
      offset,
      rawProperty.startsWith("--")
        ? `custom property "${rawProperty}": define theme variables in themes and use var(--name)`
        : `"${clip(rawProperty || value)}" is not a CSS declaration (property: value)`,
    );
    return undefined;
  }
  const property = camelCaseProperty(rawProperty);
  if (!value) {
    report(ctx, offset, `CSS property "${rawProperty}" has no value`);
    return undefined;
  }
  if (value.includes("{{")) {
    const whole = /^\{\{\s*([a-z][a-z0-9_]{0,63})\s*\}\}$/.exec(value);
    const field = whole ? ctx.fields.get(whole[1]!) : undefined;
    if (whole && !field) report(ctx, offset, `placeholder {{${whole[1]}}} names no declared field (declare it in fields)`);
    else if (field?.type !== "color") {
      report(
        ctx,
        offset,
        `inside style, a placeholder may only be a whole value naming a color field (${kebabCaseProperty(property)}: {{brand}}), not "${clipValue(value)}"`,
      );
    } else if (!COLOR_PROPERTIES.has(property))
      report(
        ctx,
        offset,
        `a color placeholder cannot stand for "${kebabCaseProperty(property)}" (use it in ${[...COLOR_PROPERTIES].map(kebabCaseProperty).join(", ")})`,
      );
    else return [property, { field: field.name }];
    return undefined;
  }
  if (/@font-face|@import/i.test(value)) {
    report(ctx, offset, `${rawProperty}: @font-face and @import are not allowed; fonts are the server's`);
    return undefined;
  }
  const variables = [...value.matchAll(/var\(\s*--([a-zA-Z][a-zA-Z0-9_-]*)\s*(?:,[^)]*)?\)/g)].map((m) => m[1]!);
  if (variables.length) {
    const unknown = variables.filter((name) => !(name in ctx.themes.dark) && !(name in ctx.themes.light));
    if (unknown.length) {
      report(ctx, offset, `theme variable --${unknown[0]} is not defined in themes`);
      return undefined;
    }
    // Checked, and read, as each theme will draw it.
    const themed: Partial<Record<"dark" | "light", ThemedValue>> = {};
    for (const theme of ["dark", "light"] as const) {
      const text = resolveVariables(value, ctx.themes[theme]);
      const read = parseDeclaration(property, text, dataUriCheck);
      if ("problem" in read) {
        report(ctx, offset, `${read.problem} (with the ${theme} theme's variables)`);
        return undefined;
      }
      themed[theme] = { text, value: read.value, urls: read.urls };
    }
    return [property, { source: value, dark: themed.dark!, light: themed.light! }];
  }
  const read = parseDeclaration(property, value, dataUriCheck);
  if ("problem" in read) {
    report(ctx, offset, read.problem);
    return undefined;
  }
  return [property, sameForBothThemes(value, read)];
}

/** `var(--name)` → the theme's value (a fallback after the comma when the theme lacks it). */
export function resolveVariables(value: string, variables: Record<string, string>): string {
  return value.replace(
    /var\(\s*--([a-zA-Z][a-zA-Z0-9_-]*)\s*(?:,\s*([^)]*))?\)/g,
    (_, name: string, fallback: string | undefined) => variables[name] ?? fallback?.trim() ?? "",
  );
}

/** The typed value of the last declaration of `property`, when it is the same for both themes. */
function lastValue(style: Array<[string, StyleValue]>, property: string): ThemedValue["value"] | undefined {
  let found: ThemedValue["value"] | undefined;
  for (const [p, v] of style) if (p === property) found = isDeclaration(v) && v.dark === v.light ? v.dark.value : undefined;
  return found;
}

/** A length of `property` in px, when the template writes it so (`24px`, the same for both themes). */
function pxOf(style: Array<[string, StyleValue]>, property: string): number | undefined {
  const value = lastValue(style, property);
  const length = value?.kind === "lengths" && value.lengths.length === 1 ? value.lengths[0] : undefined;
  return length !== undefined && length !== "auto" && length.unit === "px" && length.number >= 0 ? length.number : undefined;
}

/** The horizontal padding of the first padding shorthand, counting px (and bare numbers) only. */
function paddingShorthand(style: Array<[string, StyleValue]>): number | undefined {
  for (const [p, v] of style) {
    if (p !== "padding" || !isDeclaration(v)) continue;
    const value = v.dark === v.light ? v.dark.value : undefined;
    const parts =
      value?.kind === "lengths" ? value.lengths.map((l) => (l !== "auto" && (l.unit === "px" || l.unit === "") && l.number >= 0 ? l.number : 0)) : [0];
    const horizontal = parts.length === 1 ? parts[0]! * 2 : parts.length <= 3 ? parts[1]! * 2 : parts[1]! + parts[3]!;
    return horizontal;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Text fitting.

/**
 * A fit attribute's value for one orientation of card: `"2"`, or `"2 portrait:3"` (the bare
 * number, and another for portrait or landscape cards, as with Tailwind's variants). Anything
 * else comes back as is, for the caller to refuse.
 */
function orientedValue(value: string, orientation: Orientation): string {
  const tokens = value.trim().split(/\s+/);
  let bare: string | undefined;
  let oriented: string | undefined;
  for (const token of tokens) {
    const match = /^(portrait|landscape):(.*)$/.exec(token);
    if (!match) {
      if (bare !== undefined) return value;
      bare = token;
    } else if (match[1] === orientation) {
      if (oriented !== undefined) return value;
      oriented = match[2]!;
    }
  }
  return oriented ?? bare ?? value;
}

function readFit(node: P5Element, ctx: Context, element: ElementNode, width: number, fontSize: number | undefined): void {
  const linesAttr = node.attrs.find((a) => a.name === "data-fit-lines");
  const minAttr = node.attrs.find((a) => a.name === "data-min-font-size");
  if (!linesAttr && !minAttr) return;
  const at = attributeOffset(node, linesAttr ? "data-fit-lines" : "data-min-font-size");
  const lines = Number(orientedValue(linesAttr?.value ?? "1", ctx.orientation));
  if (!Number.isInteger(lines) || lines < 1 || lines > HTML_BOUNDS.fitLines) {
    report(ctx, at, `data-fit-lines takes a whole number from 1 to ${HTML_BOUNDS.fitLines}, and may add one for portrait or landscape cards ("2 portrait:3")`);
    return;
  }
  const own = pxOf(element.style, "fontSize");
  if (own === undefined) {
    report(ctx, at, "data-fit-lines needs a font-size in px on the same element (the largest size the text may take)");
    return;
  }
  const min = Number(minAttr ? orientedValue(minAttr.value, ctx.orientation) : String(Math.max(HTML_BOUNDS.minFontSize, Math.round(own / 2))));
  if (!Number.isInteger(min) || min < HTML_BOUNDS.minFontSize || min > own) {
    report(
      ctx,
      at,
      `data-min-font-size takes a whole number of px from ${HTML_BOUNDS.minFontSize} to the element's font-size (${own} on ${ctx.orientation} cards), and may add one for portrait or landscape cards ("32 portrait:44")`,
    );
    return;
  }
  if (element.children.some((c) => c.kind === "element")) {
    report(ctx, at, "data-fit-lines fits text: the element may hold text and placeholders only");
    return;
  }
  const lineHeightValue = lastValue(element.style, "lineHeight");
  const lineHeight = lineHeightValue?.kind === "lineHeight" && lineHeightValue.factor !== undefined ? lineHeightValue.factor : 1.2;
  const fit: TextFit = { lines, minFontSize: min, maxFontSize: own, width, lineHeight };
  element.fit = fit;
  void fontSize;
}

// ---------------------------------------------------------------------------------------------
// Inline SVG: the same allow-list as SVG images in templates, on parse5's namespaced tree.

function convertSvg(node: P5Element, ctx: Context, depth: number): ElementNode {
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

export type { FieldRef };
