/**
 * Template element trees (the `{type, props}` objects of our JSX runtime, which satori reads)
 * as takumi's node tree: containers, text and images. Written here rather than through
 * @takumi-rs/helpers' `fromJsx`, which handles all of React (hooks, context, suspense) with a
 * promise per element and took ~11 ms of the JS thread per event card; this walk takes well
 * under a millisecond and follows the same rules:
 *
 * - function components are called, fragments and arrays flattened, null/false/true dropped;
 * - an element whose children are only strings and numbers is a text node with its style;
 *   otherwise a container, whose string children become unstyled text nodes;
 * - `<img>` is an image (`src`, numeric `width`/`height`); `<svg>` is an image of its own
 *   markup, with presentation attributes written in kebab case (`strokeWidth` → `stroke-width`);
 * - satori's default styles for headings, paragraphs and bold elements (its copy of the
 *   browser's: `h1` is 2em and bold, `p` has 1em margins…) go under the element's own style, as
 *   satori applies them; takumi adds none, so an account template's `<h1>` would come out in
 *   regular weight on one engine and bold on the other.
 * - `<br>` in a `display: block` box is a line break, as satori draws it (takumi has no `br`):
 *   a newline kept by `white-space: pre`. Elsewhere it is an empty box, as in satori's rows.
 */
import type { Node } from "@takumi-rs/core";

export type TakumiNode = Node & { children?: TakumiNode[]; text?: string; src?: unknown };

interface Element {
  type: unknown;
  props?: Record<string, unknown> & { children?: unknown };
}

const isElement = (value: unknown): value is Element => typeof value === "object" && value !== null && !Array.isArray(value) && "type" in value;

/** Guards against a component that renders itself forever (a stack overflow is an error too, but a late one). */
const MAX_COMPONENT_DEPTH = 256;

/** One element (or string, array, fragment) as zero or more takumi nodes; `block`: in a `display: block` box. */
function convert(value: unknown, out: TakumiNode[], depth: number, block = false): void {
  if (value === null || value === undefined || typeof value === "boolean") return;
  if (typeof value === "string" || typeof value === "number") {
    out.push({ type: "text", text: String(value) } as TakumiNode);
    return;
  }
  if (Array.isArray(value)) {
    for (const child of value) convert(child, out, depth, block);
    return;
  }
  if (!isElement(value)) return;
  const props = value.props ?? {};
  const { type } = value;
  if (typeof type === "function") {
    if (depth > MAX_COMPONENT_DEPTH) throw new Error("components nested too deeply");
    convert((type as (props: unknown) => unknown)(props), out, depth + 1, block);
    return;
  }
  // React's fragment (and any other symbol type): its children in place.
  if (typeof type === "symbol") {
    convert(props.children, out, depth, block);
    return;
  }
  if (typeof type !== "string") return;
  const meta = metadata(props, type);
  if (type === "br" && block) {
    out.push({ type: "text", text: "\n", style: { whiteSpace: "pre" } } as TakumiNode);
    return;
  }
  if (type === "img") {
    out.push({ type: "image", src: props.src as string, ...size(props), ...meta } as TakumiNode);
    return;
  }
  if (type === "svg") {
    out.push({ type: "image", src: svgMarkup(value), ...size(props), ...meta } as TakumiNode);
    return;
  }
  const text = onlyText(props.children);
  if (text !== undefined) {
    out.push({ type: "text", text, ...meta } as TakumiNode);
    return;
  }
  const children: TakumiNode[] = [];
  convert(props.children, children, depth, (meta.style as { display?: unknown } | undefined)?.display === "block");
  out.push({ type: "container", children, ...meta } as TakumiNode);
}

/** The template's root element as one takumi node. */
export function toTakumiTree(root: unknown): TakumiNode {
  const out: TakumiNode[] = [];
  convert(root, out, 0);
  if (out.length === 1) return out[0]!;
  return { type: "container", children: out } as TakumiNode;
}

const heading = (fontSize: string | undefined, margin: string) => ({
  ...(fontSize ? { fontSize } : {}),
  marginTop: margin,
  marginBottom: margin,
  marginLeft: 0,
  marginRight: 0,
  fontWeight: "bold",
});

/** satori's default styles for the elements templates may use (satori's `presets`, display aside). */
const DEFAULT_STYLES: Record<string, Record<string, unknown>> = {
  h1: heading("2em", "0.67em"),
  h2: heading("1.5em", "0.83em"),
  h3: heading("1.17em", "1em"),
  h4: heading(undefined, "1.33em"),
  h5: heading("0.83em", "1.67em"),
  h6: heading("0.67em", "2.33em"),
  p: { marginTop: "1em", marginBottom: "1em" },
  b: { fontWeight: "bold" },
  strong: { fontWeight: "bold" },
  i: { fontStyle: "italic" },
  em: { fontStyle: "italic" },
  u: { textDecoration: "underline" },
  s: { textDecoration: "line-through" },
  // satori's is `smaller`, a browser's 1/1.2 of the parent's size.
  small: { fontSize: "0.833em" },
};

