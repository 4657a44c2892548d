/**
 * Previews (src/render/preview.ts): capped at 1500 px on the longer side, drawn with a PREVIEW
 * mark that stays inside 240×60 px of the bottom-right corner. Pixels compared with the same
 * card drawn as a real render: everything that differs is the mark.
 */
import { describe, expect, test } from "bun:test";
import { ApiError } from "../../../src/errors.ts";
import { createInProcessRenderer } from "../../../src/render/engine.ts";
import { MARK_BOX, parsePreviewRequest, PREVIEW_MAX_SIDE, previewSize } from "../../../src/render/preview.ts";
import { parseRenderRequest } from "../../../src/render/request.ts";
import type { RenderRequest } from "../../../src/render/types.ts";
import { BUILT_IN_TEMPLATES } from "../../../src/templates/registry.ts";
import { decodePng, type DecodedPng } from "../../support/png.ts";

const renderer = createInProcessRenderer();
const draw = async (request: RenderRequest) => decodePng((await renderer.render(request)).bytes);

/** A flat card with one field, so only the mark can make a difference. */
const FLAT = {
  id: "flat",
  fields: [{ name: "title", type: "text" }],
  sample: { title: "Sample title" },
  html: '<div style="display: flex; width: 100%; height: 100%; background-color: #2255aa; color: white; font-size: 60px; padding: 60px">{{title}}</div>',
};

/** Where two same-sized images differ: the bounding box of the differing pixels and their count. */
function difference(a: DecodedPng, b: DecodedPng) {
  expect([a.width, a.height]).toEqual([b.width, b.height]);
  let count = 0;
  let left = Number.POSITIVE_INFINITY;
  let top = Number.POSITIVE_INFINITY;
  for (let y = 0; y < a.height; y++) {
    for (let x = 0; x < a.width; x++) {
      const i = (y * a.width + x) * 4;
      const d = Math.max(Math.abs(a.pixels[i]! - b.pixels[i]!), Math.abs(a.pixels[i + 1]! - b.pixels[i + 1]!), Math.abs(a.pixels[i + 2]! - b.pixels[i + 2]!));
      if (d > 8) {
        count++;
        left = Math.min(left, x);
        top = Math.min(top, y);
      }
    }
  }
  return { count, fromRight: a.width - left, fromBottom: a.height - top };
}

async function expectMarkedInCorner(preview: RenderRequest) {
  const marked = await draw(preview);
  const plain = await draw({ ...preview, preview: false });
  const { count, fromRight, fromBottom } = difference(marked, plain);
  // The mark is there (a pill with seven letters: thousands of pixels)...
  expect(count).toBeGreaterThan(2_000);
  // ...and nothing else changed outside the corner box.
  expect(fromRight).toBeLessThanOrEqual(MARK_BOX.width);
  expect(fromBottom).toBeLessThanOrEqual(MARK_BOX.height);
  return marked;
}

describe("previews", () => {
  test("the size is capped at 1500 px on the longer side, proportions kept", () => {
    expect(previewSize(1200, 630)).toEqual({ width: 1200, height: 630 });
    expect(previewSize(1500, 1500)).toEqual({ width: 1500, height: 1500 });
    expect(previewSize(2400, 1260)).toEqual({ width: 1500, height: 788 });
    expect(previewSize(1000, 2400)).toEqual({ width: 625, height: PREVIEW_MAX_SIDE });
  });

  test("an account template's preview carries the mark in the bottom-right corner and nothing else changes", async () => {
    const png = await expectMarkedInCorner(parsePreviewRequest({ template: FLAT }, "acc_test"));
    expect([png.width, png.height]).toEqual([1200, 630]);
  });

  test("a request larger than the cap is drawn scaled down, the mark the same size in pixels", async () => {
    const preview = parsePreviewRequest({ template: FLAT, width: 2400, height: 1260 }, "acc_test");
    expect([preview.width, preview.height]).toEqual([1500, 788]);
    const png = await expectMarkedInCorner(preview);
    expect([png.width, png.height]).toEqual([1500, 788]);
    const small = await expectMarkedInCorner(parsePreviewRequest({ template: FLAT, width: 400, height: 400 }, "acc_test"));
    expect([small.width, small.height]).toEqual([400, 400]);
  });

  test("built-in templates (the playground) are marked the same way", async () => {
    const lookup = { get: (id: string) => BUILT_IN_TEMPLATES.find((t) => t.id === id), list: () => [...BUILT_IN_TEMPLATES] };
    const request = parseRenderRequest({ template: "blog", title: "A playground card", width: 2400, height: 2400 }, lookup);
    const { asPreview } = await import("../../../src/render/preview.ts");
    const png = await expectMarkedInCorner(asPreview(request));
    expect([png.width, png.height]).toEqual([1500, 1500]);
  });

  test("values default to the sample; bad values are named under values, definition errors as create names them", () => {
    expect(parsePreviewRequest({ template: FLAT }, "acc_test").fields).toEqual({ title: "Sample title" });
    expect(parsePreviewRequest({ template: FLAT, values: { title: "Given" } }, "acc_test").fields).toEqual({ title: "Given" });
    const refused = (body: unknown) => {
      try {
        parsePreviewRequest(body, "acc_test");
      } catch (error) {
        expect(error).toBeInstanceOf(ApiError);
        return (error as ApiError).details?.map((d) => d.field);
      }
      throw new Error("accepted");
    };
    expect(refused({ template: FLAT, values: { title: 5, nope: "x" }, width: 10 })).toEqual(["values.nope", "width", "values.title"]);
    expect(refused({ template: { ...FLAT, html: "<script>x</script>" } })).toEqual(["html"]);
    expect(refused({ values: {} })).toEqual(["template"]);
    expect(refused({ template: FLAT, quality: 5 })).toEqual(["quality"]);
  });
});
