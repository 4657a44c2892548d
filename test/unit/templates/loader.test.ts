/**
 * Templates from a directory (OG_TEMPLATES_DIR): real files in a temp dir outside the repo (so
 * no tsconfig applies and the JSX runtime must come from the loader's plugin), imported for
 * real, rendered for real.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger } from "../../../src/logger.ts";
import { createInProcessRenderer } from "../../../src/render/engines/in-process.ts";
import { prepareRendering } from "../../../src/render/setup.ts";
import { checkTemplateShape, loadTemplatesFromDir } from "../../../src/templates/loader.ts";
import { renderRequest } from "../../support/render-request.ts";
import { decodePng, fractionNear } from "../../support/png.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function templateDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "ogsmith-templates-"));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, ".."), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

function capturingLogger() {
  const lines: Record<string, unknown>[] = [];
  return { lines, logger: createLogger("info", (line) => lines.push(JSON.parse(line))) };
}

/** Solid-colour card, JSX with the ogsmith pragma and a kit import. */
const QUOTE = `/** @jsxImportSource ogsmith */
import { clampStyle, fitFontSize } from "ogsmith";
import { ACCENT } from "./lib/colours.ts";
export default {
  id: "quote",
  description: "A quote on orange",
  fields: [
    { name: "title", type: "text", required: true, maxLength: 120 },
    { name: "attribution", type: "text", description: "Who said it" },
  ],
  render(fields, ctx) {
    const size = fitFontSize(fields.title, { maxWidth: ctx.width - 160, maxLines: 3, maxSize: 80, minSize: 36 });
    return (
      <div style={{ display: "flex", flexDirection: "column", justifyContent: "center", width: ctx.width, height: ctx.height, padding: 80, boxSizing: "border-box", backgroundColor: ACCENT, fontFamily: "Inter" }}>
        <div style={{ ...clampStyle(3, size, 1.1), fontWeight: 800 }}>{fields.title}</div>
        {fields.attribution ? <><div style={{ fontSize: 32 }}>— {fields.attribution}</div></> : null}
      </div>
    );
  },
};
`;
/** No pragma: Bun's default JSX runtime (react/jsx-dev-runtime) must resolve too. */
const PLAIN = `export default {
  id: "plain",
  fields: [{ name: "title", type: "text", required: true }],
  render: (f: Record<string, string>, ctx: { width: number; height: number }) => (
    <div style={{ display: "flex", width: ctx.width, height: ctx.height, backgroundColor: "#00AA00" }}>{f.title}</div>
  ),
};
`;
/** No JSX at all: the h helper. */
const HYPER = `import { h } from "ogsmith";
export default {
  id: "hyper",
  fields: [{ name: "headline", type: "text", required: true }, { name: "photo", type: "image_url" }],
  render: (f: Record<string, string>, ctx: { width: number; height: number }) =>
    h("div", { style: { display: "flex", width: ctx.width, height: ctx.height, backgroundColor: "#0000FF" } }, f.headline),
};
`;

