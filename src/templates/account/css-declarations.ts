/**
 * Reading a style attribute: splitting it into declarations (each with its offset, for the
 * error's line and column), naming a property as satori takes it (camelCase) and as an author
 * wrote it (kebab-case), and reading each value. What no value may hold is refused first (what
 * would end a declaration or a rule, comments, url() other than a data: image, var(), calc(),
 * …); then the property's grammar from the table in css.ts reads the value into its type.
 */
import valueParser from "postcss-value-parser";
import { type CssValue, PROPERTIES } from "./css.ts";
import { CSS_BOUNDS } from "./values/bounds.ts";
import { clipValue } from "./values/nodes.ts";

export function camelCaseProperty(name: string): string {
  const lower = name.trim().toLowerCase();
  const vendor = lower.startsWith("-webkit-") ? "Webkit" : "";
  const rest = vendor ? lower.slice("-webkit-".length) : lower;
  return vendor + rest.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase()).replace(/^[a-z]/, (c) => (vendor ? c.toUpperCase() : c));
}

/** `backgroundColor` → `background-color`; `WebkitTextStroke` → `-webkit-text-stroke` (its capital W is the leading dash). */
export function kebabCaseProperty(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** A declaration's value read by its grammar: the typed value and the url() targets in it, or why it is refused. */
export type ReadDeclaration = { problem: string } | { value: CssValue; urls: string[] };

/**
 * `value` for `property` (camelCase), read by the property's grammar, or why it is not
 * acceptable. `value` has theme variables already put in. Every url() must be a data: image
 * (`checkDataUri` decides about SVG).
 */
export function parseDeclaration(property: string, value: string, checkDataUri: (uri: string) => string | undefined): ReadDeclaration {
  const grammar = PROPERTIES[property];
  if (!grammar) return { problem: `CSS property "${kebabCaseProperty(property)}" is not supported` };
  if (value.length > CSS_BOUNDS.valueLength)
    return { problem: `the value of "${kebabCaseProperty(property)}" is longer than ${CSS_BOUNDS.valueLength} characters` };
  // data: URIs legitimately hold ; and other punctuation: look outside url() only.
  const outsideUrls = value.replace(/url\(\s*(["']?)[^)]*?\1\s*\)/gi, "url()");
  if (/[<>{};\\]|\/\*|@import|expression\s*\(|javascript:/i.test(outsideUrls))
    return {
      problem: `the value of "${kebabCaseProperty(property)}" contains characters or words CSS values here may not (< > { } ; \\ comments, @import, expression(), javascript:)`,
    };
  const nodes = valueParser(value).nodes;
  let problem: string | undefined;
  const urls: string[] = [];
  valueParser.walk(nodes, (node) => {
    if (problem || node.type !== "function") return;
    const name = node.value.toLowerCase();
    if (name === "url") {
      const target = node.nodes
        .map((n) => (n.type === "string" ? n.value : valueParser.stringify(n)))
        .join("")
        .trim();
      if (/^https?:/i.test(target) || target.startsWith("//"))
        problem = `url() takes a data: URI, not "${clipValue(target)}" (declare an image_url field and use <img src="{{field}}">)`;
      else if (!/^data:image\//i.test(target)) problem = `url() takes a data:image URI only, not "${clipValue(target)}"`;
      else problem = checkDataUri(target);
      urls.push(target);
      return false;
    }
    if (name === "var") problem = `${valueParser.stringify(node)} names no theme variable`;
    else if (name === "calc" || name === "env" || name === "attr" || name === "image-set" || name === "element" || name === "cross-fade") {
      problem = `${name}() is not supported`;
    }
    return undefined;
  });
  if (problem) return { problem: `${kebabCaseProperty(property)}: ${problem}` };
  let reported: string | undefined;
  const read = grammar(value, nodes, (message) => {
    reported ??= message;
  });
  if (reported !== undefined || read === undefined) return { problem: `${kebabCaseProperty(property)}: ${reported ?? "is not a value this property takes"}` };
  return { value: read, urls };
}

/**
 * Splits a style attribute into declarations, keeping each one's offset in the attribute
 * value. A `;` inside parentheses or quotes (a data: URI) does not end a declaration.
 */
export function splitDeclarations(text: string): Array<{ property: string; value: string; offset: number }> {
  const out: Array<{ property: string; value: string; offset: number }> = [];
  let depth = 0;
  let quote = "";
  let start = 0;
  const flush = (end: number) => {
    const raw = text.slice(start, end);
    if (raw.trim()) {
      const colon = raw.indexOf(":");
      const lead = raw.length - raw.trimStart().length;
      out.push(
        colon < 0
          ? { property: raw.trim(), value: "", offset: start + lead }
          : { property: raw.slice(0, colon).trim(), value: raw.slice(colon + 1).trim(), offset: start + lead },
      );
    }
    start = end + 1;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === quote) quote = "";
    } else if (c === '"' || c === "'") quote = c;
    else if (c === "(") depth++;
    else if (c === ")") depth = Math.max(0, depth - 1);
    else if (c === ";" && depth === 0) flush(i);
  }
  flush(text.length);
  return out;
}
