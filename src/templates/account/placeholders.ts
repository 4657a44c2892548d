/**
 * Splitting text and attribute values into literal runs and `{{…}}` tags. The tags are the
 * whole template logic: `{{name}}` (a value), `{{#name}}` / `{{^name}}` (a section kept when
 * the field has a value / has none) and `{{/name}}` (its end). Nothing else is a tag, so a
 * template author gets an error for `{{ title | upper }}` instead of silent literal text.
 */

export type Tag = { kind: "value"; name: string; offset: number } | { kind: "open" | "inverted" | "close"; name: string; offset: number };

export type Piece = string | Tag;

export interface TagProblem {
  offset: number;
  message: string;
}

const TAG = /\{\{\s*([#^/]?)\s*([^{}]*?)\s*\}\}/g;
const FIELD_NAME = /^[a-z][a-z0-9_]{0,63}$/;

/** Literal runs and tags of `text`, in order; offsets are into `text`. Problems are collected, not thrown. */
export function splitPlaceholders(text: string, problems: TagProblem[]): Piece[] {
  const pieces: Piece[] = [];
  if (!text.includes("{{")) return text ? [text] : [];
  let last = 0;
  for (const match of text.matchAll(TAG)) {
    const offset = match.index;
    if (offset > last) pieces.push(text.slice(last, offset));
    last = offset + match[0].length;
    const sigil = match[1]!;
    const name = match[2]!;
    if (!FIELD_NAME.test(name)) {
      problems.push({ offset, message: `placeholder "${clip(match[0])}" must name a field (lowercase letters, digits, _)` });
      continue;
    }
    const kind = sigil === "#" ? "open" : sigil === "^" ? "inverted" : sigil === "/" ? "close" : "value";
    pieces.push({ kind, name, offset });
  }
  if (last < text.length) pieces.push(text.slice(last));
  // A `{{` no tag consumed is a tag that never closed.
  for (const piece of pieces) {
    if (typeof piece !== "string") continue;
    const stray = piece.indexOf("{{");
    if (stray >= 0) problems.push({ offset: offsetOfPiece(text, pieces, piece) + stray, message: 'unclosed placeholder: "{{" without "}}"' });
  }
  return pieces;
}

function offsetOfPiece(text: string, pieces: Piece[], target: string): number {
  let offset = 0;
  for (const piece of pieces) {
    if (piece === target) return offset;
    offset = typeof piece === "string" ? offset + piece.length : text.indexOf("}}", piece.offset) + 2;
  }
  return 0;
}

export function clip(text: string, max = 40): string {
  const oneLine = text.replace(/\s+/g, " ");
  return oneLine.length > max ? `${oneLine.slice(0, max - 1)}…` : oneLine;
}
