/**
 * Text fitting (`data-fit-lines`, `data-min-font-size`): checked against the element's own
 * font size and the width its parent leaves it, per orientation of card.
 */
import { attributeOffset, type Context, HTML_BOUNDS, type Orientation, type P5Element, report } from "./html-context.ts";
import { lastValue, pxOf } from "./html-styles.ts";
import type { ElementNode, TextFit } from "./tree.ts";

/**
 * A fit attribute's value for one orientation of card: `"2"`, or `"2 portrait:3"` (the bare
 * number, and another for portrait or landscape cards, as with Tailwind's variants). Anything
 * else comes back as is, for the caller to refuse.
 */
function orientedValue(value: string, orientation: Orientation): string {
  const tokens = value.trim().split(/\s+/);
  let bare: string | undefined;
  let oriented: string | undefined;
  for (const token of tokens) {
    const match = /^(portrait|landscape):(.*)$/.exec(token);
    if (!match) {
      if (bare !== undefined) return value;
      bare = token;
    } else if (match[1] === orientation) {
      if (oriented !== undefined) return value;
      oriented = match[2]!;
    }
  }
  return oriented ?? bare ?? value;
}

export function readFit(node: P5Element, ctx: Context, element: ElementNode, width: number, fontSize: number | undefined): void {
  const linesAttr = node.attrs.find((a) => a.name === "data-fit-lines");
  const minAttr = node.attrs.find((a) => a.name === "data-min-font-size");
  if (!linesAttr && !minAttr) return;
  const at = attributeOffset(node, linesAttr ? "data-fit-lines" : "data-min-font-size");
  const lines = Number(orientedValue(linesAttr?.value ?? "1", ctx.orientation));
  if (!Number.isInteger(lines) || lines < 1 || lines > HTML_BOUNDS.fitLines) {
    report(ctx, at, `data-fit-lines takes a whole number from 1 to ${HTML_BOUNDS.fitLines}, and may add one for portrait or landscape cards ("2 portrait:3")`);
    return;
  }
  const own = pxOf(element.style, "fontSize");
  if (own === undefined) {
    report(ctx, at, "data-fit-lines needs a font-size in px on the same element (the largest size the text may take)");
    return;
  }
  const min = Number(minAttr ? orientedValue(minAttr.value, ctx.orientation) : String(Math.max(HTML_BOUNDS.minFontSize, Math.round(own / 2))));
  if (!Number.isInteger(min) || min < HTML_BOUNDS.minFontSize || min > own) {
    report(
      ctx,
      at,
      `data-min-font-size takes a whole number of px from ${HTML_BOUNDS.minFontSize} to the element's font-size (${own} on ${ctx.orientation} cards), and may add one for portrait or landscape cards ("32 portrait:44")`,
    );
    return;
  }
  if (element.children.some((c) => c.kind === "element")) {
    report(ctx, at, "data-fit-lines fits text: the element may hold text and placeholders only");
    return;
  }
  const lineHeightValue = lastValue(element.style, "lineHeight");
  const lineHeight = lineHeightValue?.kind === "lineHeight" && lineHeightValue.factor !== undefined ? lineHeightValue.factor : 1.2;
  const fit: TextFit = { lines, minFontSize: min, maxFontSize: own, width, lineHeight };
  element.fit = fit;
  void fontSize;
}
