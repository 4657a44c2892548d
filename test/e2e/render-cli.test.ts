/**
 * `ogsmith render` (docs/operations.md) as a child process: `bun src/main.ts render …`, no server, no
 * database, real files in a temp dir. stderr is a pipe here, so progress comes as plain lines.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodePng, solidPngDataUri } from "../support/png.ts";
import { REPO_ROOT, runCli } from "../support/process.ts";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "ogsmith-render-cli-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const readPng = async (path: string) => decodePng(new Uint8Array(await Bun.file(path).arrayBuffer()));

describe("ogsmith render --json", () => {
  test("writes one PNG of the requested size", async () => {
    const out = join(dir, "single", "card.png");
    const { code, stdout } = await runCli([
      "render",
      "--json",
      JSON.stringify({ template: "blog", title: "Hello 👋", author_name: "Ada", width: 800, height: 418 }),
      "-o",
      out,
    ]);
    expect(code).toBe(0);
    expect(stdout).toContain("800×418 PNG");
    const png = await readPng(out);
    expect([png.width, png.height]).toEqual([800, 418]);
  });

  test("characters no font has are a warning naming them; the image is still written", async () => {
    const out = join(dir, "runes.png");
    const { code, stderr } = await runCli(["render", "--json", JSON.stringify({ template: "blog", title: "Runes ᚠᚢ 日本" }), "-o", out]);
    expect(code).toBe(0);
    expect(stderr).toContain("warning: 2 character(s) no font has, drawn as boxes: U+16A0 U+16A2");
    expect(existsSync(out)).toBe(true);
    const clean = await runCli(["render", "--json", JSON.stringify({ template: "blog", title: "日本 עברית" }), "-o", join(dir, "clean.png")]);
    expect(clean.code).toBe(0);
    expect(clean.stderr).not.toContain("warning");
  });

  test("an invalid body is exit 1 with every bad field named, and writes nothing", async () => {
    const out = join(dir, "invalid.png");
    const { code, stderr } = await runCli(["render", "--json", JSON.stringify({ title: "", colour: "red" }), "-o", out]);
    expect(code).toBe(1);
    expect(stderr).toContain("title:");
    expect(stderr).toContain("colour: is not a field of the event template");
    expect(existsSync(out)).toBe(false);
  });

  test("usage errors exit 2: bad JSON, a missing -o, --json with --batch, no mode", async () => {
    const badJson = await runCli(["render", "--json", "{title: nope", "-o", join(dir, "x.png")]);
    expect(badJson.code).toBe(2);
    expect(badJson.stderr).toContain("--json is not valid JSON");
    expect((await runCli(["render", "--json", "{}"])).code).toBe(2);
    expect((await runCli(["render", "--json", "{}", "-o", "x.png", "--batch", "b.json", "--out-dir", dir])).code).toBe(2);
    const none = await runCli(["render"]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("--batch items.json --out-dir DIR");
  });
});

describe("ogsmith render --batch", () => {
  test("renders every good item, reports the bad ones by index, and exits 1", async () => {
    const outDir = join(dir, "batch");
    const items = [
      { template: "blog", title: "First post", category: "News", filename: "posts/first" },
      { title: "Launch week", date: "March 14", logo_url: solidPngDataUri(40, 20, [255, 0, 255]) },
      { template: "event", title: "Wrong fields", author_name: "Ada" },
      { title: "Launch week", theme: "light" },
      { title: "Escape", filename: "../escape.png" },
      { title: "Привет, мир" },
      "not an object",
      { template: "nope", title: "x" },
    ];
    const batchFile = join(dir, "items.json");
    writeFileSync(batchFile, JSON.stringify(items));
    const { code, stdout, stderr } = await runCli(["render", "--batch", batchFile, "--out-dir", outDir]);
    expect(code).toBe(1);

    // Good items are written: explicit filename (".png" added), title slugs, a repeated slug
    // with its index, and <index>.png when the title has no ASCII to slug.
    const written = readdirSync(outDir, { recursive: true }).map(String).sort();
    expect(written).toEqual(["5.png", "launch-week-3.png", "launch-week.png", "posts", "posts/first.png"]);
    for (const file of ["5.png", "launch-week-3.png", "launch-week.png", "posts/first.png"]) {
      const png = await readPng(join(outDir, file));
      expect([png.width, png.height]).toEqual([1200, 630]);
    }
    expect(existsSync(join(dir, "escape.png"))).toBe(false);

    // The summary: counts, time, rate, and each failure by index with its reason.
    expect(stdout).toMatch(/rendered 4 of 8 images to .* in \d+\.\d\d s \(\d+\.\d images\/s\)/);
    expect(stdout).toContain("failed 4:");
    expect(stdout).toContain("item 2: author_name: is a field of the blog template, not event");
    expect(stdout).toMatch(/item 4: filename: .*'\.\.'/);
    expect(stdout).toContain("item 6: body: must be a JSON object");
    expect(stdout).toContain("item 7: template: must be one of event, blog");
    expect(stdout).not.toMatch(/item [01358]:/);
    // Without a terminal, progress is one plain line per item on stderr.
    expect(stderr.split("\n").filter((l) => /^\[\s*\d+\/8\] #\d+ (ok|FAILED)/.test(l))).toHaveLength(8);
  }, 60_000);

  test("exits 0 when every item renders; duplicate explicit filenames are a failure of the later item", async () => {
    const outDir = join(dir, "ok");
    const good = join(dir, "good.json");
    writeFileSync(good, JSON.stringify([{ title: "One" }, { title: "Two", template: "blog" }]));
    const ok = await runCli(["render", "--batch", good, "--out-dir", outDir]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain("rendered 2 of 2 images");
    expect(readdirSync(outDir).sort()).toEqual(["one.png", "two.png"]);

    const dup = join(dir, "dup.json");
    writeFileSync(
      dup,
      JSON.stringify([
        { title: "A", filename: "same.png" },
        { title: "B", filename: "same" },
      ]),
    );
    const dupRun = await runCli(["render", "--batch", dup, "--out-dir", join(dir, "dup")]);
    expect(dupRun.code).toBe(1);
    expect(dupRun.stdout).toContain('item 1: filename: "same.png" is already used by item 0');
  }, 60_000);

  test("JSON lines and a JSON array on standard input render the same, on the worker pool", async () => {
    const bodies = [
      { title: "Lines one" },
      { template: "blog", title: "Lines two", filename: "nested/two" },
      { title: "Lines three", width: 600, height: 315 },
    ];
    const expected = ["lines-one.png", "lines-three.png", "nested", "nested/two.png"];

    const linesFile = join(dir, "items.jsonl");
    writeFileSync(linesFile, bodies.map((b) => JSON.stringify(b)).join("\n") + "\n");
    const lines = await runCli(["render", "--batch", linesFile, "--out-dir", join(dir, "lines"), "--workers", "2"]);
    expect(lines.code).toBe(0);
    expect(lines.stdout).toMatch(/rendered 3 of 3 images .*\(\d+\.\d images\/s\) with 2 render workers/);
    expect(readdirSync(join(dir, "lines"), { recursive: true }).map(String).sort()).toEqual(expected);
    expect((await readPng(join(dir, "lines", "lines-three.png"))).width).toBe(600);

    // Several lines in a .json file are JSON lines too; one line is allowed in a .jsonl file.
    const severalLines = join(dir, "lines.json");
    writeFileSync(severalLines, bodies.map((b) => JSON.stringify(b)).join("\n"));
    expect((await runCli(["render", "--batch", severalLines, "--out-dir", join(dir, "lines2"), "--workers", "1"])).code).toBe(0);
    const single = join(dir, "single.jsonl");
    writeFileSync(single, JSON.stringify({ title: "Only one" }));
    expect((await runCli(["render", "--batch", single, "--out-dir", join(dir, "one-line"), "--workers", "1"])).code).toBe(0);
    expect(readdirSync(join(dir, "one-line"))).toEqual(["only-one.png"]);

    const proc = Bun.spawn(["bun", `${REPO_ROOT}/src/main.ts`, "render", "--batch", "-", "--out-dir", join(dir, "stdin"), "--workers", "1"], {
      cwd: REPO_ROOT,
      stdin: new Blob([JSON.stringify(bodies)]),
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    expect(code).toBe(0);
    expect(stdout).toContain("rendered 3 of 3 images");
    // The total of a batch on standard input is not known until its end.
    expect(stderr.split("\n").filter((l) => /^\[\d\/\?\] #\d ok /.test(l))).toHaveLength(3);
    expect(readdirSync(join(dir, "stdin"), { recursive: true }).map(String).sort()).toEqual(expected);
  }, 90_000);

  test("usage errors exit 2: batch file not JSON, not an array, missing, or no --out-dir", async () => {
    const notJson = join(dir, "not.json");
    writeFileSync(notJson, "[{,]");
    const a = await runCli(["render", "--batch", notJson, "--out-dir", join(dir, "u")]);
    expect(a.code).toBe(2);
    expect(a.stderr).toContain("is not valid JSON");

    const notArray = join(dir, "object.json");
    writeFileSync(notArray, JSON.stringify({ title: "x" }));
    const b = await runCli(["render", "--batch", notArray, "--out-dir", join(dir, "u")]);
    expect(b.code).toBe(2);
    expect(b.stderr).toContain("must contain a JSON array");

    expect((await runCli(["render", "--batch", join(dir, "missing.json"), "--out-dir", join(dir, "u")])).code).toBe(2);
    expect((await runCli(["render", "--batch", notArray])).code).toBe(2);
    expect(existsSync(join(dir, "u"))).toBe(false);
  });
});
