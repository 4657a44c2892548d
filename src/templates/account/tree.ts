/**
 * A parsed account template: the element tree with its placeholders, sections and styles
 * already checked, ready to be filled with one request's values (compile.ts). Built once per
 * template version and reused for every render.
 */

/** A whole-value placeholder standing for a field's value. */
export interface FieldRef {
  field: string;
}

/** Literal text and `{{field}}` values, in order. */
export type TextPiece = string | FieldRef;

/** A style value: literal CSS (theme variables still as `var(--name)`), or a `color` field. */
export type StyleValue = string | FieldRef;

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