/**
 * A font-family list as CSS writes it: a name that is not a run of identifiers is quoted.
 * satori reads `Source Serif 4` (the bundled serif, which `serif` is drawn with) as the name it
 * is; takumi parses the value as CSS, where the unquoted `4` makes it invalid and the card fails.
 */
function cssFontFamily(value: string): string {
  return value
    .split(",")
    .map((name) => name.trim())
    .map((name) => (/^['"]/.test(name) || name.split(/\s+/).every((word) => /^-?[A-Za-z_][\w-]*$/.test(word)) ? name : JSON.stringify(name)))
    .join(", ");
}

function metadata(props: Record<string, unknown>, type?: string): Partial<TakumiNode> {
  const meta: Record<string, unknown> = {};
  let own = typeof props.style === "object" && props.style !== null ? (props.style as Record<string, unknown>) : undefined;
  if (typeof own?.fontFamily === "string") own = { ...own, fontFamily: cssFontFamily(own.fontFamily) };
  const defaults = type === undefined ? undefined : DEFAULT_STYLES[type];
  if (defaults) meta.style = { ...defaults, ...own };
  else if (own) meta.style = own;
  if (props.lang !== undefined) meta.lang = String(props.lang);
  if (props.dir === "rtl" || props.dir === "ltr") meta.dir = props.dir;
  return meta as Partial<TakumiNode>;
}

function size(props: Record<string, unknown>): { width?: number; height?: number } {
  const out: { width?: number; height?: number } = {};
  if (props.width !== undefined) out.width = Number(props.width);
  if (props.height !== undefined) out.height = Number(props.height);
  return out;
}

/** The children as one string when they are only strings and numbers (arrays of them included). */
function onlyText(children: unknown): string | undefined {
  if (typeof children === "string") return children;
  if (typeof children === "number") return String(children);
  if (!Array.isArray(children)) return undefined;
  let text = "";
  for (const child of children.flat(Number.POSITIVE_INFINITY)) {
    if (typeof child === "string" || typeof child === "number") text += child;
    else return undefined;
  }
  return text;
}

// ---- SVG markup ----

/** Presentation attributes React spells in camel case and SVG in kebab case. */
const KEBAB_ATTRIBUTES = new Set(
  "stopColor stopOpacity strokeWidth strokeDasharray strokeDashoffset strokeLinecap strokeLinejoin strokeMiterlimit strokeOpacity fillRule fillOpacity clipRule clipPath colorInterpolation colorInterpolationFilters floodColor floodOpacity lightingColor markerEnd markerMid markerStart paintOrder pointerEvents shapeRendering imageRendering textAnchor textDecoration textRendering dominantBaseline alignmentBaseline baselineShift fontFamily fontSize fontStyle fontWeight fontVariant fontStretch letterSpacing wordSpacing writingMode vectorEffect transformOrigin unicodeBidi".split(
    " ",
  ),
);
const NAME = /^[A-Za-z_:][\w:.-]*$/;

const escapeXml = (text: string) => text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

function svgMarkup(svg: Element): string {
  const props = { ...svg.props };
  props.xmlns ??= "http://www.w3.org/2000/svg";
  return markup({ ...svg, props }, 0);
}

function markup(value: unknown, depth: number): string {
  if (typeof value === "string" || typeof value === "number") return escapeXml(String(value));
  if (Array.isArray(value)) return value.map((child) => markup(child, depth)).join("");
  if (!isElement(value)) return "";
  const props = value.props ?? {};
  if (typeof value.type === "function") {
    if (depth > MAX_COMPONENT_DEPTH) throw new Error("components nested too deeply");
    return markup((value.type as (props: unknown) => unknown)(props), depth + 1);
  }
  if (typeof value.type === "symbol") return markup(props.children, depth);
  if (typeof value.type !== "string" || !NAME.test(value.type)) return "";
  let attributes = "";
  for (const [name, attribute] of Object.entries(props)) {
    if (name === "children" || attribute === null || attribute === undefined) continue;
    const written = name === "className" ? "class" : KEBAB_ATTRIBUTES.has(name) ? kebab(name) : name;
    if (!NAME.test(written)) continue;
    const text =
      name === "style" && typeof attribute === "object"
        ? Object.entries(attribute as Record<string, unknown>)
            .map(([key, v]) => `${kebab(key)}:${String(v)}`)
            .join(";")
        : String(attribute);
    attributes += ` ${written}="${escapeXml(text)}"`;
  }
  return `<${value.type}${attributes}>${markup(props.children, depth)}</${value.type}>`;
}
