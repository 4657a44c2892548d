/**
 * What every part of the HTML reader shares while it walks one template: the context (fields,
 * themes, canvas, counts, collected problems), source positions for problems, and the checks
 * that both HTML and inline SVG elements make (placeholders naming fields, image sources).
 */
import type { DefaultTreeAdapterMap } from "parse5";
import type { FieldProblem } from "../../errors.ts";
import { checkDataImage } from "../../media/svg-safety.ts";
import type { AccountFieldSpec } from "./index.ts";
import { embeddedImageProblem } from "./images.ts";
import type { ElementNode } from "./tree.ts";

export type P5Node = DefaultTreeAdapterMap["childNode"];
export type P5Element = DefaultTreeAdapterMap["element"];
export type P5Text = DefaultTreeAdapterMap["textNode"];

export const HTML_BOUNDS = {
  bytes: 256 * 1024,
  elements: 2000,
  depth: 48,
  fitLines: 10,
  minFontSize: 8,
  /** Problems listed in one answer; past this the rest are summarised. */
  problems: 50,
} as const;

export interface Context {
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

/** A card's orientation as Tailwind's `portrait:` and `landscape:` see it: a square card is portrait. */
export type Orientation = "portrait" | "landscape";
export const orientationOf = (size: { width: number; height: number }): Orientation => (size.height >= size.width ? "portrait" : "landscape");

export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  return starts;
}

export function position(ctx: Context, offset: number): { line: number; column: number } {
  let lo = 0;
  let hi = ctx.lineStarts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (ctx.lineStarts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo + 1, column: offset - ctx.lineStarts[lo]! + 1 };
}

export function report(ctx: Context, offset: number, message: string): void {
  if (ctx.problems.length >= HTML_BOUNDS.problems) return;
  ctx.problems.push({ field: "html", message, ...position(ctx, Math.max(0, Math.min(offset, ctx.html.length))) });
}

export const startOf = (node: P5Node): number => node.sourceCodeLocation?.startOffset ?? 0;

/** Where an attribute's value starts in the source (for positions inside it). */
export function attributeValueOffset(ctx: Context, element: P5Element, name: string): number {
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

export function attributeOffset(element: P5Element, name: string): number {
  return element.sourceCodeLocation?.attrs?.[name]?.startOffset ?? startOf(element);
}

export function checkField(ctx: Context, name: string, offset: number): boolean {
  if (ctx.fields.has(name)) return true;
  report(ctx, offset, `placeholder {{${name}}} names no declared field (declare it in fields)`);
  return false;
}

/** An image source: a data:image URI, or `{{field}}` naming an image_url field. */
export function imageSource(ctx: Context, element: ElementNode, value: string, offset: number, attribute: string): void {
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
