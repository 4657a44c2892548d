/**
 * One render of an account template: the checked tree (tree.ts) with a request's values put
 * in, as satori's element tree. Values only ever become text nodes, image sources that the
 * guarded fetcher produced, or validated colours, so a value that looks like HTML is drawn as
 * the characters it is. Text fitting uses the same estimate as the built-in templates (kit.ts).
 */
import { ApiError } from "../../errors.ts";
import { clampStyle, fitFontSize, present } from "../kit.ts";
import type { RenderContext, SatoriNode } from "../types.ts";
import { applyDirection, type Dir, type DirectionContext, ownText, ROOT_DIRECTION } from "./direction.ts";
import { drawnFontFamily } from "./fonts.ts";
import { resolveVariables } from "./html-styles.ts";
import { decodedPixels, PIXEL_BUDGET } from "./images.ts";
import { type ElementNode, isDeclaration, type TemplateNode, type TextPiece } from "./tree.ts";
import { NO_BREAK_SPACE, settleWhitespace } from "./whitespace.ts";

export const RENDER_BOUNDS = {
  images: 20,
  textCharacters: 20_000,
  decodedPixels: PIXEL_BUDGET,
} as const;

interface RenderState {
  values: Record<string, string | undefined>;
  ctx: RenderContext;
  variables: Record<string, string>;
  images: number;
  pixels: number;
  characters: number;
  /** Elements drawn as inline content of the flow around them (whitespace.ts looks into them). */
  inline: WeakSet<SatoriNode>;
}

/** Elements that are inline content in HTML's flow (when the template gives them no display). */
const INLINE_TAGS = new Set(["span", "b", "strong", "i", "em", "u", "s", "small"]);

export function renderTree(
  root: TemplateNode[],
  values: Record<string, string | undefined>,
  ctx: RenderContext,
  variables: Record<string, string>,
): SatoriNode {
  const state: RenderState = { values, ctx, variables, images: 0, pixels: 0, characters: 0, inline: new WeakSet() };
  const nodes = renderChildren(root, state, ROOT_DIRECTION, undefined);
  const only = nodes.length === 1 && typeof nodes[0] === "object" ? (nodes[0] as SatoriNode) : undefined;
  if (state.images > RENDER_BOUNDS.images) {
    throw new ApiError("VALIDATION_ERROR", `The template draws ${state.images} images; at most ${RENDER_BOUNDS.images} per render.`, [
      { field: "template", message: `draws ${state.images} images with these values; at most ${RENDER_BOUNDS.images}` },
    ]);
  }
  if (state.pixels > RENDER_BOUNDS.decodedPixels) {
    throw new ApiError(
      "VALIDATION_ERROR",
      `The card's images decode to ${(state.pixels / 1e6).toFixed(1)} megapixels; at most ${RENDER_BOUNDS.decodedPixels / 1e6} per render.`,
      [
        {
          field: "template",
          message: `images decode to ${(state.pixels / 1e6).toFixed(1)} megapixels with these values; at most ${RENDER_BOUNDS.decodedPixels / 1e6}`,
        },
      ],
    );
  }
  if (state.characters > RENDER_BOUNDS.textCharacters) {
    throw new ApiError("VALIDATION_ERROR", `The card has ${state.characters} characters of text; at most ${RENDER_BOUNDS.textCharacters} per render.`, [
      { field: "template", message: `has ${state.characters} characters of text with these values; at most ${RENDER_BOUNDS.textCharacters}` },
    ]);
  }
  // The card is one box filling the canvas; several top-level elements are laid out in it.
  if (only && only.type !== "svg" && only.type !== "img") return only;
  return { type: "div", props: { style: { display: "flex", width: "100%", height: "100%" }, children: nodes } };
}

/** `flow`: the flow of the element whose children these are, if it has one (tree.ts `flow`). */
function renderChildren(nodes: TemplateNode[], state: RenderState, direction: DirectionContext, flow: ElementNode["flow"]): Array<SatoriNode | string> {
  const out: Array<SatoriNode | string> = [];
  for (const node of nodes) {
    if (node.kind === "text") {
      const text = textOf(node.pieces, state);
      if (text) out.push(text);
    } else if (node.kind === "section") {
      const has = present(state.values[node.field]);
      if (has !== node.inverted) out.push(...renderChildren(node.children, state, direction, flow));
    } else {
      const element = renderElement(node, state, direction, flow);
      if (element) out.push(element);
    }
  }
  return out;
}

function textOf(pieces: TextPiece[], state: RenderState): string {
  let text = "";
  for (const piece of pieces) text += typeof piece === "string" ? piece : (state.values[piece.field] ?? "");
  state.characters += text.length;
  return text;
}

