/**
 * What an SVG may contain before resvg draws it, decided by a namespace-aware XML parser
 * (saxes), not by patterns over the text: resvg reads files named by an SVG's references
 * (verified: `<image href="/some/file.gif">` drew the file), and a prefixed element such as
 * `<s:image>` with `xmlns:s="http://www.w3.org/2000/svg"` IS an SVG image element, which a
 * pattern looking for `<image` does not see.
 *
 * Two policies share the parser:
 * - `fetched`: an image field's SVG (a logo). Real logos carry `<style>`, editor metadata in
 *   other namespaces and `class` attributes, so those pass; what is refused is anything that
 *   reaches outside the document (a reference that is not `#fragment` or a `data:` URI, CSS
 *   `@import`), `<script>`, `<foreignObject>`, DOCTYPE and entity declarations.
 * - `template`: SVG inside an account template (inline or as a `data:image/svg+xml` URI).
 *   An allow-list of drawing elements and attributes; no `<style>`, no foreign namespaces,
 *   filters bounded.
 * Nested `data:image/svg+xml` URIs are checked with the same policy, recursively.
 */
import { SaxesParser, type SaxesTagNS } from "saxes";
import { SVG_ATTRIBUTES, SVG_BOUNDS, SVG_ELEMENTS, SVG_NS, XLINK_NS } from "./svg-allow-list.ts";
import { drawnElements, expansionProblem, referencesOf, type SvgReferenceNode } from "./svg-expansion.ts";

const XML_NS = "http://www.w3.org/XML/1998/namespace";
const XMLNS_NS = "http://www.w3.org/2000/xmlns/";

export type SvgPolicy = "fetched" | "template";

/** Attributes whose value is a reference: `#fragment` or a data: URI only. */
const REFERENCE_ATTRIBUTES = new Set(["href", "src"]);

export interface SvgProblem {
  message: string;
  /** 1-based position in the SVG text, when known. */
  line?: number;
  column?: number;
}

/** Why `text` (an SVG document) may not be drawn, or undefined when it may. */
export function checkSvgText(text: string, policy: SvgPolicy, depth = 0): SvgProblem | undefined {
  return inspectSvgText(text, policy, depth).problem;
}

/** Nested SVG images met while checking an element's attributes: the elements they draw. */
interface Nested {
  drawn: number;
}

