/**
 * The paint budget: definitions whose shadows, filters and layers would cost the rasterizer
 * seconds are refused when created, updated or previewed (parseAccountTemplate), with the element
 * that costs the most named by line and column; the starters, the documented examples and the
 * bench's worst passing definitions are accepted; a version stored before the budget still draws.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { EXPENSIVE_TEMPLATES, REFUSED_TEMPLATES } from "../../../../bench/lib/expensive-templates.ts";
import { ApiError } from "../../../../src/errors.ts";
import { type AccountTemplateSpec, accountTemplateDefinition, parseAccountTemplate } from "../../../../src/templates/account/index.ts";
import { PAINT_BUDGET } from "../../../../src/templates/account/paint-cost.ts";
import { EXAMPLES } from "./examples.ts";
import { type Refusal, refusals } from "./refusals.ts";

/** The one problem a refused definition reports. */
function refusal(body: unknown): Refusal {
  const details = refusals(body);
  expect(details).toHaveLength(1);
  return details[0]!;
}

const BUDGET_MESSAGE = new RegExp(`about \\d+ units of work at 2400×2400; at most ${PAINT_BUDGET.megapixels}`);
const shadows4 = (blur: number) => `0 0 ${blur}px 0 red, 0 0 ${blur}px 0 red, inset 0 0 ${blur}px 0 red, 0 0 ${blur}px 0 red`;
/** A 500 px box with four shadows of `blur` on a 2400×2400 canvas, the box on line 2. */
const shadowBox = (blur: number) => ({
  id: "t",
  width: 2400,
  height: 2400,
  html: `<div style="display: flex; width: 100%; height: 100%; background: #fff">\n  <div style="position: absolute; width: 500px; height: 500px; box-shadow: ${shadows4(blur)}"></div>\n</div>`,
});

