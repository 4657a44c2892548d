/**
 * Helpers templates share: sizing text to the space it has. satori cannot measure text for us
 * before layout, so the size is estimated from the text itself, and `lineClamp` with an
 * ellipsis is the safety net when the estimate is optimistic: text never leaves its box.
 */
import bidiFactory from "bidi-js";

const bidi = bidiFactory();

/**
 * Approximate advance of a character in Inter, in ems, at bold weights. Deliberately a little
 * generous: overestimating only costs a slightly smaller font, underestimating costs an ellipsis.
 */
function charWidthEm(ch: string): number {
  const code = ch.codePointAt(0) ?? 0;
  if (ch === " ") return 0.27;
  if (/[iljtf.,:;'!|]/.test(ch)) return 0.32;
  if (/[mwMW@]/.test(ch)) return 0.88;
  if (/[A-Z]/.test(ch)) return 0.68;
  if (/[0-9]/.test(ch)) return 0.62;
  if (code >= 0x0400 && code <= 0x04ff) return 0.64; // Cyrillic runs wider than Latin lowercase
  if (code >= 0x1100) return 1.0; // CJK, emoji and other wide glyphs
  return 0.54;
}

/** Estimated width of `text` at 1px font size. */
export function textWidthEm(text: string): number {
  let em = 0;
  for (const ch of text) em += charWidthEm(ch);
  return em;
}

/** Estimated number of lines `text` takes at `fontSize` in a box `maxWidth` wide. */
export function estimateLines(text: string, fontSize: number, maxWidth: number): number {
  // Word wrapping leaves the end of each line ragged; 0.92 accounts for that slack.
  const usable = maxWidth * 0.92;
  let lines = 1;
  let lineWidth = 0;
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const w = textWidthEm(word) * fontSize;
    const candidate = lineWidth === 0 ? w : lineWidth + 0.27 * fontSize + w;
    if (lineWidth > 0 && candidate > usable) {
      lines++;
      lineWidth = w;
    } else {
      lineWidth = candidate;
    }
    // A single word wider than the line breaks inside itself.
    while (lineWidth > usable) {
      lines++;
      lineWidth -= usable;
    }
  }
  return lines;
}

export interface FitOptions {
  maxWidth: number;
  maxLines: number;
  maxSize: number;
  minSize: number;
  /** When set, the lines must also fit this height at `lineHeight`. */
  maxHeight?: number;
  lineHeight?: number;
}

/**
 * The largest font size (stepping down by 2px) at which `text` fits in `maxLines` lines.
 * At `minSize` it may still need more lines: the caller clamps to `maxLines` with an ellipsis.
 */
export function fitFontSize(text: string, { maxWidth, maxLines, maxSize, minSize, maxHeight = Infinity, lineHeight = 1.2 }: FitOptions): number {
  for (let size = maxSize; size > minSize; size -= 2) {
    const lines = estimateLines(text, size, maxWidth);
    if (lines <= maxLines && lines * size * lineHeight <= maxHeight) return size;
  }
  return minSize;
}

/**
 * Style for a block of text that wraps to at most `lines` lines and ends in an ellipsis beyond.
 * `maxHeight` backs up `lineClamp` so even a mis-estimate cannot push siblings off the card.
 */
export function clampStyle(lines: number, fontSize: number, lineHeight: number): Record<string, string | number> {
  return {
    display: "block",
    lineClamp: lines,
    textOverflow: "ellipsis",
    overflow: "hidden",
    fontSize,
    lineHeight,
    maxHeight: Math.ceil(lines * fontSize * lineHeight) + 2,
  };
}

/** One line, cut with an ellipsis when it is too long for its box. */
export function singleLineStyle(fontSize: number): Record<string, string | number> {
  return {
    display: "block",
    whiteSpace: "nowrap",
    textOverflow: "ellipsis",
    overflow: "hidden",
    fontSize,
    lineHeight: 1.25,
  };
}

/** Text fields arrive as strings or undefined; treat blank as absent so layouts don't reserve space for it. */
export function present(value: string | undefined): value is string {
  return typeof value === "string" && value.trim().length > 0;
}

/**
 * Whether `text` is a right-to-left paragraph, as a browser decides for `dir="auto"`: by its
 * first strong character (the Unicode bidi algorithm's rules P2–P3, via bidi-js). Text with no
 * strong character (digits, punctuation) is left-to-right.
 */
export function isRightToLeft(text: string | undefined): boolean {
  if (!text) return false;
  return bidi.getEmbeddingLevels(text).paragraphs[0]?.level === 1;
}

/** Hangul syllables and jamo. */
const HANGUL = /[\u1100-\u11FF\u3130-\u318F\uAC00-\uD7AF]/;

/** Arabic-script blocks (Arabic, Syriac, Thaana, NKo, Arabic Extended and presentation forms). */
const ARABIC = /[\u0600-\u08FF\uFB50-\uFDFF\uFE70-\uFEFF]/;

/**
 * Style for a block of user text in its own writing direction: the paragraph direction comes
 * from its first strong character (the Unicode bidi algorithm's rules P2–P3, via bidi-js), so
 * an Arabic or Hebrew title is laid out right-to-left and right-aligned, and satori then orders
 * mixed runs (Latin words, numbers) inside it. Spread it after the block's own style, and pass
 * that style (from clampStyle or singleLineStyle) as `block`.
 *
 * Korean keeps its words whole at line ends. Arabic also gets letter spacing 0 (spacing would open the joins between letters) and room
 * below its last line: its letters reach much further below the baseline than Latin ones (the
 * dots of a final ي, the tail of ج), and the block's `overflow: hidden` cut them off, which
 * left a final ي without its dots. The room is padding cancelled by a negative margin, so the
 * layout around the block does not move.
 */
export function textDirectionStyle(text: string | undefined, block?: Record<string, string | number>): Record<string, string | number> {
  if (!text) return {};
  const rtl = isRightToLeft(text);
  const style: Record<string, string | number> = rtl ? { direction: "rtl", textAlign: "right" } : {};
  // Korean breaks lines between words, as in print (CSS `word-break: keep-all`), not inside one.
  if (HANGUL.test(text)) style.wordBreak = "keep-all";
  if (ARABIC.test(text)) {
    style.letterSpacing = 0;
    const fontSize = typeof block?.fontSize === "number" ? block.fontSize : undefined;
    if (fontSize) {
      const room = Math.ceil(fontSize * ARABIC_DESCENT_ROOM);
      Object.assign(style, { paddingBottom: room, marginBottom: -room });
      if (typeof block?.maxHeight === "number") style.maxHeight = block.maxHeight + room;
    }
  }
  return style;
}

/** Extra room below Arabic text, in ems: Noto Sans Arabic's deepest marks sit about 0.35 em below the line box. */
const ARABIC_DESCENT_ROOM = 0.4;
