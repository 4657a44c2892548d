/**
 * Writing direction in account templates, by pixels: a value whose first strong character is
 * Arabic or Hebrew is laid out as with `dir="auto"` — right-to-left, starting on the right — in
 * a template that never mentions direction; a Latin value is drawn exactly as before; a date
 * keeps the order the built-in templates give it (test/unit/render/rtl-cards.test.ts); and the
 * `dir` attribute and an explicit `text-align` are the designer's word.
 */
import { describe, expect, test } from "bun:test";
import { renderTemplate } from "../../../../src/render/engines/in-process.ts";
import { accountTemplateDefinition, parseAccountTemplate } from "../../../../src/templates/account/index.ts";
import { decodePng, type DecodedPng } from "../../../support/png.ts";
import { countInk } from "../../render/regions.ts";

const WHITE: [number, number, number] = [255, 255, 255];

async function draw(html: string, values: Record<string, string>): Promise<DecodedPng> {
  const template = accountTemplateDefinition(
    parseAccountTemplate({
      id: "t",
      fields: [
        { name: "title", type: "text" },
        { name: "date", type: "text" },
      ],
      html,
    }),
  );
  const { bytes } = await renderTemplate(template, values, { width: 1200, height: 630, theme: "dark", images: {}, format: "png" });
  return decodePng(bytes);
}

/** A plain left-to-right design: a white card, a column of black text with 60 px padding, no alignment or direction said anywhere. */
const card = (inner: string) =>
  `<div style="display: flex; flex-direction: column; width: 100%; height: 100%; padding: 60px; background-color: white; color: black; font-family: Inter">${inner}</div>`;
const TITLE = card('<h1 style="font-size: 64px; margin: 0">{{title}}</h1>');
const FITTED = card(
  '<h1 data-fit-lines="2" data-min-font-size="40" style="font-size: 64px; line-height: 1.2; margin: 0 0 24px 0">{{title}}</h1><div style="display: flex; height: 40px; background-color: black"></div>',
);

/** Ink in the left and the right half of a band of rows. */
function sides(png: DecodedPng, y: number, h: number): { left: number; right: number } {
  return { left: countInk(png, 0, y, 600, h, WHITE), right: countInk(png, 600, y, 600, h, WHITE) };
}

/** The horizontal extent of pixels that differ between two renders in a band of rows. */
function diffBox(a: DecodedPng, b: DecodedPng, y0: number, h: number): { left: number; right: number } {
  let left = Infinity;
  let right = -Infinity;
  for (let y = y0; y < y0 + h; y++) {
    for (let x = 0; x < a.width; x++) {
      const i = (y * a.width + x) * 4;
      if (Math.abs(a.pixels[i]! - b.pixels[i]!) + Math.abs(a.pixels[i + 1]! - b.pixels[i + 1]!) + Math.abs(a.pixels[i + 2]! - b.pixels[i + 2]!) > 60) {
        left = Math.min(left, x);
        right = Math.max(right, x);
      }
    }
  }
  expect(Number.isFinite(left)).toBe(true);
  return { left, right };
}

const SCRIPTS = {
  Arabic: { title: "مرحبا بالعالم", date: (day: number, year: number) => `${day} مايو ${year}` },
  Hebrew: { title: "שלום עולם", date: (day: number, year: number) => `${day} במאי ${year}` },
} as const;

