/**
 * The PREVIEW mark (see preview.ts), apart from the request parsing so that a render process
 * draws it without loading the template language.
 *
 * The word is repeated over the whole image, in staggered rows, so that no crop of a preview is
 * a clean card: any MARK_TILE-sized region (and so any 300×300 crop) holds part of a word. The
 * letters are translucent white with a translucent dark outline, legible on light and dark
 * cards alike, and cover under a tenth of the image (the tests hold them under 20 %).
 *
 * Nothing here sets `overflow: hidden`: satori clips every element under such a box on its own,
 * and resvg draws each clipped element as a layer the size of the canvas, which made a preview
 * of about 70 words take seconds. Words past the edge are outside the image anyway.
 */
import type { RenderContext, SatoriNode, TemplateDefinition } from "../templates/types.ts";

export const PREVIEW_MARK_TEXT = "PREVIEW";

/**
 * The pattern's period in output pixels: a word every `width` along a row, a row every
 * `height`, every other row shifted by half a word. The gap between two words of a row is
 * under half of `width`, so any region of this size holds some of the mark.
 */
export const MARK_TILE = { width: 240, height: 110 } as const;

// The word in output pixels: about 150 px wide and 19 px tall (its capitals).
const WORD = { fontSize: 26, letterSpacing: 3, stroke: 1 } as const;

/**
 * The definition drawn with the mark on top. `width` is the output width in pixels: the tree is
 * laid out on the design canvas (ctx), so the mark is sized by output ÷ canvas to come out the
 * same in pixels at every size.
 */
export function withPreviewMark(definition: TemplateDefinition, output: { width: number }): TemplateDefinition {
  return {
    ...definition,
    render(fields, ctx: RenderContext): SatoriNode {
      const card = definition.render(fields, ctx);
      const unit = ctx.width / output.width;
      const px = (n: number) => n * unit;
      const background = (card?.props as { style?: { backgroundColor?: unknown } } | undefined)?.style?.backgroundColor;
      const outputHeight = ctx.height / unit;
      const columns = Math.ceil(output.width / MARK_TILE.width) + 2;
      const rows = Math.ceil(outputHeight / MARK_TILE.height) + 1;
      const word = (key: string): SatoriNode => ({
        type: "div",
        key,
        props: {
          style: { display: "flex", flexShrink: 0, width: px(MARK_TILE.width), justifyContent: "center" },
          children: PREVIEW_MARK_TEXT,
        },
      });
      const row = (r: number): SatoriNode => ({
        type: "div",
        key: `r${r}`,
        props: {
          style: {
            display: "flex",
            flexShrink: 0,
            alignItems: "center",
            height: px(MARK_TILE.height),
            // Every other row starts half a word earlier: the words of two rows never line up.
            marginLeft: px(r % 2 === 0 ? -MARK_TILE.width / 4 : (-MARK_TILE.width * 3) / 4),
          },
          children: Array.from({ length: columns }, (_, c) => word(`w${r}-${c}`)),
        },
      });
      const mark: SatoriNode = {
        type: "div",
        props: {
          style: {
            position: "absolute",
            left: 0,
            top: 0,
            width: ctx.width,
            height: ctx.height,
            display: "flex",
            flexDirection: "column",
            color: "rgba(255, 255, 255, 0.42)",
            WebkitTextStroke: `${px(WORD.stroke)}px rgba(17, 17, 17, 0.42)`,
            fontFamily: "Inter",
            fontSize: px(WORD.fontSize),
            fontWeight: 800,
            letterSpacing: px(WORD.letterSpacing),
            lineHeight: 1,
            whiteSpace: "nowrap",
          },
          children: Array.from({ length: rows }, (_, r) => row(r)),
        },
      };
      return {
        type: "div",
        props: {
          style: {
            display: "flex",
            position: "relative",
            width: ctx.width,
            height: ctx.height,
            // A JPEG is flattened onto the root's colour: keep the card's.
            ...(typeof background === "string" ? { backgroundColor: background } : {}),
          },
          children: [card, mark],
        },
      };
    },
  };
}
