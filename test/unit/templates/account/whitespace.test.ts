/**
 * Whitespace next to inline elements, as HTML draws it: between inline content (text, values,
 * <b>, <span>…) it is one space; at an element's edges, next to a box, and between the items of a
 * box given `display: flex` it is not drawn. First on the element tree the renderer gets, then
 * by pixels on the engine under test (OG_TEST_ENGINE=takumi for takumi): the words of a line
 * split over inline elements are as far apart as when written as one text.
 */
import { describe, expect, test } from "bun:test";
import { renderTemplate } from "../../../../src/render/engines/in-process.ts";
import { accountTemplateDefinition, parseAccountTemplate } from "../../../../src/templates/account/index.ts";
import { parseTemplateHtml } from "../../../../src/templates/account/html.ts";
import type { SatoriNode } from "../../../../src/templates/types.ts";
import { testEngine } from "../../../support/engines.ts";
import { decodePng, firstDarkColumns, pixelAt, type DecodedPng } from "../../../support/png.ts";

const NBSP = "\u00a0";
const FIELDS = [
  { name: "name", type: "text" },
  { name: "other", type: "text" },
];

function definition(html: string) {
  return accountTemplateDefinition(parseAccountTemplate({ id: "t", fields: FIELDS, html }));
}

/** The children of the card's first element, as the renderer gets them. */
function drawnChildren(html: string, values: Record<string, string> = {}): unknown[] {
  const root = definition(html).render(values, { width: 1200, height: 630, theme: "dark", images: {} });
  const children = root.props.children;
  return children === undefined ? [] : Array.isArray(children) ? children : [children];
}

/** A drawn node as `tag(children…)`, text as is: enough to read a row at a glance. */
function shape(child: unknown): unknown {
  if (typeof child === "string") return child;
  const node = child as SatoriNode;
  const kids = node.props.children;
  const list = kids === undefined ? [] : Array.isArray(kids) ? kids : [kids];
  return { [String(node.type)]: list.map(shape) };
}

const row = (html: string, values: Record<string, string> = {}) => drawnChildren(html, values).map(shape);

