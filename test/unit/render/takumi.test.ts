/**
 * What is particular to the takumi engine (src/render/engines/takumi.ts): it never fetches, its PNGs
 * are lossless (smaller forms included), its native
 * failures become errors (never a dead process), hostile trees from a template cannot take it
 * down (fast-check, fixed seed), and the caches never serve one engine's bytes as the other's.
 * The pixel tests themselves run on takumi through OG_TEST_ENGINE (test/support/engines.ts).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { renderTemplate } from "../../../src/render/engines/in-process.ts";
import { engineCacheKey } from "../../../src/render/caches/png-cache.ts";
import { loadTakumiNative } from "../../../src/render/engines/takumi-native.ts";
import { createServiceRenderer } from "../../../src/render/renderer.ts";
import { silentLogger } from "../../../src/logger.ts";
import { createTemplateRegistry } from "../../../src/templates/registry.ts";
import type { SatoriNode, TemplateDefinition } from "../../../src/templates/types.ts";
import { decodePng, fractionNear, solidPngDataUri } from "../../support/png.ts";
import { renderRequest } from "../../support/render-request.ts";

const SIZE = { width: 400, height: 210, theme: "dark" as const, images: {} };

function treeTemplate(render: () => SatoriNode): TemplateDefinition {
  return { id: "hostile", description: "a tree under test", fields: [{ name: "title", type: "text" }], render };
}

const card = (children: unknown, style: Record<string, unknown> = {}): SatoriNode => ({
  type: "div",
  props: { style: { display: "flex", width: "100%", height: "100%", backgroundColor: "#FFFFFF", ...style }, children },
});

describe("takumi never fetches", () => {
  const hits: string[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      hits.push(request.url);
      return new Response(Bun.file(import.meta.path));
    },
  });
  afterAll(() => server.stop(true));

  test("an http(s) image source in a template is drawn as nothing, and no request is made", async () => {
    const src = `http://127.0.0.1:${server.port}/logo.png`;
    const template = treeTemplate(() =>
      card([
        { type: "img", props: { src, width: 200, height: 100 } },
        { type: "div", props: { style: { backgroundImage: `url(${src})`, width: 100, height: 100 } } },
      ]),
    );
    const { bytes } = await renderTemplate(template, {}, { ...SIZE, engine: "takumi" });
    expect(fractionNear(decodePng(bytes), 0, 0, 400, 210, [255, 255, 255], 2)).toBe(1);
    expect(hits).toEqual([]);
  });

  test("a data: URI (what the guarded fetcher hands over) is drawn", async () => {
    const src = solidPngDataUri(20, 20, [255, 0, 255]);
    const template = treeTemplate(() => card([{ type: "img", props: { src, width: 200, height: 100 } }]));
    const { bytes } = await renderTemplate(template, {}, { ...SIZE, engine: "takumi" });
    // The 1200×630 design canvas drawn at 400×210: the 200×100 image is 67×33 pixels.
    expect(fractionNear(decodePng(bytes), 4, 4, 58, 26, [255, 0, 255], 4)).toBeGreaterThan(0.98);
  });
});

describe("takumi's PNG encoder", () => {
  test("is lossless: its palette and RGB reductions decode to exactly the pixels it drew", async () => {
    const renderer = new (loadTakumiNative().Renderer)();
    const trees = [
      // Few colours: a palette image; many and opaque: RGB; many and translucent: RGBA; few
      // with translucent corners: a palette with alpha.
      {
        type: "container",
        style: { display: "flex", width: "100%", height: "100%", backgroundColor: "#FCFCFA" },
        children: [{ type: "container", style: { width: 100, height: 50, backgroundColor: "#1F4FBF" } }],
      },
      {
        type: "container",
        style: {
          display: "flex",
          width: "100%",
          height: "100%",
          backgroundImage: "linear-gradient(90deg, rgba(255, 0, 0, 0.5), rgba(0, 0, 255, 0.5)), linear-gradient(0deg, #000000, #00FF00)",
        },
      },
      {
        type: "container",
        style: {
          display: "flex",
          width: "100%",
          height: "100%",
          borderRadius: 40,
          backgroundImage:
            "linear-gradient(90deg, rgba(255, 0, 0, 0.1), rgba(0, 0, 255, 0.9)), linear-gradient(0deg, rgba(0, 0, 0, 0.2), rgba(0, 255, 0, 0.6))",
        },
      },
      { type: "container", style: { display: "flex", width: "100%", height: "100%", borderRadius: 40, backgroundColor: "rgba(255, 0, 0, 0.5)" } },
    ];
    const kinds = new Set<number>();
    for (const tree of trees) {
      const json = JSON.stringify(tree);
      const raw = new Uint8Array(await renderer.render(json, { width: 300, height: 160, format: "raw" }));
      const png = new Uint8Array(await renderer.render(json, { width: 300, height: 160, format: "png" }));
      kinds.add(png[25]!);
      expect(decodePng(png).pixels).toEqual(raw);
    }
    // Indexed, RGB and RGBA all met (colour type is byte 25, in IHDR).
    expect([...kinds].sort()).toEqual([2, 3, 6]);
  });
});

describe("hostile trees", () => {
  const deep = (depth: number): SatoriNode => {
    let node: SatoriNode = { type: "div", props: { children: "bottom" } };
    for (let i = 0; i < depth; i++) node = { type: "div", props: { style: { display: "flex", padding: 1 }, children: node } };
    return node;
  };
  const renders = (tree: () => SatoriNode) => renderTemplate(treeTemplate(tree), { title: "x" }, { ...SIZE, engine: "takumi" });

  test("10,000 levels of nesting is an error, not a crash", async () => {
    await expect(renders(() => deep(10_000))).rejects.toThrow();
  });

  test("a broken image, a truncated SVG and absurd sizes are an error or a card, and the engine keeps drawing", async () => {
    for (const tree of [
      () => card([{ type: "img", props: { src: "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB", width: 50, height: 50 } }]),
      () => card([{ type: "img", props: { src: "data:image/svg+xml;base64,PHN2ZyB4bWxucz0i", width: 50, height: 50 } }]),
      () => card("huge", { fontSize: 1e9, letterSpacing: -1e12, borderWidth: 1e15, width: 1e300 }),
      () => card([{ type: "img", props: { src: solidPngDataUri(4, 4, [1, 2, 3]), width: 1e9, height: 1e9 } }]),
    ]) {
      await renders(tree).then(
        (image) => expect(image.bytes.length).toBeGreaterThan(0),
        (error) => expect(error).toBeInstanceOf(Error),
      );
    }
    const after = await renderTemplate(createTemplateRegistry().get("event")!, { title: "Still drawing" }, { ...SIZE, engine: "takumi" });
    expect(decodePng(after.bytes).width).toBe(400);
  });

  test("fuzzed trees: every render settles (a card or an Error), and the engine still draws afterwards", async () => {
    const value = fc.oneof(
      fc.integer({ min: -1e9, max: 1e9 }),
      fc.double({ noNaN: false }),
      fc.constantFrom(
        "100%",
        "-50%",
        "1e309px",
        "calc(100% - 1e9px)",
        "auto",
        "inherit",
        "",
        "rgba(0,0,0,",
        "url(data:image/png;base64,AAAA)",
        "linear-gradient(",
        "repeat(1000000, 1px)",
      ),
      fc.string({ maxLength: 20 }),
    );
    const styleKey = fc.constantFrom(
      "width",
      "height",
      "fontSize",
      "lineHeight",
      "padding",
      "margin",
      "borderRadius",
      "borderWidth",
      "gap",
      "flexGrow",
      "transform",
      "backgroundImage",
      "boxShadow",
      "filter",
      "display",
      "position",
      "lineClamp",
      "letterSpacing",
      "fontWeight",
      "objectFit",
      "gridTemplateColumns",
    );
    const style = fc.dictionary(styleKey, value, { maxKeys: 6 });
    const leaf = fc.oneof(
      fc.string({ maxLength: 60 }),
      fc.record({
        type: fc.constant("img"),
        props: fc.record({
          src: fc.constantFrom("data:image/png;base64,", "data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=", "data:,", "not a url", solidPngDataUri(2, 2, [9, 9, 9])),
          width: value,
          height: value,
          style,
        }),
      }),
    );
    const node: fc.Arbitrary<unknown> = fc.letrec<{ node: unknown }>((tie) => ({
      node: fc.oneof(
        { depthSize: "small", withCrossShrink: true },
        leaf,
        fc.record({ type: fc.constantFrom("div", "span", "p", "svg"), props: fc.record({ style, children: fc.array(tie("node"), { maxLength: 4 }) }) }),
      ),
    })).node;
    const outcomes = { drawn: 0, refused: 0 };
    await fc.assert(
      fc.asyncProperty(node, async (tree) => {
        await renders(() => card(tree)).then(
          (image) => {
            expect(image.bytes.length).toBeGreaterThan(0);
            outcomes.drawn++;
          },
          (error) => {
            expect(error).toBeInstanceOf(Error);
            outcomes.refused++;
          },
        );
      }),
      { numRuns: 150, seed: 30 },
    );
    // Many trees are drawn, so the property reaches the renderer; the rest are refused up front
    // (takumi refuses a style value it cannot parse, naming the property; docs/engines.md).
    expect(outcomes.drawn).toBeGreaterThan(30);
    expect(outcomes.drawn + outcomes.refused).toBe(150);
    const after = await renderTemplate(createTemplateRegistry().get("blog")!, { title: "After the fuzz" }, { ...SIZE, engine: "takumi" });
    expect(decodePng(after.bytes).height).toBe(210);
  }, 120_000);
});

describe("caches and engines", () => {
  test("the cache key is the content address for satori and another for takumi", () => {
    const address = "a".repeat(64);
    expect(engineCacheKey(address, "satori")).toBe(address);
    expect(engineCacheKey(address, "takumi")).toMatch(/^[0-9a-f]{64}$/);
    expect(engineCacheKey(address, "takumi")).not.toBe(address);
  });

  test("an account template's images are keyed with how the language draws them, on either engine", () => {
    const address = "b".repeat(64);
    const keys = [engineCacheKey(address, "satori", true), engineCacheKey(address, "takumi", true)];
    expect(new Set([address, engineCacheKey(address, "takumi"), ...keys]).size).toBe(4);
    for (const key of keys) expect(key).toMatch(/^[0-9a-f]{64}$/);
  });

  test("a persistent cache shared by both engines never serves one's bytes as the other's; the content address (what is counted) is the same", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ogsmith-engines-"));
    const registry = createTemplateRegistry();
    const request = renderRequest(registry, {
      template: "event",
      theme: "dark",
      fields: { title: "One card, two engines" },
      width: 600,
      height: 315,
      format: "png",
    });
    const service = (engine: "satori" | "takumi") =>
      createServiceRenderer({
        config: {
          renderWorkers: 1,
          allowPrivateNetworks: false,
          templatesDir: undefined,
          fontsDir: undefined,
          cacheDir: dir,
          cacheMaxBytes: 64 * 1024 * 1024,
          renderEngine: engine,
        },
        logger: silentLogger,
        pool: { warmUp: false },
      });
    try {
      const drawn: Record<string, { bytes: Uint8Array; address: string; key?: string; cached: boolean }> = {};
      for (const engine of ["satori", "takumi", "satori"] as const) {
        const renderer = service(engine);
        const prepared = await renderer.prepare(request);
        const result = await prepared.render();
        await renderer.close();
        if (drawn[engine]) {
          // The second satori service finds its own bytes on disk.
          expect(result.cached).toBe(true);
          expect(result.bytes).toEqual(drawn[engine]!.bytes);
        } else {
          expect(result.cached).toBe(false);
          drawn[engine] = { bytes: result.bytes, address: prepared.contentAddress, key: result.contentAddress, cached: result.cached };
        }
      }
      expect(drawn.takumi!.bytes).not.toEqual(drawn.satori!.bytes);
      expect(drawn.takumi!.address).toBe(drawn.satori!.address);
      expect(drawn.takumi!.key).not.toBe(drawn.satori!.key);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
