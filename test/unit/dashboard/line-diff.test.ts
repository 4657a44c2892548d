/** The studio's line diff (src/modules/dashboard/assets/line-diff.js): what a version changed, in reading order. */
import { expect, test } from "bun:test";
// @ts-expect-error a browser module without types
import { foldUnchanged, lineDiff } from "../../../src/modules/dashboard/assets/line-diff.js";

type Line = { kind: string; text?: string; before?: number; after?: number; count?: number };
const signs = (lines: Line[]) => lines.map((l) => (l.kind === "skip" ? `… ${l.count}` : `${l.kind === "add" ? "+" : l.kind === "del" ? "-" : " "}${l.text}`));

test("a changed line is removed then added; the lines around it are kept, numbered on each side", () => {
  const lines: Line[] = lineDiff("a\nb\nc\nd", "a\nB\nc\nd\ne");
  expect(signs(lines)).toEqual([" a", "-b", "+B", " c", " d", "+e"]);
  expect(lines.find((l) => l.kind === "del")).toMatchObject({ before: 2 });
  expect(lines.find((l) => l.text === "e")).toMatchObject({ kind: "add", after: 5 });
});

test("lines moved apart are matched by their longest common run", () => {
  expect(signs(lineDiff("x\na\nb\nc\ny", "x\nb\nc\na\ny"))).toEqual([" x", "-a", " b", " c", "+a", " y"]);
  expect(signs(lineDiff("same", "same"))).toEqual([" same"]);
  expect(signs(lineDiff("", "new"))).toEqual(["-", "+new"]);
});

test("long unchanged runs fold to three lines of context on each side of a change", () => {
  const before = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join("\n");
  const after = before.replace("line 15", "line fifteen");
  expect(signs(foldUnchanged(lineDiff(before, after)))).toEqual([
    "… 11",
    " line 12",
    " line 13",
    " line 14",
    "-line 15",
    "+line fifteen",
    " line 16",
    " line 17",
    " line 18",
    "… 12",
  ]);
  expect(signs(foldUnchanged(lineDiff(before, before)))).toEqual(["… 30"]);
});

test("thousands of changed lines on both sides are shown as removed, then added, without a quadratic table", () => {
  const before = Array.from({ length: 3000 }, (_, i) => `old ${i}`).join("\n");
  const after = Array.from({ length: 3000 }, (_, i) => `new ${i}`).join("\n");
  const lines: Line[] = lineDiff(before, after);
  expect(lines).toHaveLength(6000);
  expect(lines[0]).toMatchObject({ kind: "del", text: "old 0" });
  expect(lines[3000]).toMatchObject({ kind: "add", text: "new 0" });
});
