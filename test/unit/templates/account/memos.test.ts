/**
 * The template language's memos stay bounded: an expansion of a class list and the font families
 * a template names are each kept by content and handed back as the same object, until enough
 * newer ones have pushed the least recently used out (then it is worked out again: a new object).
 */
import { expect, test } from "bun:test";
import { templateFamilies } from "../../../../src/templates/account/fonts.ts";
import { parseAccountTemplate } from "../../../../src/templates/account/index.ts";
import { expandClasses } from "../../../../src/templates/account/tailwind.ts";

test("class-list expansions: the same object while kept, a fresh one after 1000 newer", () => {
  const card = { width: 1200, height: 630 };
  const first = expandClasses("flex p-4", card);
  expect(expandClasses("flex p-4", card)).toBe(first);
  for (let width = 1; width <= 999; width++) expandClasses("flex p-4", { width, height: 630 });
  expect(expandClasses("flex p-4", card)).toBe(first); // 1000 kept: still there, and now the most recent
  for (let width = 2000; width <= 2999; width++) expandClasses("flex p-4", { width, height: 630 });
  const again = expandClasses("flex p-4", card);
  expect(again).not.toBe(first);
  expect(again).toEqual(first);
});

test("a template's font families: the same object while kept, a fresh one after 256 newer", () => {
  const spec = (n: number) => parseAccountTemplate({ id: "card", html: `<div style="display:flex;font-family:serif">card ${n}</div>` });
  const first = templateFamilies(spec(0));
  expect(first.bundled.length).toBeGreaterThan(0);
  expect(templateFamilies(spec(0))).toBe(first);
  for (let n = 1; n <= 256; n++) templateFamilies(spec(n));
  const again = templateFamilies(spec(0));
  expect(again).not.toBe(first);
  expect(again).toEqual(first);
});
