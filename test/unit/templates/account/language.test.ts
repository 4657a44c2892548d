/**
 * The account template language without drawing: what is accepted, what is refused (each a
 * VALIDATION_ERROR naming html with line and column), and what a render puts where.
 */
import { describe, expect, test } from "bun:test";
import type { ApiError } from "../../../../src/errors.ts";
import { parseRenderRequest } from "../../../../src/render/request.ts";
import { accountTemplateDefinition, parseAccountTemplate } from "../../../../src/templates/account/index.ts";
import type { SatoriNode } from "../../../../src/templates/types.ts";
import { solidPngDataUri } from "../../../support/png.ts";
import { EXAMPLES } from "./examples.ts";
import { refusals } from "./refusals.ts";

const TEXT = (name: string, extra: Record<string, unknown> = {}) => ({ name, type: "text", ...extra });

const refusal = refusals;

/** The one html problem of a template, with its position. */
function htmlProblem(html: string, fields: unknown[] = [], themes?: unknown) {
  const details = refusal({ id: "t", html, fields, ...(themes ? { themes } : {}) });
  expect(details.length).toBeGreaterThanOrEqual(1);
  const first = details[0]!;
  expect(first.field).toBe("html");
  return first;
}

function render(
  definition: Record<string, unknown>,
  values: Record<string, string | undefined>,
  theme: "dark" | "light" = "dark",
  images: Record<string, string> = {},
): SatoriNode {
  return accountTemplateDefinition(parseAccountTemplate(definition)).render(values, { width: 1200, height: 630, theme, images });
}

/** All text in a tree, in order. */
function textOf(node: unknown): string {
  if (typeof node === "string") return node;
  if (Array.isArray(node)) return node.map(textOf).join("|");
  if (node && typeof node === "object" && "props" in node) return textOf((node as SatoriNode).props.children ?? "");
  return "";
}

function find(node: unknown, type: string): SatoriNode[] {
  const out: SatoriNode[] = [];
  const walk = (n: unknown) => {
    if (Array.isArray(n)) n.forEach(walk);
    else if (n && typeof n === "object" && "props" in n) {
      if ((n as SatoriNode).type === type) out.push(n as SatoriNode);
      walk((n as SatoriNode).props.children);
    }
  };
  walk(node);
  return out;
}

describe("accepted as written", () => {
  for (const [name, example] of Object.entries(EXAMPLES)) {
    test(`${name}`, () => {
      const spec = parseAccountTemplate(example);
      expect(spec.id).toBe(example.id);
      const tree = accountTemplateDefinition(spec).render(spec.sample, { width: 1200, height: 630, theme: "light", images: {} });
      expect(tree.type).toBe("div");
    });
  }

  test("the spec is plain JSON with defaults filled in", () => {
    const spec = parseAccountTemplate({ id: "promo", html: "<div>{{title}}</div>", fields: [TEXT("title")] });
    expect(JSON.parse(JSON.stringify(spec))).toEqual(spec);
    expect(spec).toMatchObject({
      width: 1200,
      height: 630,
      name: "promo",
      description: "",
      themes: {},
      sample: {},
      fields: [{ name: "title", type: "text", required: false }],
    });
    expect(accountTemplateDefinition(spec).canvas).toEqual({ width: 1200, height: 630 });
  });
});

