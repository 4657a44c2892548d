/**
 * Type in the quote and release-notes starters, read at feed size: secondary text is at least
 * 28 px on the 1200×630 card (the card is shown about a third of that wide in a feed), and the
 * sample's headline does not end on a line of one word. Drawn on OG_TEST_ENGINE's engine.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { renderTemplate } from "../../../src/render/engines/in-process.ts";
import { accountTemplateDefinition, parseAccountTemplate } from "../../../src/templates/account/index.ts";
import { testEngine } from "../../support/engines.ts";
import { decodePng, type DecodedPng } from "../../support/png.ts";

const DIR = join(import.meta.dir, "../../../templates/starters");
const load = (id: string) => parseAccountTemplate(JSON.parse(readFileSync(join(DIR, `${id}.json`), "utf8")));

/** The wide card's font sizes: every `text-[Npx]` class without a variant, and every minimum a fitted text may shrink to there. */
function wideFontSizes(html: string): number[] {
  const classes = [...html.matchAll(/class="([^"]*)"/g)].flatMap((m) => m[1]!.split(/\s+/));
  const sizes = classes.filter((c) => /^text-\[\d+px\]$/.test(c)).map((c) => Number(/\d+/.exec(c)![0]));
  const minimums = [...html.matchAll(/data-min-font-size="(\d+)/g)].map((m) => Number(m[1]));
  return [...sizes, ...minimums];
}

/** The lines of light text in rows `top`–`bottom`: each line's left and right ink edge. */
function textLines(png: DecodedPng, top: number, bottom: number, left = 0): { from: number; to: number }[] {
  const lines: { from: number; to: number }[] = [];
  let current: { from: number; to: number } | undefined;
  let blank = 0;
  for (let y = top; y < bottom; y++) {
    let from = Number.POSITIVE_INFINITY;
    let to = -1;
    for (let x = left; x < png.width; x++) {
      const i = (y * png.width + x) * 4;
      if (png.pixels[i]! + png.pixels[i + 1]! + png.pixels[i + 2]! > 600) {
        from = Math.min(from, x);
        to = x;
      }
    }
    if (to < 0) {
      // A gap of a few rows between a line's letters and the next line's: a new line starts.
      if (++blank > 6) current = undefined;
      continue;
    }
    blank = 0;
    if (!current) lines.push((current = { from, to }));
    else {
      current.from = Math.min(current.from, from);
      current.to = Math.max(current.to, to);
    }
  }
  return lines;
}

async function draw(id: string): Promise<DecodedPng> {
  const spec = load(id);
  const { bytes } = await renderTemplate(accountTemplateDefinition(spec), spec.sample, {
    width: 1200,
    height: 630,
    theme: "dark",
    images: {},
    engine: testEngine(),
  });
  return decodePng(bytes);
}

describe("starter type at feed size", () => {
  for (const id of ["quote", "release-notes"]) {
    test(`${id}: no text on the wide card is set below 28 px`, () => {
      const sizes = wideFontSizes(load(id).html);
      expect(sizes.length).toBeGreaterThan(3);
      expect(sizes.filter((size) => size < 28)).toEqual([]);
    });
  }

  test("quote: the sample ends on a line of several words, not one", async () => {
    // The quotation sits between its mark (to y ≈ 130) and the rule above the byline (y ≈ 465).
    const lines = textLines(await draw("quote"), 140, 450, 40);
    expect(lines.length).toBeGreaterThanOrEqual(2);
    const widest = Math.max(...lines.map((l) => l.to - l.from));
    const last = lines[lines.length - 1]!;
    expect((last.to - last.from) / widest).toBeGreaterThan(0.4);
  }, 30_000);

  test("release-notes: the sample's title ends on a line of several words, not one", async () => {
    // The title sits between the product row (to y ≈ 110) and the first highlight (y ≈ 335).
    const lines = textLines(await draw("release-notes"), 140, 320, 40);
    expect(lines).toHaveLength(2);
    const [first, last] = lines as [{ from: number; to: number }, { from: number; to: number }];
    expect((last.to - last.from) / (first.to - first.from)).toBeGreaterThan(0.5);
  }, 30_000);
});
