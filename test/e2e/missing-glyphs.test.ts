/**
 * Characters no font has are never silent: POST /api/generate through the worker pool answers
 * with `X-Missing-Glyphs: <count>`, also when the image comes from the cache, and 0 when every
 * character has a glyph (CJK and Arabic included, from the bundled fallback fonts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createLogger } from "../../src/logger.ts";
import { createServiceRenderer } from "../../src/render/renderer.ts";
import { createTemplateRegistry } from "../../src/templates/registry.ts";
import { renderRequest } from "../support/render-request.ts";
import { startRenderService, type RenderTestService } from "../support/render-service.ts";

describe("X-Missing-Glyphs", () => {
  let svc: RenderTestService;
  beforeAll(async () => {
    svc = await startRenderService({ OG_RENDER_WORKERS: "1" });
    await svc.renderer.pool.ready();
  });
  afterAll(() => svc.stop());

  test("counts the characters drawn as boxes, rendered or cached", async () => {
    const body = { title: "Runes ᚠᚢᚦ", theme: "light" };
    const first = await svc.generate(body);
    expect(first.status).toBe(200);
    expect(first.headers.get("x-missing-glyphs")).toBe("3");
    const cached = await svc.generate(body);
    expect(cached.status).toBe(200);
    expect(cached.headers.get("x-missing-glyphs")).toBe("3");
  });

  test("is 0 when the bundled fonts cover everything", async () => {
    const res = await svc.generate({ title: "日本語 한국어 中文 עברית العربية हिन्दी ไทย 🚀" });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-missing-glyphs")).toBe("0");
  });
});

test("the server log names the missing code points", async () => {
  const lines: string[] = [];
  const renderer = createServiceRenderer({
    config: { renderWorkers: 1, allowPrivateNetworks: false, templatesDir: undefined, fontsDir: undefined },
    logger: createLogger("info", (line) => lines.push(line)),
    pool: { warmUp: false },
  });
  try {
    const result = await renderer.render(
      renderRequest(createTemplateRegistry(), { template: "event", theme: "dark", fields: { title: "ᚠ and 𓀀" }, width: 1200, height: 630, format: "png" }),
    );
    expect(result.missingGlyphs).toEqual([0x16a0, 0x13000]);
    const warning = lines.find((line) => line.includes("no font has these characters"));
    expect(warning).toBeDefined();
    expect(warning).toContain("U+16A0 U+13000");
  } finally {
    await renderer.close();
  }
});