describe("refused with the position of the problem", () => {
  const cases: Array<[string, string, RegExp, number, number]> = [
    ["script", "<div>\n  <script>alert(1)</script>\n</div>", /<script>/, 2, 3],
    ["style element", "<div><style>div{}</style></div>", /<style>/, 1, 6],
    ["iframe", '<div>\n<iframe src="x"></iframe></div>', /<iframe>/, 2, 1],
    ["link", '<link rel="stylesheet" href="x"><div></div>', /<link>/, 1, 1],
    ["on* attribute", '<div>\n  <span class="flex" onclick="x()"></span></div>', /onclick/, 2, 22],
    ["javascript:", '<div><span style="color: red" class="" lang="javascript:alert(1)">x</span></div>', /javascript:/, 1, 40],
    ["literal http(s) in src", '<div><img src="https://example.com/a.png"></div>', /http\(s\)/, 1, 16],
    ["literal http(s) in url()", '<div style="background-image: url(https://example.com/a.png)"></div>', /url\(\)/, 1, 13],
    ["literal http(s) in an svg href", '<svg width="10" height="10"><image href="http://example.com/a.png"/></svg>', /http/, 1, 42],
    ["undeclared placeholder", "<div>\n  <h1>{{subtitle}}</h1>\n</div>", /\{\{subtitle\}\} names no declared field/, 2, 7],
    ["unknown theme variable", '<div style="color: var(--ink)"></div>', /--ink/, 1, 13],
    ["unbalanced section", "<div>{{#title}}<span>x</span></div>", /not closed/, 1, 6],
    ["section closed in another element", "<div>{{#title}}<p>x{{/title}}</p></div>", /not open/, 1, 20],
    ["@font-face", '<div style="font-family: x; src: url(data:font/woff2;base64,AA)"></div>', /src/, 1, 29],
    ["placeholder inside style that is not a colour", '<div style="width: {{title}}"></div>', /color field/, 1, 13],
    ["a colour placeholder inside a larger value", '<div style="border: 1px solid {{accent}}"></div>', /whole value/, 1, 13],
    ["unknown CSS property", '<div style="display: flex; cursor: pointer"></div>', /cursor/, 1, 28],
    ["blur beyond its bound", '<div style="filter: blur(500px)"></div>', /blur radius/, 1, 13],
    ["too many shadows", `<div style="box-shadow: ${Array(5).fill("0 0 1px red").join(", ")}"></div>`, /at most 4/, 1, 13],
    ["shadow blur beyond its bound", '<div style="box-shadow: 0 0 400px red"></div>', /blur/, 1, 13],
    ["too many gradient stops", `<div style="background-image: linear-gradient(${Array(20).fill("red").join(", ")})"></div>`, /colour stops/, 1, 13],
    ["font size beyond its bound", '<div style="font-size: 2000px"></div>', /400px/, 1, 13],
    ["transform beyond its bound", '<div style="transform: scale(50)"></div>', /scale/, 1, 13],
    ["unsupported Tailwind class", '<div class="flex grid-cols-3"></div>', /grid-cols-3/, 1, 18],
    ["Tailwind hover variant", '<div class="hover:bg-red-500"></div>', /hover/, 1, 13],
    // Checked for square and tall cards too, though the design canvas (1200×630) is landscape.
    ["a portrait: class beyond a bound", '<div class="text-[40px] portrait:text-[2000px]"></div>', /400px/, 1, 13],
    [
      "portrait fit lines beyond their bound",
      '<h1 style="font-size: 40px" data-fit-lines="2 portrait:30">{{title}}</h1>',
      /data-fit-lines takes a whole number from 1 to 10/,
      1,
      29,
    ],
    ["fit lines for portrait cards only", '<h1 style="font-size: 40px" data-fit-lines="portrait:3">{{title}}</h1>', /data-fit-lines takes/, 1, 29],
    [
      "a portrait minimum above the portrait size",
      '<h1 class="text-[40px] portrait:text-[60px]" data-fit-lines="2" data-min-font-size="20 portrait:70">{{title}}</h1>',
      /font-size \(60 on portrait cards\)/,
      1,
      46,
    ],
    ["foreignObject in inline SVG", '<svg width="9" height="9"><foreignObject></foreignObject></svg>', /foreignObject/, 1, 27],
    ["external use in inline SVG", '<svg width="9" height="9"><use href="other.svg#a"/></svg>', /#fragments/, 1, 32],
    [
      "nested data: SVG with an external image",
      `<img src="data:image/svg+xml,${encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg"><image href="/etc/passwd"/></svg>')}">`,
      /nested SVG/,
      1,
      11,
    ],
  ];
  for (const [name, html, message, line, column] of cases) {
    test(name, () => {
      const problem = htmlProblem(html, [TEXT("title"), { name: "accent", type: "color" }]);
      expect(problem.message).toMatch(message);
      expect({ line: problem.line, column: problem.column }).toEqual({ line, column });
    });
  }

  test("-webkit- properties are named with one dash after the prefix", () => {
    expect(htmlProblem('<div style="-webkit-box-orient: vertical"></div>').message).toBe('CSS property "-webkit-box-orient" is not supported');
    expect(htmlProblem('<div style="-webkit-line-clamp: 50"></div>').message).toMatch(/^-webkit-line-clamp: takes a whole number from 1 to 20$/);
    const placeholder = htmlProblem('<div style="width: {{accent}}"></div>', [{ name: "accent", type: "color" }]).message;
    expect(placeholder).toContain("-webkit-text-stroke-color");
    expect(placeholder).not.toContain("--");
  });

  test("more than 64 shadows and filters in one template", () => {
    const html = `<div>${'<span style="box-shadow: 0 0 4px red">x</span>'.repeat(64)}<b class="shadow-lg">y</b></div>`;
    const problem = htmlProblem(html);
    expect(problem.message).toMatch(/more than 64 shadows and filters/);
    expect(problem.column).toBe(6 + 64 * '<span style="box-shadow: 0 0 4px red">x</span>'.length + 10);
    expect(() => parseAccountTemplate({ id: "t", html: `<div>${'<span style="box-shadow: 0 0 4px red">x</span>'.repeat(64)}</div>` })).not.toThrow();
  });

  test("more than 2,000 elements", () => {
    expect(htmlProblem(`<div>${"<span></span>".repeat(2001)}</div>`).message).toMatch(/at most 2000/);
  });

  test("nesting deeper than 48 levels", () => {
    const problem = htmlProblem(`${"<div>".repeat(49)}${"</div>".repeat(49)}`);
    expect(problem.message).toMatch(/49 levels deep; at most 48/);
    expect(problem.column).toBe(48 * 5 + 1);
  });

  test("HTML over 256 KiB", () => {
    expect(htmlProblem(`<div>${"x".repeat(256 * 1024)}</div>`).message).toMatch(/at most 256 KiB/);
  });

  test("every problem is listed, each with its own position", () => {
    const details = refusal({ id: "t", html: "<div>\n<script></script>\n<b onclick='x'>{{nope}}</b>\n</div>" });
    expect(details.map((d) => [d.line, d.column])).toEqual([
      [2, 1],
      [3, 4],
      [3, 16],
    ]);
  });

  test("definition problems beside html problems", () => {
    const details = refusal({
      id: "Bad Id",
      html: "<div></div>",
      fields: [
        { name: "theme", type: "text" },
        { name: "x", type: "number" },
      ],
      width: 10,
    });
    expect(details.map((d) => d.field).sort()).toEqual(["fields.0.name", "fields.1.type", "id", "width"]);
  });

  test("a sample colour must be a colour", () => {
    const details = refusal({ id: "t", html: "<div></div>", fields: [{ name: "brand", type: "color" }], sample: { brand: "red; x: y" } });
    expect(details).toEqual([{ field: "sample.brand", message: expect.stringContaining("CSS colour") }]);
  });

  test("names and descriptions lose control and bidi-override characters", () => {
    const spec = parseAccountTemplate({ id: "t", name: "Pro\u202Emo\u0007", description: "a\u2066b", html: "<div></div>" });
    expect(spec.name).toBe("Promo");
    expect(spec.description).toBe("ab");
  });
});

describe("Tailwind classes drawn as Tailwind means them", () => {
  const style = (classes: string, inline = "") =>
    render({ id: "t", html: `<div class="${classes}"${inline ? ` style="${inline}"` : ""}>x</div>` }, {}).props.style;

  test("gap-*, gap-x-*, gap-y-* and gap-[…] set the gaps on Tailwind's spacing scale", () => {
    expect(style("flex gap-4")).toMatchObject({ rowGap: "16px", columnGap: "16px" });
    expect(style("flex gap-px gap-x-2.5")).toMatchObject({ rowGap: "1px", columnGap: "10px" });
    expect(style("flex gap-y-2")).toMatchObject({ rowGap: "8px" });
    expect(style("flex gap-[12px]")).toMatchObject({ rowGap: "12px", columnGap: "12px" });
    // Tailwind's order, not the attribute's: gap-x after gap.
    expect(style("flex gap-x-2 gap-4")).toMatchObject({ rowGap: "16px", columnGap: "8px" });
  });

  test("leading-* is a line height relative to the element's own size, or a length; it wins over a text-* size's", () => {
    expect(style("leading-tight")).toMatchObject({ lineHeight: "1.25" });
    expect(style("leading-none")).toMatchObject({ lineHeight: "1" });
    expect(style("leading-6")).toMatchObject({ lineHeight: "24px" });
    expect(style("leading-[1.1]")).toMatchObject({ lineHeight: "1.1" });
    expect(style("leading-tight text-xl")).toMatchObject({ fontSize: "20px", lineHeight: "1.25" });
    expect(style("text-xl")).toMatchObject({ lineHeight: "28px" });
  });

  test("tracking-* is letter spacing in em of the element's size, beside a text-* size or not", () => {
    expect(style("tracking-tight")).toMatchObject({ letterSpacing: "-0.025em" });
    expect(style("text-xl tracking-tight")).toMatchObject({ fontSize: "20px", letterSpacing: "-0.025em" });
    expect(style("tracking-widest")).toMatchObject({ letterSpacing: "0.1em" });
    expect(style("tracking-[0.02em]")).toMatchObject({ letterSpacing: "0.02em" });
  });

  test("variants apply these classes as they do the others", () => {
    expect(style("leading-tight lg:leading-loose")).toMatchObject({ lineHeight: "2" });
    expect(style("lg:leading-loose leading-tight")).toMatchObject({ lineHeight: "2" });
    // xl: is 1280px and up; the design canvas is 1200px wide.
    expect(style("leading-tight xl:leading-loose")).toMatchObject({ lineHeight: "1.25" });
    expect(style("gap-2 portrait:gap-8")).toMatchObject({ rowGap: "8px" });
  });

  test("the 950 shades (Tailwind 3.3 on) are accepted in every colour utility, as Tailwind's sRGB values", () => {
    expect(style("bg-slate-950")).toMatchObject({ backgroundColor: "#020617" });
    expect(style("text-zinc-950 border-indigo-950")).toMatchObject({ color: "#09090b", borderColor: "#1e1b4b" });
    expect(style("border-t-green-950")).toMatchObject({ borderTopColor: "#052e16" });
    expect(style("bg-sky-950/50")).toMatchObject({ backgroundColor: "rgba(8, 47, 73, 0.5)" });
    expect(style("lg:bg-rose-950")).toMatchObject({ backgroundColor: "#4c0519" });
    expect(htmlProblem('<div class="bg-mauve-950">x</div>').message).toMatch(/Tailwind class "bg-mauve-950" is not supported/);
  });

  test("size-* sets the width and the height (Tailwind 3.4 on)", () => {
    expect(style("size-10")).toMatchObject({ width: "40px", height: "40px" });
    expect(style("size-[72px]")).toMatchObject({ width: "72px", height: "72px" });
    expect(style("size-full")).toMatchObject({ width: "100%", height: "100%" });
  });

  test("keyword utilities the engine lacks, whose properties the engines draw: truncate, line-clamp-*, whitespace-*, break-*, object-*", () => {
    expect(style("truncate")).toMatchObject({ overflow: "hidden", textOverflow: "ellipsis", whiteSpace: "nowrap" });
    expect(style("line-clamp-3")).toMatchObject({ overflow: "hidden", lineClamp: "3" });
    expect(style("whitespace-pre-line break-all text-ellipsis")).toMatchObject({ whiteSpace: "pre-line", wordBreak: "break-all", textOverflow: "ellipsis" });
    expect(style("object-cover object-left-top text-end")).toMatchObject({ objectFit: "cover", objectPosition: "left top", textAlign: "end" });
    expect(htmlProblem('<div class="line-clamp-50">x</div>').message).toMatch(/line-clamp|lineClamp|1 to 20|at most 20/i);
  });

  test("Tailwind's preflight: paragraphs and headings lose the browser's margins, headings take the size and weight around them", () => {
    const childStyle = (tree: SatoriNode) => (tree.props.children as SatoriNode).props.style;
    const of = (html: string) => childStyle(render({ id: "t", html: `<div class="flex">${html}</div>` }, {}));
    expect(of('<h1 class="text-6xl">x</h1>')).toMatchObject({ marginTop: "0", marginBottom: "0", fontSize: "60px", fontWeight: "inherit" });
    expect(of('<h2 class="font-bold">x</h2>')).toMatchObject({ marginTop: "0", marginBottom: "0", fontSize: "1em", fontWeight: "bold" });
    expect(of('<p class="mt-4">x</p>')).toMatchObject({ marginTop: "16px", marginBottom: "0" });
    expect(of('<p class="text-xl">x</p>')).not.toHaveProperty("fontWeight");
    // The element's own margin wins; a template without classes keeps the browser's.
    expect(of('<p class="text-xl" style="margin: 8px">x</p>')).not.toHaveProperty("marginTop");
    expect(childStyle(render({ id: "t", html: '<div style="display: flex"><h1>x</h1></div>' }, {}))).not.toHaveProperty("marginTop");
  });

  test("values out of bounds and unknown names are still refused by name", () => {
    expect(htmlProblem('<div class="gap-[20000px]">x</div>').message).toMatch(/20000px/);
    expect(htmlProblem('<div class="leading-[50]">x</div>').message).toMatch(/line height is 0 to 10/);
    expect(htmlProblem('<div class="tracking-[500px]">x</div>').message).toMatch(/letter-spacing/);
    expect(htmlProblem('<div class="flex leading-huge">x</div>').message).toMatch(/Tailwind class "leading-huge" is not supported/);
    expect(htmlProblem('<div class="flex gap-wide">x</div>').message).toMatch(/Tailwind class "gap-wide" is not supported/);
  });

  test("borders: widths on the sides named only, over Tailwind's reset (no width, solid)", () => {
    const sides = (classes: string) => {
      const s = style(classes) as Record<string, string>;
      return { s, widths: ["Top", "Right", "Bottom", "Left"].map((side) => s[`border${side}Width`] ?? s.borderWidth) };
    };
    expect(sides("border-t border-slate-300")).toMatchObject({ s: { borderStyle: "solid", borderColor: "#cbd5e1" }, widths: ["1px", "0", "0", "0"] });
    expect(sides("border-t border-solid").widths).toEqual(["1px", "0", "0", "0"]);
    expect(sides("border-4 border-red-500")).toMatchObject({ s: { borderStyle: "solid", borderColor: "#ef4444" }, widths: ["4px", "4px", "4px", "4px"] });
    expect(sides("border-b-2").widths).toEqual(["0", "0", "2px", "0"]);
    expect(sides("border-x").widths).toEqual(["0", "1px", "0", "1px"]);
    expect(sides("border-y-[3px]").widths).toEqual(["3px", "0", "3px", "0"]);
    expect(sides("border-l-4 border-dashed").s).toMatchObject({ borderStyle: "dashed", borderLeftWidth: "4px" });
    // Tailwind's order: border-2, then border-x-4, then border-l-8, whatever the attribute's.
    expect(sides("border-l-8 border-x-4 border-2").widths).toEqual(["2px", "4px", "2px", "8px"]);
    // No colour class: the border takes the text's colour, as in Tailwind 4.
    expect(sides("border-t").s).not.toHaveProperty("borderColor");
    // The element's own style wins over the reset and the classes.
    expect(style("p-2", "border-bottom: 2px solid red")).toMatchObject({ borderWidth: "0", borderStyle: "solid", borderBottom: "2px solid red" });
    // A template without classes keeps CSS's own initial border (style none): nothing added.
    expect(render({ id: "t", html: '<div style="border-top: 2px solid red">x</div>' }, {}).props.style).not.toHaveProperty("borderWidth");
    expect(style("p-2")).not.toHaveProperty("borderWidth");
  });
});

describe("Tailwind 4 utilities whose properties the engines draw", () => {
  const style = (classes: string) => render({ id: "t", html: `<div class="${classes}">x</div>` }, {}).props.style as Record<string, string>;

  test("gradients: a direction with from-, via- and to- colours is one linear-gradient, in Tailwind's palette", () => {
    expect(style("bg-gradient-to-r from-red-500 to-blue-500").backgroundImage).toBe("linear-gradient(to right, #ef4444 0%, #3b82f6 100%)");
    expect(style("to-blue-500 bg-linear-to-br from-red-500/50 via-slate-950").backgroundImage).toBe(
      "linear-gradient(to bottom right, rgba(239, 68, 68, 0.5) 0%, #020617 50%, #3b82f6 100%)",
    );
    for (const [side, words] of [
      ["t", "to top"],
      ["tr", "to top right"],
      ["bl", "to bottom left"],
      ["l", "to left"],
    ]) {
      expect(style(`bg-gradient-to-${side} from-white to-black`).backgroundImage).toBe(`linear-gradient(${words}, #fff 0%, #000 100%)`);
    }
    expect(style("bg-linear-45 from-[#102030] to-black").backgroundImage).toBe("linear-gradient(45deg, #102030 0%, #000 100%)");
    // A missing end fades to the other end's colour made transparent.
    expect(style("bg-gradient-to-b from-red-500").backgroundImage).toBe("linear-gradient(to bottom, #ef4444 0%, rgba(239, 68, 68, 0) 100%)");
    // Colour stops with no direction draw nothing, as in Tailwind.
    expect(style("from-red-500 to-blue-500")).not.toHaveProperty("backgroundImage");
    expect(style("portrait:bg-gradient-to-r from-red-500")).not.toHaveProperty("backgroundImage");
    expect(htmlProblem('<div class="bg-gradient-to-r from-mauve-500">x</div>')).toMatchObject({
      message: expect.stringContaining('"from-mauve-500" is not supported'),
      line: 1,
      column: 30,
    });
  });

  test("transforms: translate, rotate, scale, then skew, as Tailwind 4 composes them; origin-*", () => {
    expect(style("skew-x-3 scale-50 rotate-45 -translate-x-1/2 translate-y-4").transform).toBe(
      "translateX(-50%) translateY(16px) rotate(45deg) scaleX(0.5) scaleY(0.5) skewX(3deg)",
    );
    expect(style("-rotate-12").transform).toBe("rotate(-12deg)");
    expect(style("rotate-[17deg]").transform).toBe("rotate(17deg)");
    // An axis wins over both axes, whatever the attribute's order.
    expect(style("scale-x-150 scale-50").transform).toBe("scaleX(1.5) scaleY(0.5)");
    expect(style("-scale-x-100").transform).toBe("scaleX(-1)");
    expect(style("translate-x-px translate-y-full").transform).toBe("translateX(1px) translateY(100%)");
    expect(style("skew-6").transform).toBe("skewX(6deg) skewY(6deg)");
    expect(style("origin-top-left")).toMatchObject({ transformOrigin: "left top" });
    expect(style("origin-center")).toMatchObject({ transformOrigin: "center" });
    expect(style("rotate-45 lg:rotate-90").transform).toBe("rotate(90deg)");
    // The language's transform bounds hold for classes too.
    expect(htmlProblem('<div class="scale-[20]">x</div>').message).toMatch(/scale is bounded to 10/);
    expect(htmlProblem('<div class="skew-x-[90deg]">x</div>').message).toMatch(/skew is bounded/);
    expect(htmlProblem('<div class="translate-x-[20000px]">x</div>').message).toMatch(/translate is bounded/);
  });

  test("filters: one filter in Tailwind's order, on Tailwind 4's scales, within the filter bounds", () => {
    expect(style("w-[100px] h-[100px] sepia grayscale brightness-50").filter).toBe("brightness(50%) grayscale(100%) sepia(100%)");
    expect(style("w-[100px] h-[100px] grayscale blur-sm").filter).toBe("blur(8px) grayscale(100%)");
    expect(style("w-[100px] h-[100px] drop-shadow-lg sepia").filter).toBe("sepia(100%) drop-shadow(0 4px 4px rgb(0 0 0 / 0.15))");
    expect(style("w-[100px] h-[100px] blur").filter).toBe("blur(8px)");
    expect(style("w-[100px] h-[100px] blur-xs").filter).toBe("blur(4px)");
    expect(style("w-[100px] h-[100px] blur-[2px]").filter).toBe("blur(2px)");
    expect(style("w-[100px] h-[100px] -hue-rotate-90 invert-0 sepia").filter).toBe("hue-rotate(-90deg) invert(0%) sepia(100%)");
    expect(style("w-[100px] h-[100px] contrast-125 saturate-150").filter).toBe("contrast(125%) saturate(150%)");
    expect(htmlProblem('<div class="w-[100px] h-[100px] blur-[100px]">x</div>').message).toMatch(/blur radius must be 0 to 64px/);
    expect(htmlProblem('<div class="w-[100px] h-[100px] blur brightness-50 contrast-125 grayscale invert">x</div>').message).toMatch(/at most 4/);
  });

  test("ring-* is a spread box-shadow under the element's shadow (1 px and the text's colour unless told)", () => {
    expect(style("ring").boxShadow).toBe("0 0 0 1px currentColor");
    expect(style("ring-2 ring-red-500").boxShadow).toBe("0 0 0 2px #ef4444");
    expect(style("ring-[3px] ring-inset ring-black/50").boxShadow).toBe("inset 0 0 0 3px rgba(0, 0, 0, 0.5)");
    expect(style("shadow-sm ring-4 ring-blue-500").boxShadow).toBe("0 0 0 4px #3b82f6, 0 1px 2px 0 rgb(0 0 0 / 0.05)");
    expect(style("ring-red-500")).not.toHaveProperty("boxShadow");
  });

  test("Tailwind 4's names: shadow-xs, rounded-xs, rounded-4xl; basis-*; decoration colours", () => {
    expect(style("shadow-xs")).toMatchObject({ boxShadow: "0 1px 2px 0 rgb(0 0 0 / 0.05)" });
    expect(style("rounded-xs")).toMatchObject({ borderRadius: "2px" });
    expect(style("rounded-4xl")).toMatchObject({ borderRadius: "32px" });
    expect(style("rounded-t-4xl")).toMatchObject({ borderTopLeftRadius: "32px", borderTopRightRadius: "32px" });
    expect(style("basis-1/2")).toMatchObject({ flexBasis: "50%" });
    expect(style("basis-64")).toMatchObject({ flexBasis: "256px" });
    expect(style("basis-full")).toMatchObject({ flexBasis: "100%" });
    expect(style("basis-[30%]")).toMatchObject({ flexBasis: "30%" });
    expect(style("underline decoration-red-500")).toMatchObject({ textDecorationLine: "underline", textDecorationColor: "#ef4444" });
    expect(style("underline decoration-sky-950/50")).toMatchObject({ textDecorationColor: "rgba(8, 47, 73, 0.5)" });
    expect(style("underline decoration-wavy")).toMatchObject({ textDecorationStyle: "wavy" });
  });

  test("what the engines cannot draw is a 400 at the class that says what to write instead", () => {
    const at = (classes: string) => htmlProblem(`<div class="flex ${classes}">x</div>`);
    expect(at("space-x-4")).toMatchObject({ message: expect.stringMatching(/"space-x-4".*gap-x-\*/), line: 1, column: 18 });
    expect(at("space-y-2").message).toMatch(/gap-y-\*/);
    expect(at("divide-y").message).toMatch(/border-t/);
    expect(at("ring-2 ring-offset-2")).toMatchObject({ message: expect.stringMatching(/ring-offset-2.*box-shadow/), column: 25 });
    expect(at("underline decoration-2").message).toMatch(/thickness/);
    expect(at("grid-cols-3").message).toMatch(/flex/);
    expect(at("aspect-video").message).toMatch(/width and height/);
    expect(at("mix-blend-multiply").message).toMatch(/inline style .* or leave it out/);
  });
});

describe("line breaks", () => {
  test("<br> in text makes the element a paragraph, laid out as a block so the break breaks", () => {
    const tree = render({ id: "t", html: "<p>one<br>two</p>" }, {});
    expect(tree.props.style).toMatchObject({ display: "block" });
    expect(find(tree, "br")).toHaveLength(1);
    expect(textOf(tree)).toBe("one||two");
    // A flex box keeps each child an item, as in a browser.
    expect(render({ id: "t", html: '<div style="display: flex">one<br>two</div>' }, {}).props.style).toMatchObject({ display: "flex" });
  });
});

describe("substitution", () => {
  const definition = {
    id: "t",
    html: '<div style="display: flex"><h1>Hello {{name}}!</h1><img src="{{logo}}" alt="logo"></div>',
    fields: [TEXT("name"), { name: "logo", type: "image_url" }],
  };

  test("a value is text, even when it looks like HTML", () => {
    const tree = render(definition, { name: "<b onclick=x>you</b>" });
    expect(textOf(tree)).toBe("Hello <b onclick=x>you</b>!");
    expect(find(tree, "b")).toHaveLength(0);
  });

  test("an image field draws the data: URI the fetcher made, never the raw value", () => {
    const uri = "data:image/png;base64,iVBORw0KGgo=";
    const tree = render(definition, { name: "x", logo: "http://10.0.0.1/a.png" }, "dark", { logo: uri });
    expect(find(tree, "img")[0]!.props.src).toBe(uri);
    // Without a fetched image the element is left out, not drawn with the URL.
    expect(find(render(definition, { name: "x", logo: "http://10.0.0.1/a.png" }), "img")).toHaveLength(0);
  });

  test("a colour field stands for a whole style value", () => {
    const tree = render(
      { id: "t", html: '<div style="background-color: {{brand}}; color: white">x</div>', fields: [{ name: "brand", type: "color" }] },
      { brand: "#ff0000" },
    );
    expect(tree.props.style).toMatchObject({ backgroundColor: "#ff0000", color: "white" });
  });

  test("a request's colour field takes CSS colours only", () => {
    const template = accountTemplateDefinition(parseAccountTemplate({ id: "t", html: "<div></div>", fields: [{ name: "brand", type: "color" }] }));
    const lookup = { get: () => template, list: () => [template] };
    for (const good of [
      "#abc",
      "#a1b2c3",
      "#a1b2c3d4",
      "rgb(1, 2, 3)",
      "rgba(1,2,3,0.5)",
      "rgb(1 2 3 / 50%)",
      "hsl(120, 50%, 50%)",
      "hsl(120deg 50% 50% / 0.3)",
      "rebeccapurple",
      "Red",
    ]) {
      expect(parseRenderRequest({ template: "t", brand: good }, lookup).fields.brand).toBe(good);
    }
    for (const bad of ["red; background: url(x)", "#ab", "url(data:x)", "var(--x)", "rgb(1,2)", "expression(1)", "blue}", "notacolour"]) {
      let caught: unknown;
      try {
        parseRenderRequest({ template: "t", brand: bad }, lookup);
      } catch (error) {
        caught = error;
      }
      expect((caught as ApiError).details?.[0]).toMatchObject({ field: "brand", message: expect.stringContaining("CSS colour") });
    }
  });
});

describe("sections", () => {
  const definition = {
    id: "t",
    html: '<div style="display: flex">{{#tag}}<span>has {{tag}}</span>{{/tag}}{{^tag}}<span>no tag</span>{{/tag}}</div>',
    fields: [TEXT("tag")],
  };
  test("{{#f}} keeps its content only when the field has a value, {{^f}} only when it has none", () => {
    expect(textOf(render(definition, { tag: "news" }))).toBe("has news");
    expect(textOf(render(definition, {}))).toBe("no tag");
    expect(textOf(render(definition, { tag: "  " }))).toBe("no tag");
  });
  test("sections nest", () => {
    const nested = { id: "t", html: "<div>{{#a}}<p>{{#b}}<span>{{a}}{{b}}</span>{{/b}}</p>{{/a}}</div>", fields: [TEXT("a"), TEXT("b")] };
    expect(textOf(render(nested, { a: "1", b: "2" }))).toBe("12");
    expect(find(render(nested, { a: "1" }), "span")).toHaveLength(0);
  });
});

describe("theme variables", () => {
  test("each theme's set; one set given serves both", () => {
    const both = { id: "t", html: '<div style="background-color: var(--bg)"></div>', themes: { dark: { bg: "#000000" }, light: { bg: "#ffffff" } } };
    expect(render(both, {}, "dark").props.style).toMatchObject({ backgroundColor: "#000000" });
    expect(render(both, {}, "light").props.style).toMatchObject({ backgroundColor: "#ffffff" });
    const one = { ...both, themes: { dark: { bg: "#123456" } } };
    expect(render(one, {}, "light").props.style).toMatchObject({ backgroundColor: "#123456" });
  });
  test("a variable only one set defines has that value in both themes; SVG attributes take variables too", () => {
    const definition = {
      id: "t",
      html: '<div style="color: var(--ink); background-color: var(--bg)"><svg width="9" height="9"><rect width="9" height="9" fill="var(--bg)"/></svg></div>',
      themes: { dark: { ink: "#eeeeee", bg: "#000000" }, light: { ink: "#111111" } },
    };
    const light = render(definition, {}, "light");
    expect(light.props.style).toMatchObject({ color: "#111111", backgroundColor: "#000000" });
    expect(find(light, "rect")[0]!.props.fill).toBe("#000000");
    expect(htmlProblem('<svg width="9" height="9"><rect fill="var(--nope)"/></svg>').message).toMatch(/--nope/);
    expect(htmlProblem('<svg width="9" height="9"><rect fill="var(--x)"/></svg>', [], { dark: { x: "url(/etc/passwd)" } }).message).toMatch(/url\(#id\)/);
  });

  test("a theme value is checked as each theme draws it", () => {
    const details = refusal({
      id: "t",
      html: '<div style="box-shadow: var(--s)"></div>',
      themes: { dark: { s: "0 0 10px red" }, light: { s: "0 0 900px red" } },
    });
    expect(details[0]!.message).toMatch(/light theme/);
  });
});

describe("per-render bounds", () => {
  test("more than 20,000 characters of text after substitution", () => {
    const definition = { id: "t", html: `<div>${"<p>{{t}}</p>".repeat(11)}</div>`, fields: [TEXT("t", { max_length: 2000 })] };
    expect(() => render(definition, { t: "x".repeat(1999) })).toThrow(/at most 20000/);
    expect(() => render(definition, { t: "x".repeat(1000) })).not.toThrow();
  });
  test("more than 20 images", () => {
    const png = solidPngDataUri(2, 2, [255, 0, 0]);
    const definition = { id: "t", html: `<div>${`<img src="${png}">`.repeat(21)}</div>` };
    expect(() => render(definition, {})).toThrow(/21 images; at most 20/);
  });
  test("images that decode to more than 40 megapixels in all", () => {
    const big = solidPngDataUri(1, 1, [0, 0, 0]).replace(/^data:image\/png;base64,/, "");
    // A PNG header claiming 5000×5000 (25 MP): two of them pass one by one, not together.
    const bytes = Buffer.from(big, "base64");
    bytes.writeUInt32BE(5000, 16);
    bytes.writeUInt32BE(5000, 20);
    const uri = `data:image/png;base64,${bytes.toString("base64")}`;
    const one = { id: "t", fields: [{ name: "a", type: "image_url" }], html: '<div><img src="{{a}}"></div>' };
    expect(() => render(one, { a: "x" }, "dark", { a: uri })).not.toThrow();
    const two = { ...one, fields: [...one.fields, { name: "b", type: "image_url" }], html: '<div><img src="{{a}}"><img src="{{b}}"></div>' };
    expect(() => render(two, { a: "x", b: "y" }, "dark", { a: uri, b: uri })).toThrow(/50\.0 megapixels; at most 40/);
  });
  test("an embedded image must be one the renderer draws", () => {
    expect(htmlProblem('<img src="data:image/png;base64,AAAA">').message).toMatch(/not a PNG, JPEG, GIF or SVG/);
    expect(htmlProblem('<img src="data:image/webp;base64,UklGRhwAAABXRUJQVlA4TA8AAAAvB8ABAAcQ/Y/+ByKi/wEA">').message).toMatch(/WebP/);
  });
});

describe("docs/templates.md", () => {
  test("shows exactly the examples these tests accept", async () => {
    const doc = await Bun.file(new URL("../../../../docs/templates.md", import.meta.url)).text();
    for (const example of Object.values(EXAMPLES)) expect(doc).toContain(`\`\`\`json\n${JSON.stringify(example, null, 2)}\n\`\`\``);
  });
});