describe("loadTemplatesFromDir", () => {
  test("loads good templates and skips each kind of broken one with its file and reason", async () => {
    const dir = templateDir({
      "quote.tsx": QUOTE,
      "lib/colours.ts": `export const ACCENT = "#FF6600";`,
      "plain.tsx": PLAIN,
      "hyper.ts": HYPER,
      "types.d.ts": "declare const x: number;",
      "notes.md": "not a template",
      "a-syntax.tsx": `export default { id: "syntax", fields: [, render() { return <div> } };`,
      "b-throws.ts": `throw new Error("boom at import");`,
      "c-no-default.ts": `export const template = {};`,
      "d-bad-id.ts": `export default { id: "Bad Id", fields: [], render: () => ({ type: "div", props: {} }) };`,
      "e-bad-type.ts": `export default { id: "badtype", fields: [{ name: "n", type: "number" }], render: () => ({ type: "div", props: {} }) };`,
      "f-reserved.ts": `export default { id: "reserved", fields: [{ name: "theme", type: "text" }], render: () => ({ type: "div", props: {} }) };`,
      "g-builtin.ts": `export default { id: "event", fields: [], render: () => ({ type: "div", props: {} }) };`,
      "h-render-throws.ts": `export default { id: "rthrows", fields: [{ name: "title", type: "text", required: true }], render: () => { throw new Error("nope"); } };`,
      "i-no-render.ts": `export default { id: "norender", fields: [] };`,
      "j-returns-string.ts": `export default { id: "strings", fields: [], render: () => "hello" };`,
      "z-duplicate.ts": `export default { id: "quote", fields: [], render: () => ({ type: "div", props: {} }) };`,
    });
    const { lines, logger } = capturingLogger();
    const result = await loadTemplatesFromDir(dir, logger);

    expect(result.loaded.map((t) => t.id).sort()).toEqual(["hyper", "plain", "quote"]);
    const reasons = Object.fromEntries(result.errors.map((e) => [e.file.slice(dir.length + 1), e.reason]));
    expect(Object.keys(reasons).sort()).toEqual([
      "a-syntax.tsx",
      "b-throws.ts",
      "c-no-default.ts",
      "d-bad-id.ts",
      "e-bad-type.ts",
      "f-reserved.ts",
      "g-builtin.ts",
      "h-render-throws.ts",
      "i-no-render.ts",
      "j-returns-string.ts",
      "z-duplicate.ts",
    ]);
    expect(reasons["a-syntax.tsx"]).toMatch(/^import failed: .*line 1/);
    expect(reasons["b-throws.ts"]).toBe("import failed: boom at import");
    expect(reasons["c-no-default.ts"]).toContain("default export");
    expect(reasons["d-bad-id.ts"]).toContain('"Bad Id"');
    expect(reasons["e-bad-type.ts"]).toContain("fields[0].type must be one of text, image_url");
    expect(reasons["f-reserved.ts"]).toContain('"theme" is reserved');
    expect(reasons["g-builtin.ts"]).toBe('id "event" is already used by a built-in template');
    expect(reasons["h-render-throws.ts"]).toBe("render threw on a minimal input: nope");
    expect(reasons["i-no-render.ts"]).toContain("render must be a function");
    expect(reasons["j-returns-string.ts"]).toContain("render must return an element");
    expect(reasons["z-duplicate.ts"]).toBe(`id "quote" is already used by ${join(dir, "quote.tsx")}`);

    // Every skip is logged with its file and reason.
    const warnings = lines.filter((l) => l.level === "warn");
    expect(warnings).toHaveLength(11);
    expect(warnings.every((w) => w.msg === "template skipped" && typeof w.file === "string" && typeof w.reason === "string")).toBe(true);

    const quote = result.loaded.find((t) => t.id === "quote")!;
    expect(quote.description).toBe("A quote on orange");
    expect(quote.fields).toEqual([
      { name: "title", type: "text", required: true, maxLength: 120 },
      { name: "attribution", type: "text", description: "Who said it" },
    ]);
    expect(result.loaded.find((t) => t.id === "plain")!.description).toBe("");
  });

  test("loaded templates render through the real pipeline, next to the built-ins", async () => {
    const dir = templateDir({ "quote.tsx": QUOTE, "lib/colours.ts": `export const ACCENT = "#FF6600";`, "plain.tsx": PLAIN, "hyper.ts": HYPER });
    const { templates, templateErrors } = await prepareRendering({ templatesDir: dir, logger: createLogger("silent") });
    expect(templateErrors).toEqual([]);
    expect(templates.list().map((t) => t.id)).toEqual(["event", "blog", "hyper", "plain", "quote"]);
    const renderer = createInProcessRenderer();
    for (const [template, fields, colour] of [
      ["quote", { title: "Simplicity is prerequisite for reliability", attribution: "Dijkstra" }, [255, 102, 0]],
      ["plain", { title: "Plain" }, [0, 170, 0]],
      ["hyper", { headline: "Hyper" }, [0, 0, 255]],
    ] as const) {
      const png = decodePng(
        (await renderer.render(renderRequest(templates, { template, theme: "dark", fields, width: 600, height: 315, format: "png" }))).bytes,
      );
      expect([png.width, png.height]).toEqual([600, 315]);
      // The corners are the template's own background.
      expect(fractionNear(png, 0, 275, 40, 40, colour as unknown as [number, number, number], 4)).toBe(1);
      expect(fractionNear(png, 560, 275, 40, 40, colour as unknown as [number, number, number], 4)).toBe(1);
    }
  });

  test("a missing directory is an error, an empty one loads nothing", async () => {
    await expect(loadTemplatesFromDir(join(tmpdir(), "ogsmith-no-such-dir-" + process.pid), createLogger("silent"))).rejects.toThrow();
    expect(await loadTemplatesFromDir(templateDir({}), createLogger("silent"))).toEqual({ loaded: [], errors: [] });
  });
});

describe("checkTemplateShape", () => {
  const ok = { id: "ok", description: "d", fields: [{ name: "title", type: "text", required: true, maxLength: 100 }], render: () => ({}) };
  test("accepts a well-formed template", () => {
    expect(checkTemplateShape(ok)).toBeUndefined();
    expect(checkTemplateShape({ ...ok, id: "a".repeat(40) })).toBeUndefined();
    expect(checkTemplateShape({ ...ok, id: "my_card-2" })).toBeUndefined();
  });
  test.each([
    ["not an object", null, "default export"],
    ["id too long", { ...ok, id: "a".repeat(41) }, "id must be"],
    ["id with a capital", { ...ok, id: "Card" }, "id must be"],
    ["id starting with a digit", { ...ok, id: "1card" }, "id must be"],
    ["fields not an array", { ...ok, fields: {} }, "fields must be an array"],
    ["field name with a dash", { ...ok, fields: [{ name: "my-field", type: "text" }] }, "fields[0].name"],
    [
      "duplicate field",
      {
        ...ok,
        fields: [
          { name: "a", type: "text" },
          { name: "a", type: "image_url" },
        ],
      },
      "appears twice",
    ],
    ["required not boolean", { ...ok, fields: [{ name: "a", type: "text", required: "yes" }] }, "required must be a boolean"],
    ["maxLength zero", { ...ok, fields: [{ name: "a", type: "text", maxLength: 0 }] }, "maxLength"],
    ["maxLength too big for a URL", { ...ok, fields: [{ name: "a", type: "image_url", maxLength: 5000 }] }, "maxLength"],
    ["description not a string", { ...ok, description: 3 }, "description must be a string"],
  ])("refuses %s", (_name, value, reason) => {
    expect(checkTemplateShape(value)).toContain(reason);
  });
});