describe("account templates: a value's writing direction", () => {
  for (const [script, text] of Object.entries(SCRIPTS)) {
    test(`${script}: the title starts on the right in a template that says nothing about direction`, async () => {
      const png = await draw(TITLE, { title: text.title });
      const ink = sides(png, 60, 90);
      expect(ink.right).toBeGreaterThan(500);
      expect(ink.left).toBe(0);
    });

    test(`${script}: a date reads day, month, year from the right, as the built-in cards order it`, async () => {
      const html = card('<div style="font-size: 48px">{{date}}</div>');
      const base = await draw(html, { date: text.date(5, 2027) });
      const day = diffBox(base, await draw(html, { date: text.date(8, 2027) }), 60, 70);
      const year = diffBox(base, await draw(html, { date: text.date(5, 2028) }), 60, 70);
      expect(year.left).toBeLessThan(day.left);
      expect(day.right).toBeGreaterThan(year.right);
      expect(day.right).toBeGreaterThan(1000);
    });

    test(`${script}: a fitted title starts on the right and the template's bottom margin still holds`, async () => {
      const arabic = await draw(FITTED, { title: text.title });
      const latin = await draw(FITTED, { title: "Hello world" });
      expect(sides(arabic, 60, 80).left).toBe(0);
      expect(sides(arabic, 60, 80).right).toBeGreaterThan(500);
      // The bar below starts at the same row either way: the room kept under Arabic letters is cancelled, the 24 px margin kept.
      const barTop = (png: DecodedPng) => {
        for (let y = 60; y < 630; y++) if (countInk(png, 700, y, 400, 1, WHITE) === 400) return y;
        return -1;
      };
      expect(barTop(arabic)).toBe(barTop(latin));
      expect(barTop(latin)).toBeGreaterThan(100);
    });
  }

  test("a Latin value is drawn exactly as the template says, with or without the direction treatment", async () => {
    const png = await draw(TITLE, { title: "Hello world" });
    const ink = sides(png, 60, 90);
    expect(ink.left).toBeGreaterThan(500);
    expect(ink.right).toBe(0);
    // Nothing about direction is added to its element tree ...
    const template = accountTemplateDefinition(parseAccountTemplate({ id: "t", fields: [{ name: "title", type: "text" }], html: TITLE }));
    const tree = JSON.stringify(template.render({ title: "Hello world" }, { theme: "dark", images: {}, width: 1200, height: 630 }));
    expect(tree).not.toMatch(/direction|textAlign/);
    // ... and the same card with direction written out as ltr draws identical pixels.
    const explicit = await draw(card('<h1 dir="ltr" style="font-size: 64px; margin: 0">{{title}}</h1>'), { title: "Hello world" });
    expect(Buffer.from(explicit.pixels).equals(Buffer.from(png.pixels))).toBe(true);
  });

  test("a Latin word first makes the whole text left-to-right, Arabic in it or not", async () => {
    const ink = sides(await draw(TITLE, { title: "Ogsmith مرحبا" }), 60, 90);
    expect(ink.left).toBeGreaterThan(500);
  });

  test('an explicit text-align wins; dir="ltr" keeps an Arabic value on the left', async () => {
    const aligned = await draw(card('<h1 style="font-size: 64px; margin: 0; text-align: left">{{title}}</h1>'), { title: SCRIPTS.Arabic.title });
    expect(sides(aligned, 60, 90).right).toBe(0);
    const inherited = await draw(
      card('<div style="display: flex; flex-direction: column; text-align: center"><h1 style="font-size: 64px; margin: 0">{{title}}</h1></div>'),
      { title: SCRIPTS.Arabic.title },
    );
    const centred = sides(inherited, 60, 90);
    expect(Math.abs(centred.left - centred.right)).toBeLessThan(0.5 * Math.max(centred.left, centred.right));
    const ltr = await draw(card('<h1 dir="ltr" style="font-size: 64px; margin: 0">{{title}}</h1>'), { title: SCRIPTS.Arabic.title });
    expect(sides(ltr, 60, 90).right).toBe(0);
  });

  test('dir="rtl" puts literal text on the right; inside it a Latin value starts on the left again, as dir="auto" gives it', async () => {
    const png = await draw(
      card(
        '<div dir="rtl" style="display: flex; flex-direction: column"><div style="font-size: 64px">مرحبا</div><div style="font-size: 64px">{{title}}</div></div>',
      ),
      { title: "Hello" },
    );
    // Arabic lines are taller than Latin ones: the second line's ink starts below y = 190.
    expect(sides(png, 60, 110)).toMatchObject({ left: 0 });
    expect(sides(png, 60, 110).right).toBeGreaterThan(300);
    expect(sides(png, 190, 90).right).toBe(0);
    expect(sides(png, 190, 90).left).toBeGreaterThan(300);
  });

  test("dir takes ltr, rtl or auto", () => {
    expect(() => parseAccountTemplate({ id: "t", html: '<div dir="sideways">x</div>' })).toThrow(/dir.*ltr, rtl or auto/);
    expect(() => parseAccountTemplate({ id: "t", html: '<div dir="AUTO">x</div>' })).not.toThrow();
  });
});
