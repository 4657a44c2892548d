/**
 * Previews (src/render/preview.ts): capped at 1500 px on the longer side, drawn with a PREVIEW
 * mark repeated over the whole image. Pixels compared with the same card drawn as a real
 * render: everything that differs is the mark, and it must leave no clean crop (every 300×300
 * region, and every region the size of the mark's tile, differs from the real card) while
 * changing under 20 % of the image. On OG_TEST_ENGINE's engine.
 */
import { describe, expect, test } from "bun:test";
import { ApiError } from "../../../src/errors.ts";
import { createInProcessRenderer } from "../../../src/render/engines/in-process.ts";
import { MARK_TILE, parsePreviewRequest, PREVIEW_MAX_SIDE, previewSize } from "../../../src/render/preview.ts";
import { parseRenderRequest } from "../../../src/render/request.ts";
import type { RenderRequest } from "../../../src/render/types.ts";
import { BUILT_IN_TEMPLATES } from "../../../src/templates/registry.ts";
import { testEngine } from "../../support/engines.ts";
import { decodePng } from "../../support/png.ts";
import { markCoverage, markMask } from "../../support/preview-mark.ts";

const renderer = createInProcessRenderer({ engine: testEngine() });
const draw = async (request: RenderRequest) => decodePng((await renderer.render(request)).bytes);

/** A flat card with one field, so only the mark can make a difference. */
const FLAT = {
  id: "flat",
  fields: [{ name: "title", type: "text" }],
  sample: { title: "Sample title" },
  html: '<div style="display: flex; width: 100%; height: 100%; background-color: #2255aa; color: white; font-size: 60px; padding: 60px">{{title}}</div>',
};
/** The same on white: the mark must show on light cards too. */
const WHITE = { ...FLAT, id: "white", html: FLAT.html.replace("#2255aa", "#ffffff").replace("color: white", "color: #111111") };

/** Draws the preview and the same card for real; asserts the mark covers every crop and under 20 % of the image. */
async function expectMarkedAllOver(preview: RenderRequest) {
  const marked = await draw(preview);
  const real = await draw({ ...preview, preview: false });
  const mask = markMask(marked, real);
  const crops = markCoverage(mask, marked.width, marked.height, { w: 300, h: 300, step: 20, atLeast: 200 });
  expect(crops.regions).toBeGreaterThan(0);
  // No 300×300 crop of the preview is the real card's...
  expect(crops.clean).toEqual([]);
  // ...nor any region the size of the mark's tile (a crop of a small card included)...
  expect(markCoverage(mask, marked.width, marked.height, { ...MARK_TILE_REGION, step: 10, atLeast: 20 }).clean).toEqual([]);
  // ...and the mark changes under a fifth of the image: the card stays readable.
  expect(crops.share).toBeGreaterThan(0.02);
  expect(crops.share).toBeLessThan(0.2);
  return marked;
}
const MARK_TILE_REGION = { w: MARK_TILE.width, h: MARK_TILE.height };

describe("previews", () => {
  test("the size is capped at 1500 px on the longer side, proportions kept", () => {
    expect(previewSize(1200, 630)).toEqual({ width: 1200, height: 630 });
    expect(previewSize(1500, 1500)).toEqual({ width: 1500, height: 1500 });
    expect(previewSize(2400, 1260)).toEqual({ width: 1500, height: 788 });
    expect(previewSize(1000, 2400)).toEqual({ width: 625, height: PREVIEW_MAX_SIDE });
  });

  test("an account template's preview carries the mark over the whole image, on dark and light cards", async () => {
    const png = await expectMarkedAllOver(parsePreviewRequest({ template: FLAT }, "acc_test"));
    expect([png.width, png.height]).toEqual([1200, 630]);
    await expectMarkedAllOver(parsePreviewRequest({ template: WHITE }, "acc_test"));
  });

  test("a preview cropped to 1200×630 from a taller one is still marked everywhere", async () => {
    const tall = await draw(parsePreviewRequest({ template: FLAT, width: 1200, height: 690 }, "acc_test"));
    const real = await draw({ ...parsePreviewRequest({ template: FLAT, width: 1200, height: 690 }, "acc_test"), preview: false });
    const mask = markMask(tall, real);
    for (const top of [0, 30, 60]) {
      const crop = mask.subarray(top * 1200, (top + 630) * 1200);
      expect(markCoverage(crop, 1200, 630, { w: 300, h: 300, step: 20, atLeast: 200 }).clean).toEqual([]);
    }
  });

  test("a request larger than the cap is drawn scaled down; any size is marked all over", async () => {
    const preview = parsePreviewRequest({ template: FLAT, width: 2400, height: 1260 }, "acc_test");
    expect([preview.width, preview.height]).toEqual([1500, 788]);
    const png = await expectMarkedAllOver(preview);
    expect([png.width, png.height]).toEqual([1500, 788]);
    const small = await expectMarkedAllOver(parsePreviewRequest({ template: FLAT, width: 400, height: 400 }, "acc_test"));
    expect([small.width, small.height]).toEqual([400, 400]);
    const tall = await expectMarkedAllOver(parsePreviewRequest({ template: WHITE, width: 1000, height: 2400 }, "acc_test"));
    expect([tall.width, tall.height]).toEqual([625, 1500]);
  });

  test("built-in templates (the playground) are marked the same way", async () => {
    const lookup = { get: (id: string) => BUILT_IN_TEMPLATES.find((t) => t.id === id), list: () => [...BUILT_IN_TEMPLATES] };
    const request = parseRenderRequest({ template: "blog", title: "A playground card", width: 2400, height: 2400 }, lookup);
    const { asPreview } = await import("../../../src/render/preview.ts");
    const png = await expectMarkedAllOver(asPreview(request));
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
