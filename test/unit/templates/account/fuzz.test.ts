/**
 * The parser under random input: whatever the HTML, a definition is accepted or refused with
 * an ApiError (never another exception), quickly, and what it accepts renders without throwing.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { ApiError } from "../../../../src/errors.ts";
import { checkSvgText } from "../../../../src/render/svg-safety.ts";
import { accountTemplateDefinition, parseAccountTemplate } from "../../../../src/templates/account/index.ts";

const pieces = [
  "<div>", "</div>", "<span>", "</span>", "<p>", "<h1>", "<img src=\"{{logo}}\">", "<svg width=\"9\" height=\"9\">", "</svg>", "<rect width=\"1\"/>",
  "<script>", "<style>", "{{title}}", "{{#title}}", "{{/title}}", "{{^title}}", "{{", "}}", "{{nope}}", " style=\"", "color: {{accent}}",
  "background: var(--bg)", "var(--x)", "\"", "'", ">", "<", "&amp;", "&#0;", "<!--", "-->", "<![CDATA[", " class=\"flex p-4 text-xl\"",
  "url(data:image/svg+xml,%3Csvg%3E)", "url(http://x)", "\u0000", "\n", "é", "😀", "<b onclick=x>", "<foreignObject>", "<use href=\"x\"/>",
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
      fc.property(fc.array(fc.constantFrom('<svg xmlns="http://www.w3.org/2000/svg">', "</svg>", "<image href=\"/x\"/>", "<s:image xmlns:s=\"http://www.w3.org/2000/svg\" href=\"/x\"/>", "<!DOCTYPE x>", "&x;", "<style>", "</style>", "@import", "url(", ")", "<", ">", "\""), { maxLength: 30 }), (parts) => {
        const result = checkSvgText(parts.join(""), "fetched");
        expect(result === undefined || typeof result.message === "string").toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  test("the largest allowed template (2,000 elements) is accepted and renders", () => {
    expect(accepted(`<div>${'<span style="color: red; font-size: 12px">{{title}}</span>'.repeat(1999)}</div>`)).toBe(true);
  });
});
