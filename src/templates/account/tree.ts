/**
 * A parsed account template: the element tree with its placeholders, sections and styles
 * already checked, ready to be filled with one request's values (compile.ts). Built once per
 * template version and reused for every render.
 */
import type { CssValue } from "./css.ts";

/** A whole-value placeholder standing for a field's value. */
export interface FieldRef {
  field: string;
}

/** Literal text and `{{field}}` values, in order. */
export type TextPiece = string | FieldRef;

/** What one theme draws for a declaration: its text (theme variables put in) and the typed value read from it. */
export interface ThemedValue {
  text: string;
  value: CssValue;
  /** The url() targets in the value (data: images). */
  urls: string[];
}

/**
 * A declaration's value, parsed once when the template is (css.ts): as written (theme variables
 * as `var(--name)`), and as each theme draws it (the same object for both when it names no
 * variable).
 */
export interface Declaration {
  source: string;
  dark: ThemedValue;
  light: ThemedValue;
}

/** A style value: literal CSS, or a `color` field. */
export type StyleValue = Declaration | FieldRef;

export const isDeclaration = (value: StyleValue): value is Declaration => "source" in value;

export interface TextFit {
  lines: number;
  minFontSize: number;
  maxFontSize: number;
  /** The width the text has, in design pixels. */
  width: number;
  lineHeight: number;
}

export interface ElementNode {
  kind: "element";
  tag: string;
  /** Literal attributes (alt, width, height, SVG geometry…). */
  attributes: Record<string, string>;
  /** Attributes that are a whole field value: an image's src, an SVG fill. */
  fieldAttributes: Record<string, FieldRef>;
  /** Tailwind classes expanded, then inline declarations (camelCase), in that order. */
  style: Array<[property: string, value: StyleValue]>;
  children: TemplateNode[];
  fit?: TextFit;
  /**
   * How the element lays out its text, when as HTML's inline flow: "row" (no display given: the
   * renderer makes it a row of its children) or "block" (`display: block`). Whitespace between
   * its inline content is drawn as one space; absent for boxes with another display, where, as in
   * a browser's flexbox, whitespace between items is not drawn.
   */
  flow?: "row" | "block";
  /** Inside an inline <svg> (drawn as SVG, not laid out as boxes). */
  svg: boolean;
  /** Where the element starts in the template's HTML (a character offset), for messages. */
  at?: number;
}

export interface TextNode {
  kind: "text";
  pieces: TextPiece[];
}

export interface SectionNode {
  kind: "section";
  field: string;
  /** `{{^field}}`: kept when the field has no value. */
  inverted: boolean;
  children: TemplateNode[];
}

export type TemplateNode = ElementNode | TextNode | SectionNode;
