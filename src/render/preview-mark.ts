/**
 * The PREVIEW mark (see preview.ts), apart from the request parsing so that a render process
 * draws it without loading the template language.
 */
import type { RenderContext, SatoriNode, TemplateDefinition } from "../templates/types.ts";

/** The mark stays inside this many pixels (width × height) of the bottom-right corner. */
export const MARK_BOX = { width: 240, height: 60 } as const;
export const PREVIEW_MARK_TEXT = "PREVIEW";

// The mark in output pixels: a dark translucent pill with white capitals, 12 px from the edges;
// about 130×36 px, well inside MARK_BOX whatever the card's colours.
const MARK = { margin: 12, paddingX: 12, paddingY: 7, fontSize: 17, letterSpacing: 2, radius: 6 } as const;

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
      const mark: SatoriNode = {
        type: "div",
        props: {
          style: {
            position: "absolute",
            right: px(MARK.margin),
            bottom: px(MARK.margin),
            display: "flex",
            padding: `${px(MARK.paddingY)}px ${px(MARK.paddingX)}px`,
            borderRadius: px(MARK.radius),
            backgroundColor: "rgba(17, 17, 17, 0.72)",
            border: `${px(1)}px solid rgba(255, 255, 255, 0.55)`,
            color: "#FFFFFF",
            fontFamily: "Inter",
            fontSize: px(MARK.fontSize),
            fontWeight: 700,
            letterSpacing: px(MARK.letterSpacing),
            lineHeight: 1,
          },
          children: PREVIEW_MARK_TEXT,
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
            overflow: "hidden",
            // A JPEG is flattened onto the root's colour: keep the card's.
            ...(typeof background === "string" ? { backgroundColor: background } : {}),
          },
          children: [card, mark],
        },
      };
    },
  };
}