function inspectSvgText(text: string, policy: SvgPolicy, depth: number): { problem?: SvgProblem; drawn: number } {
  if (depth > SVG_BOUNDS.nesting) return { problem: { message: `SVG images nest at most ${SVG_BOUNDS.nesting} levels deep` }, drawn: 0 };
  const parser = new SaxesParser({ xmlns: true, position: true });
  let problem: SvgProblem | undefined;
  let elements = 0;
  let filterPrimitives = 0;
  let sawRoot = false;
  const stack: string[] = [];
  // The elements as far as their references go, to count what the document draws.
  const document: SvgReferenceNode = { tag: "", refs: [], children: [], self: 0 };
  const open: SvgReferenceNode[] = [document];
  const fail = (message: string) => {
    problem ??= { message, line: parser.line, column: parser.column + 1 };
  };

  parser.on("doctype", () => fail("SVG DOCTYPE and entity declarations are not allowed"));
  parser.on("processinginstruction", (pi) => {
    if (pi.target.toLowerCase() === "xml-stylesheet") fail("SVG stylesheets (<?xml-stylesheet?>) are not allowed");
  });
  parser.on("opentag", (tag) => {
    if (problem) return;
    elements++;
    const local = tag.local ?? tag.name;
    const uri = tag.uri ?? "";
    if (!sawRoot) {
      sawRoot = true;
      if (uri !== SVG_NS || local !== "svg") fail(`the root element must be <svg> in the SVG namespace, not <${tag.name}>`);
    }
    if (uri === SVG_NS) {
      if (local === "script" || local === "foreignObject" || local === "feImage" || local === "iframe") return fail(`SVG <${tag.name}> is not allowed`);
      if (policy === "template") {
        if (!SVG_ELEMENTS.has(local)) return fail(`SVG element <${tag.name}> is not allowed`);
        if (local.startsWith("fe") && local !== "feMergeNode" && !local.startsWith("feFunc") && ++filterPrimitives > SVG_BOUNDS.filterPrimitives) {
          return fail(`an SVG has at most ${SVG_BOUNDS.filterPrimitives} filter primitives`);
        }
      }
    } else if (policy === "template") return fail(`element <${tag.name}> is not in the SVG namespace`);
    else if (stack.length === 0 || tag.uri === "http://www.w3.org/1999/xhtml")
      return fail(`element <${tag.name}> (namespace ${uri || "none"}) is not allowed in an SVG`);
    if (policy === "template" && elements > SVG_BOUNDS.templateElements) return fail(`an SVG has at most ${SVG_BOUNDS.templateElements} elements`);
    stack.push(local);
    const nested: Nested = { drawn: 0 };
    const attributeProblem = checkAttributes(tag as SaxesTagNS, local, uri === SVG_NS, policy, depth, nested);
    if (attributeProblem) fail(attributeProblem);
    const attributes = Object.values((tag as SaxesTagNS).attributes);
    const node: SvgReferenceNode = {
      tag: local,
      id: attributes.find((a) => a.local === "id" && !a.uri)?.value,
      refs: referencesOf(attributes.map((a) => [a.uri === XLINK_NS ? `xlink:${a.local}` : a.local, a.value])),
      children: [],
      self: 1 + nested.drawn,
    };
    open[open.length - 1]!.children.push(node);
    open.push(node);
  });
  parser.on("closetag", () => {
    stack.pop();
    if (open.length > 1) open.pop();
  });
  parser.on("text", (value) => {
    if (problem || stack[stack.length - 1] !== "style") return;
    const styleProblem = checkSvgCss(value);
    if (styleProblem) fail(styleProblem);
  });
  parser.on("cdata", (value) => {
    if (problem || stack[stack.length - 1] !== "style") return;
    const styleProblem = checkSvgCss(value);
    if (styleProblem) fail(styleProblem);
  });
  parser.on("error", (error) => {
    fail(`not well-formed XML: ${error.message.replace(/^[^:]*:\d+:\d+:\s*/, "")}`);
  });
  try {
    parser.write(text.replace(/^\uFEFF/, "")).close();
  } catch (error) {
    fail(`not well-formed XML: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!problem && !sawRoot) return { problem: { message: "no <svg> element" }, drawn: 0 };
  const drawn = problem ? 0 : drawnElements(document);
  if (!problem) {
    const tooMany = expansionProblem(drawn, SVG_BOUNDS.drawnElements);
    if (tooMany) problem = { message: tooMany };
  }
  return { problem, drawn };
}

function checkAttributes(tag: SaxesTagNS, local: string, inSvg: boolean, policy: SvgPolicy, depth: number, nested: Nested): string | undefined {
  for (const attribute of Object.values(tag.attributes)) {
    const name = attribute.local;
    const uri = attribute.uri;
    const value = attribute.value;
    if (uri === XMLNS_NS || attribute.name === "xmlns") continue;
    if (/^on/i.test(name)) return `event handler attribute "${attribute.name}" is not allowed`;
    if (name === "style" && (uri === "" || uri === undefined)) {
      if (policy === "template") return `attribute "style" on SVG <${tag.name}> is not allowed (use presentation attributes such as fill)`;
      const cssProblem = checkSvgCss(value);
      if (cssProblem) return cssProblem;
      continue;
    }
    const isReference = REFERENCE_ATTRIBUTES.has(name) && (uri === "" || uri === XLINK_NS || uri === undefined);
    if (isReference || (name === "href" && uri)) {
      const referenceProblem = checkReference(value, local, policy, depth, nested);
      if (referenceProblem) return `<${tag.name} ${attribute.name}>: ${referenceProblem}`;
      continue;
    }
    if (/url\(/i.test(value)) {
      const urlProblem = checkCssUrls(value, policy, depth, nested);
      if (urlProblem) return `<${tag.name} ${attribute.name}>: ${urlProblem}`;
    }
    if (policy === "template") {
      const qualified = uri === XML_NS ? `xml:${name}` : name;
      if (uri && uri !== XML_NS && uri !== XLINK_NS) return `attribute "${attribute.name}" is not allowed on SVG <${tag.name}>`;
      if (!inSvg || !SVG_ATTRIBUTES.has(qualified)) return `attribute "${attribute.name}" is not allowed on SVG <${tag.name}>`;
      const bound = boundedValue(local, name, value);
      if (bound) return bound;
    }
  }
  return undefined;
}

/** Filter parameters that make a render expensive. */
function boundedValue(element: string, attribute: string, value: string): string | undefined {
  const numbers = value
    .split(/[\s,]+/)
    .filter(Boolean)
    .map(Number);
  if (
    (attribute === "stdDeviation" || (element === "feDropShadow" && attribute === "stdDeviation")) &&
    numbers.some((n) => !(Math.abs(n) <= SVG_BOUNDS.stdDeviation))
  ) {
    return `stdDeviation is bounded to ${SVG_BOUNDS.stdDeviation}`;
  }
  if (element === "feMorphology" && attribute === "radius" && numbers.some((n) => !(Math.abs(n) <= SVG_BOUNDS.morphologyRadius))) {
    return `feMorphology radius is bounded to ${SVG_BOUNDS.morphologyRadius}`;
  }
  return undefined;
}

/**
 * A reference (`href`, `xlink:href`): a `#fragment`, or on an `<image>` a data: image URI
 * (an SVG one checked in turn). `<use>` may only point inside the document.
 */
function checkReference(value: string, element: string, policy: SvgPolicy, depth: number, nested: Nested): string | undefined {
  const v = value.trim();
  if (v.startsWith("#")) return undefined;
  if (element !== "image") return "may only reference #fragments inside the document";
  return checkDataImage(v, policy, depth, nested);
}

/**
 * A data:image URI; an SVG one is parsed and checked with the same policy, one level deeper
 * (the elements it draws are added to `nested`, when given).
 */
export function checkDataImage(uri: string, policy: SvgPolicy, depth: number, nested?: Nested): string | undefined {
  const match = /^data:(image\/[a-z0-9.+-]+)((?:;[a-z0-9=.+-]*)*?)(;base64)?,/i.exec(uri.trim());
  if (!match)
    return /^(https?:)?\/\//i.test(uri.trim()) ? "may only use data: URIs, not http(s) URLs" : "may only use data:image URIs and #fragments, not files or URLs";
  if (match[1]!.toLowerCase() !== "image/svg+xml") return undefined;
  const text = svgDataUriText(uri);
  if (text === undefined) return "a data:image/svg+xml URI that does not decode";
  const inner = inspectSvgText(text, policy, depth + 1);
  if (nested) nested.drawn += inner.drawn;
  return inner.problem && `nested SVG: ${inner.problem.message}`;
}

/** The text of a data:image/svg+xml URI; undefined for another URI, or one that does not decode. */
export function svgDataUriText(uri: string): string | undefined {
  const match = /^data:image\/svg\+xml((?:;[a-z0-9=.+-]*)*?)(;base64)?,/i.exec(uri.trim());
  if (!match) return undefined;
  const payload = uri.trim().slice(match[0].length);
  try {
    return match[2] ? Buffer.from(payload, "base64").toString("utf8") : decodeURIComponent(payload);
  } catch {
    return undefined;
  }
}

/** The elements a data:image/svg+xml URI draws (0 for another image, or one that does not decode). */
export function drawnBySvgImage(uri: string): number {
  const text = svgDataUriText(uri);
  return text === undefined ? 0 : inspectSvgText(text, "template", 1).drawn;
}

/** CSS inside a fetched SVG (`<style>`, `style=""`): no @import, url() only to #fragments or data: images. */
function checkSvgCss(css: string): string | undefined {
  if (/@import/i.test(css)) return "SVG stylesheets may not @import";
  if (/@font-face/i.test(css)) return "SVG stylesheets may not load fonts (@font-face)";
  return checkCssUrls(css, "fetched", 0);
}

function checkCssUrls(css: string, policy: SvgPolicy, depth: number, nested?: Nested): string | undefined {
  // CSS escapes could hide a url( from the pattern; an SVG has no need for them.
  if (/\\/.test(css)) return "CSS escapes are not allowed in SVG";
  for (const match of css.matchAll(/url\(\s*(["']?)([^)]*?)\1\s*\)/gi)) {
    const target = match[2]!.trim();
    if (target.startsWith("#")) continue;
    const problem = checkDataImage(target, policy, depth, nested);
    if (problem) return `url(): ${problem}`;
  }
  return undefined;
}
