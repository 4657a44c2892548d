/**
 * Account templates drawn through the real pipeline (satori + resvg + our encoder, or takumi
 * with OG_TEST_ENGINE=takumi), on flat
 * colours so each assertion reads one region: sections, theme variables, image fields, inline
 * SVG and text fitting.
 */
import { describe, expect, test } from "bun:test";
import { renderTemplate } from "../../../../src/render/engines/in-process.ts";
import { extraBundledFaces } from "../../../../src/render/fonts/fonts.ts";
import { templateFamilies } from "../../../../src/templates/account/fonts.ts";
import { accountTemplateDefinition, parseAccountTemplate } from "../../../../src/templates/account/index.ts";
import { averageColour, decodePng, firstDarkColumns, fractionNear, solidPngDataUri, type DecodedPng } from "../../../support/png.ts";
import { testEngine } from "../../../support/engines.ts";
import { countInk } from "../../render/regions.ts";
import { EXAMPLES } from "./examples.ts";

async function draw(
  definition: Record<string, unknown>,
  values: Record<string, string | undefined>,
  theme: "dark" | "light" = "dark",
  images: Record<string, string> = {},
  size = { width: 1200, height: 630 },
): Promise<DecodedPng> {
  const template = accountTemplateDefinition(parseAccountTemplate(definition));
  const { bytes } = await renderTemplate(template, values, { ...size, theme, images, format: "png", engine: testEngine() });
  return decodePng(bytes);
}

const RED: [number, number, number] = [255, 0, 0];
const BLUE: [number, number, number] = [0, 0, 255];
const WHITE: [number, number, number] = [255, 255, 255];
const BLACK: [number, number, number] = [0, 0, 0];
const GREEN: [number, number, number] = [0, 200, 120];

