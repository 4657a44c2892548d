/**
 * `ogsmith render --template-file DEF.json` (docs/templates.md): an account template's definition
 * rendered offline, in this process (--json) and on render workers (--batch), validated as the
 * API validates a create. A child process each time, no server, no database.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodePng, fractionNear } from "../support/png.ts";
import { REPO_ROOT, runCli } from "../support/process.ts";

let dir: string;
let definition: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "ogsmith-template-file-"));
  definition = join(dir, "card.json");
  // The shape GET /api/templates/{id} answers, version and dates included; a square design canvas.
  writeFileSync(
    definition,
    JSON.stringify({
      id: "promo",
      version: 3,
      source: "account",
      created_at: "2027-01-01T00:00:00.000Z",
      updated_at: "2027-01-02T00:00:00.000Z",
      name: "Promo",
      description: "",
      width: 600,
      height: 600,
      fields: [
        { name: "title", type: "text", required: true, max_length: 80 },
        { name: "brand", type: "color", required: false },
      ],
      themes: {},
      sample: { title: "Sample" },
      html: '<div style="display: flex; width: 100%; height: 100%; background-color: #0000ff"><div style="width: 300px; height: 100%; background-color: {{brand}}"></div><p style="color: white">{{title}}</p></div>',
    }),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const readPng = async (path: string) => decodePng(new Uint8Array(await Bun.file(path).arrayBuffer()));
const RED: [number, number, number] = [255, 0, 0];
const BLUE: [number, number, number] = [0, 0, 255];

describe("ogsmith render --template-file", () => {
  test("--json renders the definition on its own canvas; a body without template uses it", async () => {
    const out = join(dir, "one.png");
    const { code, stdout, stderr } = await runCli([
      "render",
      "--template-file",
      definition,
      "--json",
      JSON.stringify({ title: "Offline", brand: "#ff0000", width: 1200, height: 1200 }),
      "-o",
      out,
    ]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    expect(stdout).toContain("1200×1200 PNG");
    const png = await readPng(out);
    // The 300 px of a 600 px design: the left half, at 2×.
    expect(fractionNear(png, 10, 10, 580, 1180, RED)).toBeGreaterThan(0.99);
    expect(fractionNear(png, 900, 300, 280, 600, BLUE)).toBeGreaterThan(0.95);
  });

  test("--batch renders items of the definition on render workers, next to built-in ones; bad values are reported by index", async () => {
    const outDir = join(dir, "batch");
    const batch = join(dir, "items.json");
    writeFileSync(
      batch,
      JSON.stringify([
        { title: "First", brand: "#ff0000", filename: "first" },
        { template: "promo", title: "Second", brand: "rgb(255, 0, 0)", width: 400, height: 400, filename: "second" },
        { template: "event", title: "A built-in", filename: "event" },
        { title: "Bad colour", brand: "red; background: url(x)" },
      ]),
    );
    const { code, stdout } = await runCli(["render", "--batch", batch, "--out-dir", outDir, "--workers", "2", "--template-file", definition]);
    expect(code).toBe(1);
    expect(stdout).toContain("rendered 3 of 4");
    expect(stdout).toContain("item 3: brand:");
    const first = await readPng(join(outDir, "first.png"));
    expect([first.width, first.height]).toEqual([1200, 630]);
    const second = await readPng(join(outDir, "second.png"));
    expect([second.width, second.height]).toEqual([400, 400]);
    expect(fractionNear(second, 5, 5, 190, 390, RED)).toBeGreaterThan(0.99);
    expect(existsSync(join(outDir, "event.png"))).toBe(true);
  });

  test("without --json or --batch it draws the sample values to <id>.png (or -o); a body with no field values gets them too", async () => {
    // The file's sample: title "Sample", brand red; the design is 600×600 (the brand bar its left half).
    const sampled = join(dir, "sampled.json");
    writeFileSync(sampled, JSON.stringify({ ...JSON.parse(await Bun.file(definition).text()), sample: { title: "Sample", brand: "#ff0000" } }));
    const cwd = mkdtempSync(join(dir, "cwd-"));
    const alone = await runCli(["render", "--template-file", sampled], {}, cwd);
    expect({ code: alone.code, stderr: alone.stderr }).toEqual({ code: 0, stderr: "" });
    expect(alone.stdout).toContain("promo.png: 1200×630 PNG");
    const png = await readPng(join(cwd, "promo.png"));
    expect([png.width, png.height]).toEqual([1200, 630]);
    // 1200×630 of a 600×600 design: laid out 1143×600 at 1.05×, so the 300 px bar is the left 315 px.
    expect(fractionNear(png, 10, 10, 290, 610, RED)).toBeGreaterThan(0.99);
    expect(fractionNear(png, 900, 10, 280, 610, BLUE)).toBeGreaterThan(0.9);

    // -o names the file; --json with only a size and a theme still takes the sample values.
    const out = join(dir, "sized.png");
    const sized = await runCli(["render", "--template-file", sampled, "--json", JSON.stringify({ width: 400, height: 400, theme: "light" }), "-o", out]);
    expect({ code: sized.code, stderr: sized.stderr }).toEqual({ code: 0, stderr: "" });
    const square = await readPng(out);
    expect([square.width, square.height]).toEqual([400, 400]);
    expect(fractionNear(square, 5, 5, 190, 390, RED)).toBeGreaterThan(0.99);

    // A body that gives a field value is taken as given: no sample brand, so no red bar.
    const given = join(dir, "given.png");
    expect((await runCli(["render", "--template-file", sampled, "--json", JSON.stringify({ title: "Mine" }), "-o", given])).code).toBe(0);
    expect(fractionNear(await readPng(given), 10, 10, 290, 610, RED)).toBe(0);

    // A definition whose sample lacks a required field says which.
    const unsampled = join(dir, "unsampled.json");
    writeFileSync(unsampled, JSON.stringify({ ...JSON.parse(await Bun.file(definition).text()), sample: {} }));
    const missing = await runCli(["render", "--template-file", unsampled, "-o", join(dir, "missing.png")]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("title: is required");
    expect(existsSync(join(dir, "missing.png"))).toBe(false);
  });

  test("docs/starters.md's command, as written, draws the quote starter with its sample", async () => {
    const cwd = mkdtempSync(join(dir, "starter-"));
    const { code, stdout, stderr } = await runCli(["render", "--template-file", join(REPO_ROOT, "templates/starters/quote.json")], {}, cwd);
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    expect(stdout).toContain("quote.png: 1200×630 PNG");
    const png = await readPng(join(cwd, "quote.png"));
    expect([png.width, png.height]).toEqual([1200, 630]);
  });

  test("an invalid definition is exit 1 with each problem at its line and column; nothing is written", async () => {
    const bad = join(dir, "bad.json");
    writeFileSync(bad, JSON.stringify({ id: "bad", html: '<div>\n  <img src="https://example.com/x.png">\n  <script>1</script>\n</div>' }));
    const out = join(dir, "bad.png");
    const { code, stderr } = await runCli(["render", "--template-file", bad, "--json", "{}", "-o", out]);
    expect(code).toBe(1);
    expect(stderr).toContain(`--template-file ${bad} is not a valid template definition`);
    expect(stderr).toMatch(/html: .*\(line 2, column \d+\)/);
    expect(stderr).toMatch(/html: .*\(line 3, column \d+\)/);
    expect(existsSync(out)).toBe(false);
  });

  test("a missing or non-JSON file is a usage error (exit 2)", async () => {
    const missing = await runCli(["render", "--template-file", join(dir, "nope.json"), "--json", "{}", "-o", join(dir, "x.png")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("Cannot read --template-file");
    const notJson = join(dir, "not.json");
    writeFileSync(notJson, "{id: promo");
    const broken = await runCli(["render", "--template-file", notJson, "--json", "{}", "-o", join(dir, "x.png")]);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain("is not valid JSON");
  });
});
