/**
 * Templates whose own labels are not Latin while their one field may be (an operator's
 * Japanese or Chinese event card with an English title): for the tests that a card draws the same
 * bytes whatever the worker drew before. Used by text.test.ts and by render-hash.ts in a child.
 */
import type { SatoriNode, TemplateDefinition } from "../../src/templates/types.ts";

function labelled(id: string, label: string): TemplateDefinition {
  return {
    id,
    description: `A title under the fixed label ${label}.`,
    fields: [{ name: "title", type: "text", required: true }],
    render(fields, ctx): SatoriNode {
      const text = (children: string, fontSize: number): SatoriNode => ({ type: "div", props: { style: { fontSize, fontWeight: 700 }, children } });
      return {
        type: "div",
        props: {
          style: {
            display: "flex",
            flexDirection: "column",
            width: ctx.width,
            height: ctx.height,
            padding: 80,
            backgroundColor: "#FFFFFF",
            color: "#111111",
            fontFamily: "Inter",
          },
          children: [text(label, 96), text(fields.title ?? "", 64)],
        },
      };
    },
  };
}

/** A Chinese label loads a slice with characters the Japanese label has too (measured: 日, 時 or 場). */
export const LABEL_TEMPLATES: TemplateDefinition[] = [labelled("labels-zh", "开源图片服务"), labelled("labels-ja", "日時：場所，会場")];