describe("whitespace: the tree the renderer gets", () => {
  test("a space between two inline elements is kept: text with inline elements is a paragraph, drawn as a block", () => {
    expect(row("<p><b>Bold</b> <i>italic</i></p>")).toEqual([{ b: ["Bold"] }, " ", { i: ["italic"] }]);
  });

  test("a space between text and an inline element stays with the text, on both sides", () => {
    expect(row("<p>Hello <b>world</b> again</p>")).toEqual([`Hello `, { b: ["world"] }, ` again`]);
    expect(row("<p>Hello <b>world</b>!</p>")).toEqual([`Hello `, { b: ["world"] }, "!"]);
  });

  test("placeholders keep their spaces: in one text, next to inline elements, around sections", () => {
    expect(row("<p>Hi {{name}}!</p>", { name: "Ann" })).toEqual(["Hi Ann!"]);
    expect(row("<p>Hi <b>{{name}}</b> and {{other}}</p>", { name: "Ann", other: "Bo" })).toEqual([`Hi `, { b: ["Ann"] }, ` and Bo`]);
    const section = "<p>Hi {{#name}}<b>{{name}}</b>{{/name}} there</p>";
    expect(row(section, { name: "Ann" })).toEqual([`Hi `, { b: ["Ann"] }, ` there`]);
    // Without the section the two spaces around it collapse to one.
    expect(row(section, {})).toEqual([`Hi `, "there"]);
  });

  test("runs of whitespace collapse to one space, across elements; the first one is kept", () => {
    expect(row("<p>Hello  \n  <b>  world</b></p>")).toEqual([`Hello `, { b: ["world"] }]);
    expect(row("<p>Hello<b> world</b></p>")).toEqual(["Hello", { b: [` world`] }]);
    expect(row("<p><span><b>a</b> </span> <i>b</i></p>")).toEqual([{ span: [{ b: ["a"] }, " "] }, { i: ["b"] }]);
  });

  test("source layout is not text: whitespace at an element's edges and next to boxes is dropped", () => {
    const html = `<div>
  <div>Box</div>
  <b>{{name}}</b>
  <b>{{other}}</b>
  <img src="data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='4' height='4'/%3E" width="4" height="4">
</div>`;
    expect(row(html, { name: "A", other: "B" })).toEqual([{ div: ["Box"] }, { b: ["A"] }, NBSP, { b: ["B"] }, { img: [] }]);
  });

  test("a box given display: flex keeps a browser's flex rule: whitespace between items is not drawn", () => {
    expect(row('<div style="display: flex; gap: 8px"><b>Bold</b> <i>italic</i> text</div>')).toEqual([{ b: ["Bold"] }, { i: ["italic"] }, " text"]);
  });

  test("display: block flows the text itself: the space stays an ordinary one, where lines may break", () => {
    expect(row('<p style="display: block"><b>Bold</b> <i>italic</i> text </p>')).toEqual([{ b: ["Bold"] }, " ", { i: ["italic"] }, " text"]);
    // An inline element there stays inline (not a flex box, which would break the line), so its words flow with the rest.
    const [bold] = drawnChildren('<p style="display: block">Hi <b>{{name}} <i>x</i></b></p>', { name: "Ann" }).slice(1) as SatoriNode[];
    expect(shape(bold)).toEqual({ b: ["Ann ", { i: ["x"] }] });
    expect((bold!.props.style as Record<string, unknown> | undefined)?.display).toBeUndefined();
  });

  test("white-space: pre-wrap (here or inherited) leaves whitespace as it always was", () => {
    expect(row('<p style="white-space: pre-wrap"><b>Bold</b> <i>italic</i></p>')).toEqual([{ b: ["Bold"] }, { i: ["italic"] }]);
    expect(row('<div style="display: flex; white-space: pre-wrap"><p><b>Bold</b> <i>italic</i></p></div>')).toEqual([
      { p: [{ b: ["Bold"] }, { i: ["italic"] }] },
    ]);
  });

  test("&nbsp; is text: kept alone between elements and never collapsed", () => {
    expect(row('<div style="display: flex"><b>a</b>&nbsp;<b>b</b></div>')).toEqual([{ b: ["a"] }, NBSP, { b: ["b"] }]);
    expect(row("<p>a&nbsp;&nbsp;b</p>")).toEqual([`a${NBSP}${NBSP}b`]);
  });

  test("the parsed tree marks which elements flow their text, and keeps their whitespace", () => {
    const { root } = parseTemplateHtml({ html: '<div style="display: flex"> <p> <b>x</b> </p> </div>', fields: [], themes: {}, width: 1200, height: 630 }, []);
    const flex = root[0]!;
    expect(flex).toMatchObject({ kind: "element", tag: "div", children: [{ kind: "element", tag: "p", flow: "row" }] });
    expect(flex.kind === "element" && flex.flow).toBeUndefined();
    const p = flex.kind === "element" ? flex.children[0]! : undefined;
    expect(p?.kind === "element" && p.children.map((c) => c.kind)).toEqual(["text", "element", "text"]);
  });
});

