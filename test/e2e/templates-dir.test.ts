/**
 * OG_TEMPLATES_DIR end to end: a custom template from a temp dir is listed by GET
 * /api/templates and rendered by POST /api/generate on the real service; a broken one next to
 * it is skipped. The same directory works with a compiled binary run from an empty directory
 * (no node_modules, no tsconfig): the JSX runtime comes from the binary itself.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestService, type TestService } from "../support/harness.ts";
import { decodePng, fractionNear } from "../support/png.ts";
import { REPO_ROOT } from "../support/process.ts";
import { countSaturated } from "../unit/render/regions.ts";

const ORANGE: [number, number, number] = [255, 102, 0];

const CARD = `/** @jsxImportSource ogsmith */
import { clampStyle, fitFontSize } from "ogsmith";

export default {
  id: "quote",
  description: "A quote on orange.",
  fields: [
    { name: "title", type: "text", required: true, maxLength: 120, description: "The quote." },
    { name: "attribution", type: "text" },
    { name: "portrait", type: "image_url" },
  ],
  render(fields, ctx) {
    const size = fitFontSize(fields.title, { maxWidth: ctx.width - 160, maxLines: 3, maxSize: 80, minSize: 36 });
    return (
      <div style={{ display: "flex", flexDirection: "column", justifyContent: "center", width: ctx.width, height: ctx.height, padding: 80, boxSizing: "border-box", backgroundColor: "#FF6600", fontFamily: "Inter" }}>
        <div style={{ ...clampStyle(3, size, 1.1), fontWeight: 800 }}>{fields.title}</div>
        {fields.attribution ? <div style={{ fontSize: 32 }}>— {fields.attribution}</div> : null}
      </div>
    );
  },
};
`;
const BROKEN = `export default { id: "broken", fields: [, render() { return <div> } };`;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "ogsmith-tpl-e2e-"));
  writeFileSync(join(dir, "quote.tsx"), CARD);
  writeFileSync(join(dir, "broken.tsx"), BROKEN);
  writeFileSync(join(dir, "shape.ts"), `export default { id: "shape", fields: "title", render() {} };`);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("templates from OG_TEMPLATES_DIR on the running service", () => {
  let s: TestService;
  let key: string;
  beforeAll(async () => {
    s = await startTestService({ OG_TEMPLATES_DIR: dir });
    key = (await s.createAccount({ plan: "pro" })).apiKey;
  });
  afterAll(() => s.stop());

  test("GET /api/templates lists the custom template with its fields; the broken ones are absent", async () => {
    const res = await s.api("/api/templates", { key });
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as { data: { id: string; source: string; description: string; fields: unknown[] }[] };
    expect(data.map((t) => t.id)).toEqual(["event", "blog", "quote"]);
    expect(data.find((t) => t.id === "quote")).toEqual({
      id: "quote",
      source: "operator",
      description: "A quote on orange.",
      fields: [
        { name: "title", type: "text", required: true, max_length: 120, description: "The quote." },
        { name: "attribution", type: "text", required: false, max_length: 300 },
        { name: "portrait", type: "image_url", required: false, max_length: 7 * 1024 * 1024, max_url_length: 2048, max_image_bytes: 5 * 1024 * 1024 },
      ],
    });
  });

  test("POST /api/generate renders it, and validates against its own schema", async () => {
    const res = await s.api("/api/generate", {
      key,
      json: { template: "quote", title: "Simplicity is prerequisite for reliability", attribution: "Dijkstra" },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/png");
    const png = decodePng(new Uint8Array(await res.arrayBuffer()));
    expect([png.width, png.height]).toEqual([1200, 630]);
    expect(fractionNear(png, 0, 0, 1200, 60, ORANGE, 4)).toBe(1);
    expect(fractionNear(png, 0, 570, 1200, 60, ORANGE, 4)).toBe(1);
    // Dark title type in the middle.
    expect(fractionNear(png, 80, 200, 1040, 230, [0, 0, 0], 40)).toBeGreaterThan(0.03);

    const tooLong = await s.api("/api/generate", { key, json: { template: "quote", title: "x".repeat(121) } });
    expect(tooLong.status).toBe(400);
    // A blog field on the custom template is rejected by name, naming the template it belongs to.
    const wrong = await s.api("/api/generate", { key, json: { template: "quote", title: "Hi", author_name: "Ada" } });
    expect(wrong.status).toBe(400);
    const body = (await wrong.json()) as { error: { code: string; details: { field: string; message: string }[] } };
    expect(JSON.stringify(body)).toContain("VALIDATION_ERROR");
    expect(JSON.stringify(body)).toContain("author_name");
    expect(JSON.stringify(body)).toContain("blog template");

    const broken = await s.api("/api/generate", { key, json: { template: "broken", title: "x" } });
    expect(broken.status).toBe(400);
    expect(await broken.text()).toContain("UNKNOWN_TEMPLATE");
  });

  test("the built-in blog template renders over HTTP", async () => {
    const res = await s.api("/api/generate", {
      key,
      json: { template: "blog", title: "Hello", author_name: "Ada", category: "News", reading_time: "4", theme: "light" },
    });
    expect(res.status).toBe(200);
    expect(decodePng(new Uint8Array(await res.arrayBuffer())).width).toBe(1200);
  });
});

describe("templates from OG_TEMPLATES_DIR in a compiled binary", () => {
  let buildDir: string;
  beforeAll(async () => {
    buildDir = mkdtempSync(join(tmpdir(), "ogsmith-tpl-build-"));
    const result = await Bun.build({ entrypoints: [`${REPO_ROOT}/src/main.ts`], compile: { outfile: join(buildDir, "ogsmith") }, target: "bun", minify: true });
    expect(result.success).toBe(true);
  }, 120_000);
  afterAll(() => rmSync(buildDir, { recursive: true, force: true }));

  test("imports .tsx templates at run time with its embedded JSX runtime, emoji and fonts", async () => {
    const runDir = mkdtempSync(join(tmpdir(), "ogsmith-tpl-run-"));
    try {
      const out = join(runDir, "quote.png");
      const proc = Bun.spawn([join(buildDir, "ogsmith"), "render", "--json", JSON.stringify({ template: "quote", title: "From the binary 🚀" }), "-o", out], {
        cwd: runDir,
        env: { PATH: "/usr/bin:/bin", HOME: runDir, OG_TEMPLATES_DIR: dir },
        stdout: "pipe",
        stderr: "pipe",
      });
      const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
      expect({ code, stderr }).toMatchObject({ code: 0 });
      expect(stdout).toContain("1200×630 PNG");
      // The broken files were reported, with their paths, and did not stop the render.
      expect(stderr).toContain(join(dir, "broken.tsx"));
      expect(stderr).toContain(join(dir, "shape.ts"));
      const png = decodePng(new Uint8Array(await Bun.file(out).arrayBuffer()));
      expect(fractionNear(png, 0, 0, 1200, 60, ORANGE, 4)).toBe(1);

      // The emoji set is embedded too: colour in the title of a light blog card.
      const emojiOut = join(runDir, "emoji.png");
      const emoji = Bun.spawnSync(
        [join(buildDir, "ogsmith"), "render", "--json", JSON.stringify({ template: "blog", theme: "light", title: "Launch 🚀🎉🍕" }), "-o", emojiOut],
        {
          cwd: runDir,
          env: { PATH: "/usr/bin:/bin", HOME: runDir },
        },
      );
      expect(emoji.exitCode).toBe(0);
      expect(countSaturated(decodePng(new Uint8Array(await Bun.file(emojiOut).arrayBuffer())), 100, 150, 1000, 330)).toBeGreaterThan(2000);
    } finally {
      rmSync(runDir, { recursive: true, force: true });
    }
  }, 60_000);
});