function renderElement(node: ElementNode, state: RenderState, direction: DirectionContext, parentFlow: ElementNode["flow"]): SatoriNode | undefined {
  const props: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(node.attributes)) {
    // dir becomes the direction style below; satori reads no attribute for it.
    if (name !== "dir") props[name] = node.svg && value.includes("var(") ? resolveVariables(value, state.variables) : value;
  }
  for (const [attribute, ref] of Object.entries(node.fieldAttributes)) {
    const value = imageOrColor(node, attribute, ref.field, state);
    if (value === undefined) {
      // An image whose field is not set is left out rather than drawn broken.
      if (attribute === "src" || attribute === "href") return undefined;
      continue;
    }
    props[attribute] = value;
  }
  if (node.tag === "img" || (node.svg && node.tag === "image")) {
    state.images++;
    const source = props.src ?? props.href;
    if (typeof source === "string" && source.startsWith("data:")) state.pixels += decodedPixels(source);
  }
  const style = styleOf(node, state);
  // As with Tailwind's reset and most design tools: width and height include padding and border,
  // so `width: 100%; padding: 80px` fits the card instead of overflowing it.
  if (!node.svg && style.boxSizing === undefined) style.boxSizing = "border-box";
  if (node.fit) {
    // A fitted element holds only text (the parser checks), so its own text is all of it.
    const { text } = ownText(node.children, state.values);
    const size = fitFontSize(text, {
      maxWidth: node.fit.width,
      maxLines: node.fit.lines,
      maxSize: node.fit.maxFontSize,
      minSize: node.fit.minFontSize,
      lineHeight: node.fit.lineHeight,
    });
    Object.assign(style, clampStyle(node.fit.lines, size, node.fit.lineHeight));
  }
  const inherited = node.svg ? direction : applyDirection(style, node.children, state.values, node.attributes.dir as Dir | undefined, direction);
  const inline = parentFlow !== undefined && node.flow === "row" && INLINE_TAGS.has(node.tag);
  // Text with inline elements in it, in a box the template gave no display and no flex
  // property, is a paragraph, as in HTML: drawn as a row, each piece would wrap in a column of
  // its own ("Some <b>bold</b> words…" as three side-by-side columns).
  const flow = !inline && node.flow === "row" && isParagraph(node) ? "block" : node.flow;
  if (flow === "block" && node.flow === "row") style.display = "block";
  let children = renderChildren(node.children, state, inherited, flow);
  // An inline element in a flow has its whitespace settled with the flow's; any other element
  // with a flow settles its own (and its inline elements').
  if (flow && !inline) children = settleWhitespace(children, state.inline, flow === "row" ? NO_BREAK_SPACE : " ");
  // An inline element in a display: block flow stays inline, so its words flow with the text around it.
  if (!node.svg && node.tag !== "img" && node.tag !== "br" && style.display === undefined && children.length > 1 && !(inline && parentFlow === "block")) {
    // satori lays out every box as flex and insists that a box with several children says so.
    style.display = "flex";
  }
  if (Object.keys(style).length) props.style = style;
  if (children.length) props.children = children.length === 1 ? children[0] : children;
  const drawn: SatoriNode = { type: node.tag, props };
  if (inline) state.inline.add(drawn);
  return drawn;
}

/** Flex container properties: a box that sets one is laid out as the row it asks for. */
const FLEX_CONTAINER = new Set([
  "gap",
  "rowGap",
  "columnGap",
  "alignItems",
  "alignContent",
  "justifyContent",
  "justifyItems",
  "flexDirection",
  "flexWrap",
  "flexFlow",
]);

/** Text and inline elements only (sections looked into): an inline element beside text, or several, or a `<br>` in text. */
function isParagraph(node: ElementNode): boolean {
  if (node.fit || node.style.some(([property]) => FLEX_CONTAINER.has(property))) return false;
  let inlineElements = 0;
  let breaks = 0;
  let text = false;
  const walk = (nodes: TemplateNode[]): boolean =>
    nodes.every((child) => {
      if (child.kind === "text") {
        if (child.pieces.some((piece) => typeof piece !== "string" || piece.trim() !== "")) text = true;
        return true;
      }
      if (child.kind === "section") return walk(child.children);
      // A line break is part of the paragraph's text ("one<br>two"); it breaks only in a block.
      if (child.tag === "br" && !child.style.length) {
        breaks++;
        return true;
      }
      if (child.svg || child.flow !== "row" || !INLINE_TAGS.has(child.tag)) return false;
      inlineElements++;
      return true;
    });
  return walk(node.children) && (inlineElements > 1 || ((inlineElements === 1 || breaks > 0) && text));
}

function imageOrColor(node: ElementNode, attribute: string, field: string, state: RenderState): string | undefined {
  if (attribute === "src" || attribute === "href") {
    const uri = state.ctx.images[field];
    // Only what the guarded fetcher produced may reach the renderer: never a raw value.
    return uri && /^data:image\//i.test(uri) ? uri : undefined;
  }
  void node;
  const value = state.values[field];
  return present(value) ? value.trim() : undefined;
}

function styleOf(node: ElementNode, state: RenderState): Record<string, string | number> {
  const style: Record<string, string | number> = {};
  for (const [property, value] of node.style) {
    if (isDeclaration(value)) {
      // Parsed once with the template (css.ts): the theme's text, or for a font list its names.
      const drawn = value[state.ctx.theme];
      style[property] = drawn.value.kind === "fontFamily" ? drawnFontFamily(drawn.value.names, state.ctx.fontNames) : drawn.text;
    } else {
      const colour = state.values[value.field];
      if (present(colour)) style[property] = colour.trim();
    }
  }
  return style;
}