describe("paint budget", () => {
  for (const [name, definition] of Object.entries(REFUSED_TEMPLATES)) {
    test(`refuses the old worst case ${name}, naming the costliest element`, () => {
      const problem = refusal(definition);
      expect(problem.field).toBe("html");
      expect(problem.message).toMatch(BUDGET_MESSAGE);
      expect(problem.message).toMatch(/This <(div|svg)> costs the most \(\d+, mostly its (filter|box-shadow|\d gradient layers|SVG drawing)\)/);
      expect(problem.line).toBe(1);
      expect(problem.column).toBeGreaterThanOrEqual(1);
    });
  }

  for (const [name, definition] of Object.entries(EXPENSIVE_TEMPLATES)) {
    test(`accepts the bench's worst passing ${name}`, () => {
      expect(() => parseAccountTemplate(definition)).not.toThrow();
    });
  }

  const starters = join(import.meta.dir, "../../../../templates/starters");
  for (const file of readdirSync(starters).filter((f) => f.endsWith(".json"))) {
    test(`accepts the starter ${file}`, () => {
      expect(() => parseAccountTemplate(JSON.parse(readFileSync(join(starters, file), "utf8")))).not.toThrow();
    });
  }

  for (const [name, definition] of Object.entries(EXAMPLES)) {
    test(`accepts the documented example ${name}`, () => {
      expect(() => parseAccountTemplate(definition)).not.toThrow();
    });
  }

  test("at the boundary: four 43 px shadows on a 500 px box pass, four 44 px shadows do not", () => {
    expect(() => parseAccountTemplate(shadowBox(43))).not.toThrow();
    const problem = refusal(shadowBox(44));
    expect(problem.message).toMatch(BUDGET_MESSAGE);
    expect(problem.message).toMatch(/mostly its box-shadow/);
    expect({ line: problem.line, column: problem.column }).toEqual({ line: 2, column: 3 });
  });

  test("a shadow's cost grows with the square of its blur, not the box alone", () => {
    // One 100 px box: a 20 px blur reaches 100 px around it, a 99 px blur 2,450 px.
    const box = (blur: number) => ({
      id: "t",
      width: 1200,
      height: 630,
      html: `<div style="display: flex; width: 100px; height: 100px; box-shadow: 0 0 ${blur}px red"></div>`,
    });
    expect(() => parseAccountTemplate(box(20))).not.toThrow();
    expect(refusal(box(99)).message).toMatch(BUDGET_MESSAGE);
  });

  test("a filter is a pass over the whole canvas, however small its element: one blur fits, two do not", () => {
    const blurred = (count: number) => ({
      id: "t",
      html: `<div style="display: flex; width: 100%; height: 100%">${'<div style="width: 40px; height: 40px; background: red; filter: blur(4px)"></div>'.repeat(count)}</div>`,
    });
    expect(() => parseAccountTemplate(blurred(1))).not.toThrow();
    expect(refusal(blurred(2)).message).toMatch(/mostly its filter/);
  });

  test("gradient layers count by the area they cover", () => {
    const layers = (count: number, size: string) => ({
      id: "t",
      html: `<div style="display: flex; width: 100%; height: 100%; background-color: #fff">${`<div style="position: absolute; width: ${size}; height: ${size}; background-image: linear-gradient(red, blue)"></div>`.repeat(count)}</div>`,
    });
    expect(() => parseAccountTemplate(layers(4, "100%"))).not.toThrow();
    expect(refusal(layers(5, "100%")).message).toMatch(/mostly its 1 gradient layer/);
    expect(() => parseAccountTemplate(layers(40, "200px"))).not.toThrow();
  });

  test("the costlier theme decides", () => {
    const themed = (dark: string) => ({
      id: "t",
      themes: { light: { glow: "0 0 8px red" }, dark: { glow: dark } },
      html: '<div style="display: flex; width: 100%; height: 100%; box-shadow: var(--glow)"></div>',
    });
    expect(() => parseAccountTemplate(themed("0 0 8px blue"))).not.toThrow();
    expect(refusal(themed("0 0 60px blue")).message).toMatch(BUDGET_MESSAGE);
  });

  test("a version stored before the budget still draws: rendering does not apply it", () => {
    const definition = REFUSED_TEMPLATES["shadow-stack"]!;
    const stored: AccountTemplateSpec = {
      id: "shadow-stack",
      name: "",
      description: "",
      html: definition.html as string,
      fields: [],
      themes: {},
      width: 2400,
      height: 2400,
      sample: {},
    };
    expect(() => parseAccountTemplate(stored)).toThrow(ApiError);
    const tree = accountTemplateDefinition(stored).render({}, { width: 2400, height: 2400, theme: "dark", images: {} });
    expect(tree.type).toBe("div");
  });

  test("docs/templates.md and docs/render-bounds.md give the budget's number", async () => {
    for (const doc of ["templates.md", "render-bounds.md"]) {
      const text = await Bun.file(new URL(`../../../../docs/${doc}`, import.meta.url)).text();
      expect(text).toContain(`${PAINT_BUDGET.megapixels} units`);
    }
  });

  test("an inline SVG's drawing counts: fills by area, masks, clips, translucent groups, patterns and dashes by their weights, a <use> each time it draws", () => {
    // Measured at 2400×2400 (docs/render-bounds.md): fifty canvas-wide rectangles drew in 0.8–1.6 s;
    // fifty masked in 9–16 s, clipped or translucent in 3–9 s, dashed circles in 17–22 s.
    const full = 'x="0" y="0" width="1200" height="1200"';
    const svg = (inner: string, defs = "") => ({
      id: "t",
      width: 1200,
      height: 1200,
      html: `<div style="display: flex; width: 100%; height: 100%; background: #fff"><svg width="1200" height="1200" viewBox="0 0 1200 1200"><defs>${defs}</defs>${inner}</svg></div>`,
    });
    const fits = (inner: string, defs?: string) => expect(() => parseAccountTemplate(svg(inner, defs))).not.toThrow();
    const refused = (inner: string, defs?: string) =>
      expect(refusal(svg(inner, defs)).message).toMatch(/This <svg> costs the most \(\d+, mostly its SVG drawing\)/);
    fits(`<rect ${full} fill="red"/>`.repeat(50));
    refused(`<rect ${full} fill="red"/>`.repeat(100));
    const mask = `<mask id="m"><rect ${full} fill="white"/></mask>`;
    fits(`<rect ${full} fill="red" mask="url(#m)"/>`.repeat(5), mask);
    refused(`<rect ${full} fill="red" mask="url(#m)"/>`.repeat(50), mask);
    const clip = '<clipPath id="c"><circle cx="600" cy="600" r="600"/></clipPath>';
    fits(`<rect ${full} fill="red" clip-path="url(#c)"/>`.repeat(10), clip);
    refused(`<rect ${full} fill="red" clip-path="url(#c)"/>`.repeat(50), clip);
    refused(`<g opacity="0.5"><rect ${full} fill="red"/></g>`.repeat(50));
    const pattern = '<pattern id="p" width="2" height="2" patternUnits="userSpaceOnUse"><rect width="1" height="1" fill="blue"/></pattern>';
    refused(`<rect ${full} fill="url(#p)"/>`.repeat(50), pattern);
    const dashed = '<circle cx="600" cy="600" r="500" fill="none" stroke="red" stroke-width="400" stroke-dasharray="1 1"/>';
    fits(dashed);
    refused(dashed.repeat(50));
    // Ten <use> of a translucent canvas-wide rectangle fit; ten of ten do not (1.6–2 s at 1200×1200).
    const uses = (levels: number) => {
      let defs = `<g id="g0"><rect ${full} fill="red" opacity="0.5"/></g>`;
      for (let l = 1; l <= levels; l++) defs += `<g id="g${l}">${`<use href="#g${l - 1}"/>`.repeat(10)}</g>`;
      return { inner: `<use href="#g${levels}"/>`, defs };
    };
    fits(uses(1).inner, uses(1).defs);
    refused(uses(2).inner, uses(2).defs);
    // What designs are made of: an activity graph of 371 small squares, a dashed ring, icons.
    fits(
      Array.from(
        { length: 371 },
        (_, i) =>
          `<rect x="${100 + (i % 53) * 18}" y="${400 + Math.floor(i / 53) * 18}" width="14" height="14" rx="3" fill="green" opacity="0.${1 + (i % 9)}"/>`,
      ).join(""),
    );
    fits('<circle cx="600" cy="600" r="300" fill="none" stroke="#888" stroke-width="6" stroke-dasharray="12 8"/>');
    // The same drawing in a data: SVG image, drawn over the whole card, costs the same.
    const image = (rects: number) => ({
      id: "t",
      width: 1200,
      height: 1200,
      html: `<div style="display: flex; width: 100%; height: 100%"><img width="1200" height="1200" src="data:image/svg+xml,${encodeURIComponent(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><defs><mask id="m"><rect width="100" height="100" fill="white"/></mask></defs>${'<rect width="100" height="100" fill="red" mask="url(#m)"/>'.repeat(rects)}</svg>`)}"></div>`,
    });
    expect(() => parseAccountTemplate(image(5))).not.toThrow();
    expect(refusal(image(50)).message).toMatch(/This <img> costs the most \(\d+, mostly its SVG image's drawing\)/);
  });

  test("an SVG that draws over 10,000 elements once its references are followed is refused, inline or as a data: image; so is a reference cycle", () => {
    // Ten <use> of ten <use> of … a small dot: each level draws ten times the one below.
    const pyramid = (levels: number, xmlns = "") => {
      let defs = '<g id="g0"><circle cx="5" cy="5" r="2" fill="red"/></g>';
      for (let l = 1; l <= levels; l++) defs += `<g id="g${l}">${`<use href="#g${l - 1}"/>`.repeat(10)}</g>`;
      return `<svg${xmlns} width="24" height="24" viewBox="0 0 24 24"><defs>${defs}</defs><use href="#g${levels}"/></svg>`;
    };
    const page = (inner: string) => ({ id: "t", html: `<div style="display: flex; width: 100%; height: 100%">\n${inner}</div>` });
    expect(() => parseAccountTemplate(page(pyramid(3)))).not.toThrow();
    const inline = refusal(page(pyramid(4)));
    expect(inline.message).toMatch(/^an SVG draws at most 10,000 elements once its <use> and url\(#…\) references are followed; this one draws [\d,]+$/);
    expect({ line: inline.line, column: inline.column }).toEqual({ line: 2, column: 1 });
    const image = (svg: string) => page(`<img width="24" height="24" src="data:image/svg+xml,${encodeURIComponent(svg)}">`);
    expect(() => parseAccountTemplate(image(pyramid(3, ' xmlns="http://www.w3.org/2000/svg"')))).not.toThrow();
    expect(refusal(image(pyramid(4, ' xmlns="http://www.w3.org/2000/svg"'))).message).toContain("nested SVG: an SVG draws at most 10,000 elements");
    // An inline SVG that uses an image a thousand times counts the image's elements each time.
    const heavy = encodeURIComponent(pyramid(2, ' xmlns="http://www.w3.org/2000/svg"'));
    const reused = `<svg width="24" height="24"><defs><image id="i" width="24" height="24" href="data:image/svg+xml,${heavy}"/></defs>${'<use href="#i"/>'.repeat(100)}</svg>`;
    expect(refusal(page(reused)).message).toContain("an SVG draws at most 10,000 elements");
    const cycle = refusal(page('<svg width="24" height="24"><g id="a"><circle cx="5" cy="5" r="2"/><use href="#a"/></g></svg>'));
    expect(cycle.message).toContain("refers to itself");
  });

  test("SVG filters count, inline and in data: SVG images: an icon's shadow fits, canvas-wide or repeated filters do not", () => {
    const page = (inner: string) => ({
      id: "t",
      width: 2400,
      height: 2400,
      html: `<div style="display: flex; width: 100%; height: 100%; background: #fff">${inner}</div>`,
    });
    const icon =
      '<svg width="96" height="96" viewBox="0 0 24 24"><defs><filter id="s" x="-50%" y="-50%" width="200%" height="200%"><feGaussianBlur stdDeviation="1"/><feOffset dy="1"/></filter></defs><circle cx="12" cy="12" r="10" fill="red" filter="url(#s)"/></svg>';
    expect(() => parseAccountTemplate(page(icon))).not.toThrow();
    // Four blurred canvas-wide rectangles drew in 21 s before the budget.
    const blurred = `<svg width="2400" height="2400" viewBox="0 0 2400 2400"><defs><filter id="f">${'<feGaussianBlur stdDeviation="64"/>'.repeat(4)}</filter></defs>${'<rect width="2400" height="2400" fill="red" filter="url(#f)"/>'.repeat(4)}</svg>`;
    expect(refusal(page(blurred)).message).toMatch(/This <svg> costs the most \(\d+, mostly its SVG filters\)/);
    const image = (rects: number) =>
      `<img width="300" height="300" src="data:image/svg+xml,${encodeURIComponent(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><filter id="f"><feGaussianBlur stdDeviation="8"/></filter>${'<rect width="100" height="100" filter="url(#f)"/>'.repeat(rects)}</svg>`)}">`;
    expect(() => parseAccountTemplate(page(image(1)))).not.toThrow();
    // 300 filtered rectangles in one image took over two minutes.
    expect(refusal(page(image(300))).message).toMatch(/This <img> costs the most \(\d+, mostly its SVG image's filters\)/);
  });
});

describe("paint budget: layers and glyphs (bench/paint-weights.ts)", () => {
  test("nested rounded clips are charged per level: the 8 stacks of 44 that drew gigabytes are refused, mostly for their clips", async () => {
    const { NESTED_CLIPS_TEMPLATE } = await import("../../../e2e/fixtures/hostile-cards.ts");
    const problem = refusal(NESTED_CLIPS_TEMPLATE);
    expect(problem.message).toMatch(BUDGET_MESSAGE);
    expect(problem.message).toMatch(/mostly its rounded clip/);
  });

  test("a clip costs by the box it clips: a card-wide rounded frame passes", () => {
    expect(() =>
      parseAccountTemplate({
        id: "t",
        html: '<div style="display: flex; width: 100%; height: 100%; overflow: hidden; border-radius: 32px; background: #fff"><div style="display: flex">x</div></div>',
      }),
    ).not.toThrow();
  });

  test("glyphs count by their em squares: two thousand overlapping 400 px glyphs are refused, mostly for their glyphs", () => {
    const text = "W ".repeat(1990);
    const problem = refusal({
      id: "t",
      html: `<div style="display: flex; width: 500px; font-size: 400px; line-height: 0; color: rgba(0,0,0,0.5)">${text}</div>`,
    });
    expect(problem.message).toMatch(/mostly its glyphs/);
    expect(() => parseAccountTemplate({ id: "t", html: `<div style="display: flex; font-size: 64px">${"W ".repeat(200)}</div>` })).not.toThrow();
  });
});