describe("whitespace: pixels", () => {
  const WHITE = 255 * 3 - 120;

  async function draw(body: string, values: Record<string, string> = {}): Promise<DecodedPng> {
    const html = `<div style="display: flex; flex-direction: column; width: 100%; height: 100%; padding: 40px; background-color: white; color: black; font-family: Inter; font-size: 60px">${body}</div>`;
    const { bytes } = await renderTemplate(definition(html), values, {
      width: 1200,
      height: 630,
      theme: "dark",
      images: {},
      format: "png",
      engine: testEngine(),
    });
    return decodePng(bytes);
  }

  /** Which columns hold ink (every card here draws one line). */
  function inkColumns(png: DecodedPng): boolean[] {
    const columns: boolean[] = [];
    for (let x = 0; x < png.width; x++) {
      let ink = false;
      for (let y = 0; y < png.height && !ink; y++) {
        const [r, g, b] = pixelAt(png, x, y);
        ink = r + g + b < WHITE;
      }
      columns.push(ink);
    }
    return columns;
  }

  /** The line's words: runs of ink split by blank gaps wider than a letter gap (a space at 60 px is about 16 px). */
  function words(png: DecodedPng): { count: number; left: number; right: number } {
    const columns = inkColumns(png);
    const left = columns.indexOf(true);
    const right = columns.lastIndexOf(true);
    let count = left < 0 ? 0 : 1;
    let blank = 0;
    for (let x = left; x <= right; x++) {
      if (columns[x]) {
        if (blank >= 10) count++;
        blank = 0;
      } else blank++;
    }
    return { count, left, right };
  }

  test("<b>Bold</b> <i>italic</i> draws two words", async () => {
    expect(words(await draw("<p><b>Bold</b> <i>italic</i></p>")).count).toBe(2);
  });

  test("words split over inline elements and a value sit where the same words written as one text do", async () => {
    const reference = words(await draw("<p>Hello world again!</p>"));
    const split = words(await draw("<p>Hello <span>world</span> {{name}}!</p>", { name: "again" }));
    expect(reference.count).toBe(3);
    expect(split.count).toBe(3);
    expect(Math.abs(split.left - reference.left)).toBeLessThanOrEqual(2);
    // Without the two spaces the line would end about 30 px short.
    expect(Math.abs(split.right - reference.right)).toBeLessThanOrEqual(3);
  });

  test("a value next to text keeps its spaces: Hi {{name}}! and Hi <b>{{name}}</b>!", async () => {
    expect(words(await draw("<p>Hi {{name}}!</p>", { name: "Ann" })).count).toBe(2);
    expect(words(await draw("<p>Hi <span>{{name}}</span> and <span>{{other}}</span></p>", { name: "Ann", other: "Bo" })).count).toBe(4);
  });

  test("source line breaks between inline elements are one space; at the edges, nothing", async () => {
    const formatted = words(await draw("<p>\n  <span>{{name}}</span>\n  <span>{{other}}</span>\n</p>", { name: "Ann", other: "Bo" }));
    const oneLine = words(await draw("<p>Ann Bo</p>"));
    expect(formatted.count).toBe(2);
    expect(Math.abs(formatted.left - oneLine.left)).toBeLessThanOrEqual(2);
    expect(Math.abs(formatted.right - oneLine.right)).toBeLessThanOrEqual(3);
  });

  test("layout whitespace next to boxes and inside a flex box draws nothing, as before", async () => {
    const boxes = await draw('<div><div style="width: 100px; height: 60px; background-color: black"></div>\n  <span>Text</span></div>');
    const tight = await draw('<div><div style="width: 100px; height: 60px; background-color: black"></div><span>Text</span></div>');
    expect(words(boxes)).toEqual(words(tight));
    expect(words(await draw('<div style="display: flex"><span>Hello</span> <span>world</span></div>')).count).toBe(1);
  });

  test("text with an inline element in it wraps as one paragraph, every line from the same left edge", async () => {
    const png = await draw('<p style="width: 560px; margin: 0">Some <b>bold</b> words in a long paragraph that must wrap across lines</p>');
    // The first ink column of each line of text: a paragraph starts every line at the left
    // edge; a row of pieces would start the lines after the first one at the piece's column.
    const lines: number[] = [];
    let left: number | undefined;
    for (const x of [...firstDarkColumns(png, WHITE), png.width]) {
      if (x < png.width) left = Math.min(left ?? x, x);
      else if (left !== undefined) {
        lines.push(left);
        left = undefined;
      }
    }
    expect(lines.length).toBeGreaterThanOrEqual(3);
    expect(Math.max(...lines) - Math.min(...lines)).toBeLessThan(12);
  });
});
