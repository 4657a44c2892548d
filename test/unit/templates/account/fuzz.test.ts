/**
 * The parser under random input: whatever the HTML, a definition is accepted or refused with
 * an ApiError (never another exception), quickly, and what it accepts renders without throwing.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { ApiError } from "../../../../src/errors.ts";
import { checkSvgText } from "../../../../src/media/svg-safety.ts";
import { loadFonts } from "../../../../src/render/fonts/fonts.ts";
import { initLayout, satori } from "../../../../src/render/engines/layout.ts";
import { accountTemplateDefinition, parseAccountTemplate } from "../../../../src/templates/account/index.ts";

const pieces = [
  "<div>",
  "</div>",
  "<span>",
  "</span>",
  "<p>",
  "<h1>",
  '<img src="{{logo}}">',
  '<svg width="9" height="9">',
  "</svg>",
  '<rect width="1"/>',
  "<script>",
  "<style>",
  "{{title}}",
  "{{#title}}",
  "{{/title}}",
  "{{^title}}",
  "{{",
  "}}",
  "{{nope}}",
  ' style="',
  "color: {{accent}}",
  "background: var(--bg)",
  "var(--x)",
  '"',
  "'",
  ">",
  "<",
  "&amp;",
  "&#0;",
  "<!--",
  "-->",
  "<![CDATA[",
  ' class="flex p-4 text-xl"',
  "url(data:image/svg+xml,%3Csvg%3E)",
  "url(http://x)",
  "\u0000",
  "\n",
  "é",
  "😀",
  "<b onclick=x>",
  "<foreignObject>",
  '<use href="x"/>',
];

const definition = (html: string) => ({
  id: "fuzz",
  html,
  fields: [
    { name: "title", type: "text" },
    { name: "logo", type: "image_url" },
    { name: "accent", type: "color" },
  ],
  themes: { dark: { bg: "#000" } },
});

function accepted(html: string): boolean {
  try {
    const spec = parseAccountTemplate(definition(html));
    accountTemplateDefinition(spec).render({ title: "<b>x</b>", accent: "red" }, { width: 1200, height: 630, theme: "light", images: {} });
    return true;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    expect(error.status).toBe(400);
    return false;
  }
}

describe("fuzz", () => {
  test("template-shaped input: ApiError or a tree, never anything else", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 60 }), (parts) => {
        accepted(parts.join(""));
      }),
      { numRuns: 1500 },
    );
  });

  test("arbitrary strings and definition bodies", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (html) => {
        accepted(html);
      }),
      { numRuns: 1000 },
    );
    fc.assert(
      fc.property(fc.anything(), (body) => {
        try {
          parseAccountTemplate(body);
        } catch (error) {
          if (!(error instanceof ApiError)) throw error;
        }
      }),
      { numRuns: 500 },
    );
  });

  test("the SVG check answers (never throws) for any text", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.constantFrom(
            '<svg xmlns="http://www.w3.org/2000/svg">',
            "</svg>",
            '<image href="/x"/>',
            '<s:image xmlns:s="http://www.w3.org/2000/svg" href="/x"/>',
            "<!DOCTYPE x>",
            "&x;",
            "<style>",
            "</style>",
            "@import",
            "url(",
            ")",
            "<",
            ">",
            '"',
          ),
          { maxLength: 30 },
        ),
        (parts) => {
          const result = checkSvgText(parts.join(""), "fetched");
          expect(result === undefined || typeof result.message === "string").toBe(true);
        },
      ),
      { numRuns: 1000 },
    );
  });

  test("the largest allowed template (2,000 elements) is accepted and renders", () => {
    expect(accepted(`<div>${'<span style="color: red; font-size: 12px">{{title}}</span>'.repeat(1999)}</div>`)).toBe(true);
  });
});

/** Styled, nested templates: what the language accepts, satori lays out without throwing. */
const declaration = fc.constantFrom(
  "display: flex",
  "display: block",
  "display: none",
  "display: contents",
  "position: absolute",
  "top: 10px",
  "width: 50%",
  "height: 0",
  "padding: 10px 20px",
  "margin: auto",
  "font-size: 1px",
  "font-size: 400px",
  "font-size: 10em",
  "line-height: 10",
  "letter-spacing: -100px",
  "transform: rotate(45deg) scale(10)",
  "filter: blur(64px)",
  "box-shadow: inset 0 0 100px 100px red",
  "background-image: radial-gradient(circle, red 10%, transparent 11%)",
  "background-size: 2px 2px",
  "border: 200px solid red",
  "border-radius: 50%",
  "opacity: 0",
  "clip-path: circle(10%)",
  "text-transform: uppercase",
  "-webkit-line-clamp: 2",
  "text-overflow: ellipsis",
  "white-space: nowrap",
  "mask-image: linear-gradient(black, transparent)",
  "text-shadow: 0 0 100px red",
  "flex-wrap: wrap",
  "object-fit: cover",
  "background: red",
  "color: {{accent}}",
  "text-decoration: underline red",
  "-webkit-text-stroke: 2px red",
  "background-clip: text",
  "direction: rtl",
  "text-wrap: balance",
  "gap: 10px 20px",
);
const classes = fc.constantFrom(
  "flex",
  "flex-col",
  "p-4",
  "text-xl",
  "font-bold",
  "bg-red-500",
  "rounded-full",
  "shadow-2xl",
  "absolute",
  "inset-0",
  "w-full",
  "leading-none",
  "uppercase",
  "opacity-50",
  "border-4",
  "w-[10000px]",
);
const leaf = fc.constantFrom(
  "{{title}}",
  "text",
  "<br>",
  '<img src="{{logo}}" width="20" height="20">',
  '<svg width="20" height="20" viewBox="0 0 2 2"><circle cx="1" cy="1" r="1" fill="{{accent}}"/></svg>',
  "{{#title}}x{{/title}}",
  "{{^title}}y{{/title}}",
  "😀 日本語 عربي",
);
const { node } = fc.letrec<{ node: string }>((tie) => ({
  node: fc.oneof(
    { maxDepth: 4 },
    leaf,
    fc
      .tuple(
        fc.constantFrom("div", "span", "p", "h1", "b"),
        fc.array(declaration, { maxLength: 5 }),
        fc.array(classes, { maxLength: 4 }),
        fc.array(tie("node"), { maxLength: 4 }),
        fc.boolean(),
      )
      .map(
        ([tag, styles, cls, kids, fit]) =>
          `<${tag} style="${styles.join("; ")}" class="${cls.join(" ")}"${fit ? ' data-fit-lines="2" data-min-font-size="10"' : ""}>${kids.join("")}</${tag}>`,
      ),
  ),
}));

describe("fuzz through the layout engine", () => {
  test("an accepted template lays out (satori) without throwing", async () => {
    await initLayout();
    const fonts = await loadFonts();
    const logo = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
    let laidOut = 0;
    await fc.assert(
      fc.asyncProperty(node, fc.constantFrom("dark" as const, "light" as const), async (html, theme) => {
        let template: ReturnType<typeof accountTemplateDefinition>;
        try {
          template = accountTemplateDefinition(parseAccountTemplate(definition(html)));
        } catch (error) {
          if (!(error instanceof ApiError)) throw error;
          return;
        }
        const tree = template.render({ title: "Hello world", logo: "x", accent: "red" }, { width: 1200, height: 630, theme, images: { logo } });
        await satori(tree as Parameters<typeof satori>[0], { width: 1200, height: 630, fonts });
        laidOut++;
      }),
      { numRuns: 150 },
    );
    // The generator must reach the layout engine, or this test proves nothing.
    expect(laidOut).toBeGreaterThan(30);
  });
});
