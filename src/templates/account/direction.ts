/**
 * Writing direction in account templates. An element holding a `{{field}}` value in its own text
 * is laid out as a browser lays out `dir="auto"`: its first strong character (after the values are
 * put in) decides, so an Arabic or Hebrew title is right-to-left and starts on the right, and a
 * date such as "5 مايو 2027" is ordered as a right-to-left paragraph. The treatment is the
 * built-in templates' own (`textDirectionStyle` in kit.ts); this module only fits it to styles a
 * designer wrote: an explicit `text-align` (on the element or above it) or `direction` wins, and
 * room kept below Arabic text is added to the element's own padding and margin rather than
 * replacing them. Whole layouts are never mirrored: that is the designer's choice (`dir="rtl"`).
 */
import { present, textDirectionStyle } from "../kit.ts";
import type { TemplateNode } from "./tree.ts";

export type Dir = "ltr" | "rtl" | "auto";

/** What an element passes on to its children: the direction they inherit, and whether the template set an alignment. */
export interface DirectionContext {
  rtl: boolean;
  templateAlign: boolean;
}

export const ROOT_DIRECTION: DirectionContext = { rtl: false, templateAlign: false };

/**
 * Sets the element's direction in `style` (as written, after the template's own declarations)
 * and returns what its children inherit. `dir` is the element's `dir` attribute; `fitted` says
 * the style came from text fitting (a numeric font size and a clamp that could cut descenders).
 */
export function applyDirection(
  style: Record<string, string | number>,
  children: TemplateNode[],
  values: Record<string, string | undefined>,
  dir: Dir | undefined,
  inherited: DirectionContext,
): DirectionContext {
  const templateAlign = inherited.templateAlign || style.textAlign !== undefined;
  const cssDirection = style.direction === "rtl" || style.direction === "ltr" ? style.direction : undefined;
  // Author CSS wins over the dir attribute, as in a browser.
  const explicit = cssDirection ?? (dir === "rtl" || dir === "ltr" ? dir : undefined);
  if (explicit && !cssDirection) style.direction = explicit;
  const own = ownText(children, values);
  if (!own.substituted && dir !== "auto") return { rtl: explicit ? explicit === "rtl" : inherited.rtl, templateAlign };

  const treatment = textDirectionStyle(own.text, typeof style.fontSize === "number" ? style : undefined);
  if (explicit) {
    delete treatment.direction;
    delete treatment.textAlign;
  } else if (treatment.direction === undefined && inherited.rtl) {
    // Left-to-right text inside a right-to-left box starts on the left, as dir="auto" gives it.
    Object.assign(treatment, { direction: "ltr", textAlign: "left" });
  }
  if (templateAlign) delete treatment.textAlign;
  if (style.wordBreak !== undefined) delete treatment.wordBreak;
  if (typeof treatment.paddingBottom === "number" && typeof treatment.marginBottom === "number") keepOwnSpacing(style, treatment);
  // Written last so that they win over shorthands the template wrote before them.
  for (const property of Object.keys(treatment)) delete style[property];
  Object.assign(style, treatment);
  const rtl = explicit ? explicit === "rtl" : treatment.direction === "rtl" || (treatment.direction === undefined && inherited.rtl);
  return { rtl, templateAlign };
}

/** The text an element holds itself (its text children, sections resolved), and whether a value is part of it. */
export function ownText(nodes: TemplateNode[], values: Record<string, string | undefined>): { text: string; substituted: boolean } {
  let text = "";
  let substituted = false;
  const walk = (list: TemplateNode[]) => {
    for (const node of list) {
      if (node.kind === "text") {
        for (const piece of node.pieces) {
          if (typeof piece === "string") text += piece;
          else {
            const value = values[piece.field] ?? "";
            if (value) substituted = true;
            text += value;
          }
        }
      } else if (node.kind === "section") {
        if (present(values[node.field]) !== node.inverted) walk(node.children);
      }
    }
  };
  walk(nodes);
  return { text, substituted };
}

/**
 * The room below Arabic text is padding cancelled by a negative margin; added to the element's
 * own bottom padding and margin when they are lengths in px, and left out when they are not
 * (an `auto` margin, a percentage), so a designer's spacing is never lost.
 */
function keepOwnSpacing(style: Record<string, string | number>, treatment: Record<string, string | number>): void {
  const padding = bottomPx(style, "padding");
  const margin = bottomPx(style, "margin");
  if (padding === undefined || margin === undefined) {
    delete treatment.paddingBottom;
    delete treatment.marginBottom;
    delete treatment.maxHeight;
    return;
  }
  treatment.paddingBottom = padding + (treatment.paddingBottom as number);
  treatment.marginBottom = margin + (treatment.marginBottom as number);
}

/** The bottom side of `padding` or `margin` in px (0 when unset), from whichever of the shorthand and the longhand comes last. */
function bottomPx(style: Record<string, string | number>, box: "padding" | "margin"): number | undefined {
  let value: string | number = 0;
  for (const [property, v] of Object.entries(style)) {
    if (property === `${box}Bottom`) value = v;
    else if (property === box) {
      const sides = String(v).trim().split(/\s+/);
      value = sides[2] ?? sides[0] ?? 0;
    }
  }
  if (typeof value === "number") return value;
  const px = /^(-?\d+(?:\.\d+)?)(px)?$/.exec(value.trim());
  return px && (px[2] || Number(px[1]) === 0) ? Number(px[1]) : undefined;
}
