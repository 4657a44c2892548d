import { describe, expect, test } from "bun:test";
import { estimateLines, fitFontSize } from "../../../src/templates/kit.ts";

describe("text fitting", () => {
  test("more text never gets a larger font", () => {
    const opts = { maxWidth: 1056, maxLines: 3, maxSize: 88, minSize: 40 };
    let previous = Infinity;
    for (const n of [5, 20, 40, 80, 120, 160, 200]) {
      const size = fitFontSize("word ".repeat(n / 5).trim(), opts);
      expect(size).toBeLessThanOrEqual(previous);
      previous = size;
    }
    expect(fitFontSize("Hi", opts)).toBe(88);
    expect(fitFontSize("w".repeat(400), opts)).toBe(40);
  });

  test("respects a height budget as well as a line count", () => {
    const text = "A title that takes a couple of lines at large sizes";
    const free = fitFontSize(text, { maxWidth: 600, maxLines: 4, maxSize: 88, minSize: 20 });
    const tight = fitFontSize(text, { maxWidth: 600, maxLines: 4, maxSize: 88, minSize: 20, maxHeight: 100, lineHeight: 1.1 });
    expect(tight).toBeLessThan(free);
    expect(estimateLines(text, tight, 600) * tight * 1.1).toBeLessThanOrEqual(100);
  });

  test("a word longer than the line wraps inside itself", () => {
    expect(estimateLines("x".repeat(300), 40, 500)).toBeGreaterThan(5);
  });
});