describe("pixels", () => {
  test("a section draws its box only when the field has a value; the inverted one otherwise", async () => {
    const definition = {
      id: "t",
      fields: [{ name: "flag", type: "text" }],
      html: `<div style="display: flex; width: 100%; height: 100%; background-color: white">
  {{#flag}}<div style="width: 600px; height: 630px; background-color: red"></div>{{/flag}}
  {{^flag}}<div style="width: 600px; height: 630px; background-color: blue"></div>{{/flag}}
</div>`,
    };
    const on = await draw(definition, { flag: "yes" });
    expect(fractionNear(on, 100, 100, 400, 400, RED)).toBeGreaterThan(0.99);
    const off = await draw(definition, {});
    expect(fractionNear(off, 100, 100, 400, 400, BLUE)).toBeGreaterThan(0.99);
    expect(fractionNear(off, 700, 100, 400, 400, WHITE)).toBeGreaterThan(0.99);
  });

  test("theme variables follow the requested theme", async () => {
    const definition = {
      id: "t",
      html: '<div style="width: 100%; height: 100%; background-color: var(--bg)"></div>',
      themes: { dark: { bg: "#000000" }, light: { bg: "#ff0000" } },
    };
    expect(fractionNear(await draw(definition, {}, "dark"), 0, 0, 1200, 630, BLACK)).toBeGreaterThan(0.99);
    expect(fractionNear(await draw(definition, {}, "light"), 0, 0, 1200, 630, RED)).toBeGreaterThan(0.99);
  });

  test("a colour field paints where its placeholder stands", async () => {
    const definition = {
      id: "t",
      html: '<div style="width: 100%; height: 100%; background-color: {{brand}}"></div>',
      fields: [{ name: "brand", type: "color" }],
    };
    expect(fractionNear(await draw(definition, { brand: "rgb(0, 0, 255)" }), 0, 0, 1200, 630, BLUE)).toBeGreaterThan(0.99);
  });

  test("an image field draws the fetched data: URI", async () => {
    const definition = {
      id: "t",
      fields: [{ name: "photo", type: "image_url", required: true }],
      html: '<div style="display: flex; width: 100%; height: 100%; background-color: white"><img src="{{photo}}" width="400" height="400" style="margin: 100px"></div>',
    };
    const png = await draw(definition, { photo: "https://example.com/a.png" }, "dark", { photo: solidPngDataUri(40, 40, GREEN) });
    expect(fractionNear(png, 150, 150, 300, 300, GREEN)).toBeGreaterThan(0.98);
    expect(fractionNear(png, 700, 100, 400, 400, WHITE)).toBeGreaterThan(0.99);
  });

  test("inline SVG draws; a data: SVG image draws", async () => {
    const svg = encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10" fill="#0000ff"/></svg>');
    const definition = {
      id: "t",
      html: `<div style="display: flex; width: 100%; height: 100%; background-color: white">
  <svg width="600" height="630" viewBox="0 0 10 10"><rect width="10" height="10" fill="red"/></svg>
  <img src="data:image/svg+xml,${svg}" width="600" height="630">
</div>`,
    };
    const png = await draw(definition, {});
    expect(fractionNear(png, 50, 50, 500, 500, RED)).toBeGreaterThan(0.99);
    expect(fractionNear(png, 650, 50, 500, 500, BLUE)).toBeGreaterThan(0.99);
  });

  test("data-fit-lines shrinks a long text to fit its lines, keeps a short one at full size", async () => {
    const definition = {
      id: "t",
      fields: [{ name: "title", type: "text" }],
      html: '<div style="display: flex; width: 100%; height: 100%; background-color: white; padding: 50px"><h1 style="font-size: 120px; line-height: 1.1; color: black; margin: 0; width: 1100px" data-fit-lines="2" data-min-font-size="30">{{title}}</h1></div>',
    };
    const short = await draw(definition, { title: "Hi" });
    const long = await draw(definition, { title: "A much longer title that would need four or five lines at the largest size of one hundred and twenty" });
    // The short title is tall (ink reaches ~100 px below the top); the long one stays within two lines of a smaller size.
    expect(countInk(short, 50, 120, 400, 60, WHITE)).toBeGreaterThan(500);
    expect(countInk(long, 50, 50 + 2 * 132, 1100, 630 - 50 - 2 * 132, WHITE)).toBe(0);
    expect(countInk(long, 50, 50, 1100, 100, WHITE)).toBeGreaterThan(500);
  });

  test("portrait: and landscape: classes follow the card drawn, not the design canvas", async () => {
    const html = '<div class="flex w-full h-full bg-[#ff0000] portrait:bg-[#0000ff]"></div>';
    const wide = { id: "t", html };
    const squareDesign = { id: "t", html, width: 1080, height: 1080 };
    const colour = async (definition: Record<string, unknown>, width: number, height: number, expected: [number, number, number]) =>
      expect(fractionNear(await draw(definition, {}, "dark", {}, { width, height }), 0, 0, width, height, expected)).toBeGreaterThan(0.99);
    await colour(wide, 1200, 630, RED);
    await colour(wide, 1080, 1080, BLUE);
    await colour(wide, 1080, 1350, BLUE);
    await colour(squareDesign, 1200, 630, RED);
    await colour(squareDesign, 1080, 1080, BLUE);
  });

  test("a portrait: font size is where a fitted text starts on a square card", async () => {
    const definition = {
      id: "t",
      fields: [{ name: "title", type: "text" }],
      html: '<div style="display: flex; width: 100%; height: 100%; background-color: white; padding: 50px"><h1 class="text-[40px] portrait:text-[120px]" style="line-height: 1.1; color: black; margin: 0" data-fit-lines="1" data-min-font-size="20">{{title}}</h1></div>',
    };
    const wide = await draw(definition, { title: "Hi" });
    const square = await draw(definition, { title: "Hi" }, "dark", {}, { width: 1200, height: 1200 });
    // 40 px type leaves the band 60–150 px below the top white; 120 px type fills it.
    expect(countInk(wide, 50, 110, 400, 60, WHITE)).toBe(0);
    expect(countInk(square, 50, 110, 400, 60, WHITE)).toBeGreaterThan(500);
    // A text too long for one line at 120 px still fits one line: the fit starts from the portrait size.
    const long = await draw(definition, { title: "A title far too long for one line at one hundred and twenty px" }, "dark", {}, { width: 1200, height: 1200 });
    expect(countInk(long, 50, 50 + 132, 1100, 1200 - 100 - 132, WHITE)).toBe(0);
  });

  test('data-fit-lines="1 portrait:3" gives a fitted text three lines on a square card, one on a wide one', async () => {
    const definition = {
      id: "t",
      fields: [{ name: "title", type: "text" }],
      html: '<div style="display: flex; width: 100%; height: 100%; background-color: white; padding: 50px"><h1 style="font-size: 100px; line-height: 1.1; color: black; margin: 0; width: 1100px" data-fit-lines="1 portrait:3" data-min-font-size="20 portrait:80">{{title}}</h1></div>',
    };
    const title = { title: "A title that needs three lines at one hundred px on this card" };
    const wide = await draw(definition, title);
    const square = await draw(definition, title, "dark", {}, { width: 1200, height: 1200 });
    // One line of shrunk text on the wide card; on the square one the third line (from 50 + 2 × 110 px) has ink.
    expect(countInk(wide, 50, 50 + 110, 1100, 630 - 100 - 110, WHITE)).toBe(0);
    expect(countInk(square, 50, 50 + 2 * 110, 1100, 110, WHITE)).toBeGreaterThan(500);
  });

  test("<i>, <em> and font-style: italic are drawn slanted, bold too; upright text stays upright", async () => {
    // Tall capital I's: upright, the ink's left edge is as far left at the top as at the bottom;
    // slanted, the top sits to the right of the bottom. (Both engines slant a face that has no
    // italic themselves; that the bundled italic faces are the ones given is text.test.ts's.)
    const slant = async (html: string) => {
      const png = await draw(
        {
          id: "t",
          html: `<div style="display: flex; width: 100%; height: 100%; background-color: white; color: black; font-size: 300px; padding: 100px">${html}</div>`,
        },
        {},
      );
      const first = firstDarkColumns(png);
      const rows = first.flatMap((x, y) => (x < png.width ? [y] : []));
      const top = rows[0]!;
      const bottom = rows.at(-1)!;
      const band = Math.floor((bottom - top) / 5);
      const leftEdge = (y0: number, y1: number) => Math.min(...first.slice(y0, y1));
      return leftEdge(top, top + band) - leftEdge(bottom - band, bottom + 1);
    };
    expect(Math.abs(await slant("<span>III</span>"))).toBeLessThan(4);
    for (const italic of ["<i>III</i>", "<em>III</em>", '<span style="font-style: italic">III</span>', "<b><i>III</i></b>"]) {
      expect({ italic, slant: (await slant(italic)) > 20 }).toEqual({ italic, slant: true });
    }
  });

  test("Cyrillic and Greek in <i> draw with their italic faces: А, В, Е and Α, Β, Ε as the Latin A, B, E do", async () => {
    // The capitals these scripts share with Latin have the same outlines in each italic face, so
    // drawn from the right face they match the Latin italic pixel for pixel; an upright face
    // slanted by the engine (what a subset without an italic face gets) draws other pixels.
    const italic = async (text: string) =>
      (
        await draw(
          {
            id: "t",
            html: `<div style="display: flex; width: 100%; height: 100%; background-color: white; color: black; font-size: 200px; padding: 100px"><i>${text}</i></div>`,
          },
          {},
        )
      ).pixels;
    const latin = await italic("ABE");
    for (const text of ["\u0410\u0412\u0415", "\u0391\u0392\u0395"]) {
      const drawn = await italic(text);
      let differing = 0;
      for (let i = 0; i < latin.length; i++) if (Math.abs(latin[i]! - drawn[i]!) > 8) differing++;
      expect({ text, differing }).toEqual({ text, differing: 0 });
    }
  });

  test("Tailwind borders draw on the sides their classes name, in their colour", async () => {
    // A 400×200 box at (100, 100) on white; `at` reads a 4 px band just inside each side.
    const box = async (classes: string) => {
      const png = await draw(
        { id: "t", html: `<div class="flex w-full h-full bg-white p-[100px]"><div class="w-[400px] h-[200px] ${classes}"></div></div>` },
        {},
      );
      const band = (x: number, y: number, w: number, h: number) => fractionNear(png, x, y, w, h, RED) > 0.9;
      return {
        top: band(120, 100, 360, 1),
        right: band(499, 120, 1, 160),
        bottom: band(120, 299, 360, 1),
        left: band(100, 120, 1, 160),
        inside: fractionNear(png, 110, 110, 380, 180, WHITE) > 0.99,
      };
    };
    expect(await box("border-t border-[#ff0000]")).toEqual({ top: true, right: false, bottom: false, left: false, inside: true });
    expect(await box("border-t border-solid border-[#ff0000]")).toEqual({ top: true, right: false, bottom: false, left: false, inside: true });
    expect(await box("border-4 border-[#ff0000]")).toEqual({ top: true, right: true, bottom: true, left: true, inside: true });
    expect(await box("border-b-2 border-[#ff0000]")).toEqual({ top: false, right: false, bottom: true, left: false, inside: true });
    expect(await box("border-x border-[#ff0000]")).toEqual({ top: false, right: true, bottom: false, left: true, inside: true });
    expect(await box("border-l-4 border-[#ff0000]")).toEqual({ top: false, right: false, bottom: false, left: true, inside: true });
    // Widths: border-4 is 4 px deep, border-t 1 px.
    const four = await draw(
      { id: "t", html: '<div class="flex w-full h-full bg-white p-[100px]"><div class="w-[400px] h-[200px] border-4 border-[#ff0000]"></div></div>' },
      {},
    );
    expect(fractionNear(four, 120, 100, 360, 4, RED)).toBeGreaterThan(0.95);
    expect(fractionNear(four, 120, 105, 360, 4, WHITE)).toBeGreaterThan(0.95);
  });

  test("Tailwind gap-*, leading-* and tracking-* move what they space", async () => {
    const ink = (png: DecodedPng) => {
      let left = png.width,
        right = -1,
        top = png.height,
        bottom = -1;
      for (let y = 0; y < png.height; y++) {
        for (let x = 0; x < png.width; x++) {
          const i = (y * png.width + x) * 4;
          if (png.pixels[i]! + png.pixels[i + 1]! + png.pixels[i + 2]! < 384) {
            left = Math.min(left, x);
            right = Math.max(right, x);
            top = Math.min(top, y);
            bottom = Math.max(bottom, y);
          }
        }
      }
      return { width: right - left + 1, height: bottom - top + 1 };
    };
    const card = (inner: string) => draw({ id: "t", html: `<div class="flex w-full h-full bg-white text-black p-[50px]">${inner}</div>` }, {});
    // Two 100 px black boxes: 200 px of ink wide, plus the gap.
    const boxes = (classes: string) =>
      card(`<div class="flex ${classes}"><div class="w-[100px] h-[50px] bg-black"></div><div class="w-[100px] h-[50px] bg-black"></div></div>`);
    expect(ink(await boxes("gap-10")).width).toBe(240);
    expect(ink(await boxes("gap-x-[12px]")).width).toBe(212);
    expect(ink(await boxes("flex-col gap-y-4")).height).toBe(116);
    // Two lines of 40 px text: the second line starts one line height below the first.
    const lines = async (classes: string) => ink(await card(`<p class="m-0 w-[50px] text-[40px] ${classes}">III III</p>`)).height;
    expect((await lines("leading-[2]")) - (await lines("leading-none"))).toBeCloseTo(40, -1);
    expect((await lines("leading-tight")) - (await lines("leading-none"))).toBeCloseTo(10, -1);
    // Four letters, three gaps between them: 0.1em of 40 px each for tracking-widest.
    const word = async (classes: string) => ink(await card(`<span class="text-[40px] ${classes}">IIII</span>`)).width;
    expect((await word("tracking-widest")) - (await word("tracking-normal"))).toBeCloseTo(12, -1);
    expect((await word("tracking-normal")) - (await word("tracking-tight"))).toBeCloseTo(3, 0);
    expect((await word("tracking-[0.5em]")) - (await word("tracking-normal"))).toBeCloseTo(60, -1);
  });

  test("<p>one<br>two</p> draws two lines", async () => {
    const lines = async (html: string) => {
      const png = await draw(
        {
          id: "t",
          fields: [{ name: "a", type: "text" }],
          html: `<div style="display: flex; width: 100%; height: 100%; background-color: white; color: black; font-size: 40px; padding: 50px">${html}</div>`,
        },
        {},
      );
      // Rows with ink, grouped into runs: one run per line of text.
      const rows = firstDarkColumns(png).map((x) => x < png.width);
      return rows.filter((inked, y) => inked && !rows[y - 1]).length;
    };
    expect(await lines("<p>one<br>two</p>")).toBe(2);
    expect(await lines("<p>\n  one<br>\n  {{a}}two\n</p>")).toBe(2);
    expect(await lines("<p>one two</p>")).toBe(1);
  });

  test("Tailwind's preflight: a heading or paragraph starts at its box's top, a heading in the size and weight around it", async () => {
    // The first inked row of a card whose text sits at 100 px from the top: 60 px type has its
    // cap height ~16 px below the top of its line box, a browser's 0.67em margin would add 40 px.
    const top = async (inner: string) => {
      const png = await draw({ id: "t", html: `<div class="flex flex-col w-full h-full bg-white text-black pt-[100px] pl-[50px]">${inner}</div>` }, {});
      return firstDarkColumns(png).findIndex((x) => x < png.width);
    };
    for (const inner of ['<h1 class="text-[60px] leading-none">Hello</h1>', '<p class="text-[60px] leading-none">Hello</p>']) {
      expect({ inner, top: (await top(inner)) < 120 }).toEqual({ inner, top: true });
    }
    // A heading with no size or weight class is the text around it: the same ink as a <div>.
    const ink = async (tag: string) =>
      countInk(
        await draw({ id: "t", html: `<div class="flex w-full h-full bg-white text-black text-[60px] p-[50px]"><${tag}>Hello</${tag}></div>` }, {}),
        0,
        0,
        1200,
        630,
        WHITE,
      );
    expect(await ink("h2")).toBe(await ink("div"));
  });

  test("truncate keeps a text to one line and line-clamp-2 to two", async () => {
    const lines = async (classes: string) => {
      const png = await draw(
        {
          id: "t",
          html: `<div class="flex w-full h-full bg-white text-black text-[40px] p-[50px]"><p class="w-[500px] leading-[50px] ${classes}">A title far too long for one line of this narrow box, or for two</p></div>`,
        },
        {},
      );
      const rows = firstDarkColumns(png).map((x) => x < png.width);
      return rows.filter((inked, y) => inked && !rows[y - 1]).length;
    };
    expect(await lines("")).toBeGreaterThan(2);
    expect(await lines("truncate")).toBe(1);
    expect(await lines("line-clamp-2")).toBe(2);
  });

  test("font-serif and font-mono draw their bundled faces, on either engine", async () => {
    const card = (classes: string) => ({ id: "t", html: `<div class="flex w-full h-full bg-white text-black text-[120px] p-[50px] ${classes}">Hamburg</div>` });
    const ink = async (classes: string) => {
      const definition = card(classes);
      const bundled = templateFamilies(parseAccountTemplate(definition)).bundled;
      // The faces a render process adds for a card that names them (sandbox/font-cache.ts).
      const cardFonts = { key: bundled.join(), fonts: (await Promise.all(bundled.map(extraBundledFaces))).flat(), names: {} };
      const template = accountTemplateDefinition(parseAccountTemplate(definition));
      const { bytes } = await renderTemplate(
        template,
        {},
        { width: 1200, height: 630, theme: "dark", images: {}, format: "png", engine: testEngine(), cardFonts },
      );
      return countInk(decodePng(bytes), 0, 0, 1200, 630, WHITE);
    };
    const sans = await ink("font-sans");
    for (const classes of ["font-serif", "font-mono", "font-[Source_Serif_4]"])
      expect({ classes, same: (await ink(classes)) === sans }).toEqual({ classes, same: false });
  });

  test("Tailwind gradients: bg-gradient-to-*/bg-linear-to-* with from-, via- and to- colours", async () => {
    const card = (classes: string) => draw({ id: "t", html: `<div class="flex w-full h-full ${classes}"></div>` }, {});
    const across = await card("bg-gradient-to-r from-[#ff0000] to-[#0000ff]");
    expect(fractionNear(across, 0, 0, 12, 630, RED, 40)).toBeGreaterThan(0.95);
    expect(fractionNear(across, 1188, 0, 12, 630, BLUE, 40)).toBeGreaterThan(0.95);
    const middle = averageColour(across, 590, 0, 20, 630);
    expect(middle[0]).toBeGreaterThan(90);
    expect(middle[2]).toBeGreaterThan(90);
    // Downwards, through a green middle.
    const down = await card("bg-linear-to-b from-[#ff0000] via-[#00c878] to-[#0000ff]");
    expect(fractionNear(down, 0, 0, 1200, 6, RED, 40)).toBeGreaterThan(0.95);
    expect(fractionNear(down, 0, 312, 1200, 6, GREEN, 40)).toBeGreaterThan(0.95);
    expect(fractionNear(down, 0, 624, 1200, 6, BLUE, 40)).toBeGreaterThan(0.95);
    // from-*/50: half the red over white.
    const half = await card("bg-white bg-gradient-to-r from-[#ff0000]/50 to-[#ff0000]/50");
    expect(fractionNear(half, 0, 0, 1200, 630, [255, 128, 128], 24)).toBeGreaterThan(0.95);
  });

  test("Tailwind transforms move, turn, scale and skew the box; ring-*, rounded-4xl and basis-* draw", async () => {
    // A 200×200 red box whose unmoved place is (500, 215)–(700, 415) on white.
    const box = (classes: string, outer = "items-center justify-center") =>
      draw({ id: "t", html: `<div class="flex w-full h-full bg-white ${outer}"><div class="w-[200px] h-[200px] bg-[#ff0000] ${classes}"></div></div>` }, {});
    const red = (png: DecodedPng, x: number, y: number, w = 20, h = 20) => fractionNear(png, x, y, w, h, RED, 40) > 0.9;
    const white = (png: DecodedPng, x: number, y: number, w = 20, h = 20) => fractionNear(png, x, y, w, h, WHITE, 40) > 0.9;
    const plain = await box("");
    expect([red(plain, 505, 220), white(plain, 470, 305)]).toEqual([true, true]);
    const moved = await box("translate-x-[100px] -translate-y-1/4");
    expect([white(moved, 505, 370), red(moved, 680, 170), white(moved, 505, 390)]).toEqual([true, true, true]);
    // Turned 45°: the corners are white, a point past the left side on the middle line is red.
    const turned = await box("rotate-45");
    expect([white(turned, 502, 217, 10, 10), red(turned, 470, 305)]).toEqual([true, true]);
    // Half the size about the centre: the border band is white, the middle red.
    const half = await box("scale-50");
    expect([white(half, 505, 220), red(half, 590, 305)]).toEqual([true, true]);
    // Half the width only.
    const narrow = await box("scale-x-50");
    expect([white(narrow, 505, 300), red(narrow, 590, 220)]).toEqual([true, true]);
    // Scaled from its top-left corner, the box keeps that corner.
    const corner = await box("scale-50 origin-top-left");
    expect([red(corner, 505, 220), white(corner, 660, 380)]).toEqual([true, true]);
    // Skewed 30° along x: the top edge slides left, the bottom right.
    const skewed = await box("skew-x-[30deg]");
    expect([red(skewed, 460, 220, 10, 10), red(skewed, 730, 400, 10, 10), white(skewed, 505, 400, 10, 10)]).toEqual([true, true, true]);
    // A 6 px ring outside the box, in its colour.
    const ring = await box("bg-[#0000ff] ring-[6px] ring-[#ff0000]");
    expect(fractionNear(ring, 520, 209, 160, 5, RED, 40)).toBeGreaterThan(0.9);
    expect(fractionNear(ring, 520, 220, 160, 5, BLUE, 40)).toBeGreaterThan(0.9);
    // rounded-4xl is 32 px: the corner's outermost pixels are white.
    const round = await box("rounded-4xl");
    expect([white(round, 500, 215, 6, 6), red(round, 590, 215, 20, 6)]).toEqual([true, true]);
    // basis-1/2: half the row.
    const basis = await draw({ id: "t", html: '<div class="flex w-full h-full bg-white"><div class="basis-1/2 bg-[#ff0000]"></div></div>' }, {});
    expect([red(basis, 580, 300), white(basis, 610, 300)]).toEqual([true, true]);
  });

  test("Tailwind filters: grayscale, brightness and blur draw on the element", async () => {
    const box = (classes: string) =>
      draw(
        {
          id: "t",
          html: `<div class="flex w-full h-full bg-white items-center justify-center"><div class="w-[200px] h-[200px] bg-[#ff0000] ${classes}"></div></div>`,
        },
        {},
      );
    const grey = averageColour(await box("grayscale"), 560, 275, 80, 80);
    expect(Math.abs(grey[0] - grey[1])).toBeLessThan(12);
    expect(Math.abs(grey[1] - grey[2])).toBeLessThan(12);
    const dim = averageColour(await box("brightness-50"), 560, 275, 80, 80);
    expect(dim[0]).toBeGreaterThan(100);
    expect(dim[0]).toBeLessThan(160);
    expect(dim[1]).toBeLessThan(30);
    // Blurred, the box's edge is a ramp: just outside it is pink, not white.
    const sharp = averageColour(await box(""), 494, 300, 4, 20);
    const soft = averageColour(await box("blur-md"), 494, 300, 4, 20);
    expect(sharp[1]).toBeGreaterThan(240);
    expect(soft[1]).toBeLessThan(235);
  });

  test("Tailwind decoration-* colours the underline and sets its style", async () => {
    const text = (classes: string) =>
      draw(
        { id: "t", html: `<div class="flex w-full h-full bg-white text-black text-[60px] p-[50px]"><span class="underline ${classes}">Hamburg</span></div>` },
        {},
      );
    const reds = (png: DecodedPng) => {
      let n = 0;
      for (let i = 0; i < png.pixels.length; i += 4) if (png.pixels[i]! > 200 && png.pixels[i + 1]! < 60 && png.pixels[i + 2]! < 60) n++;
      return n;
    };
    expect(reds(await text(""))).toBe(0);
    const solid = reds(await text("decoration-[#ff0000]"));
    expect(solid).toBeGreaterThan(100);
    // A dotted line is mostly gaps; a wavy one, up and down, is longer than a straight one.
    expect(reds(await text("decoration-[#ff0000] decoration-dotted"))).toBeLessThan(solid * 0.7);
    expect(reds(await text("decoration-[#ff0000] decoration-wavy"))).toBeGreaterThan(solid * 1.2);
  });

  test("the documented examples draw (ink on the card, not a blank)", async () => {
    for (const example of Object.values(EXAMPLES)) {
      const png = await draw(example, example.sample as Record<string, string>, "dark");
      expect(countInk(png, 0, 0, 1200, 630, [...[png.pixels[0]!, png.pixels[1]!, png.pixels[2]!]] as [number, number, number])).toBeGreaterThan(5000);
    }
  });
});
