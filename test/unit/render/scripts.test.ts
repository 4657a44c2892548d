/**
 * Text beyond ASCII: colour emoji from the embedded Twemoji set, the bundled Inter subsets, and
 * fallback fonts from a directory (OG_FONTS_DIR). The CJK fixture is a Noto Sans JP subset
 * from the @fontsource/noto-sans-jp dev dependency, copied into a temp dir like an operator would.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { emojiDataUri, emojiKey, loadAdditionalAsset } from "../../../src/render/fonts/emoji.ts";
import { createInProcessRenderer } from "../../../src/render/engines/in-process.ts";
import { describeFontFile, useExtraFonts } from "../../../src/render/fonts/fonts.ts";
import { createTemplateRegistry } from "../../../src/templates/registry.ts";
import { renderRequest } from "../../support/render-request.ts";
import { testEngine } from "../../support/engines.ts";
import { decodePng, type DecodedPng } from "../../support/png.ts";
import { countInk, countSaturated, maxDiff } from "./regions.ts";

const registry = createTemplateRegistry();
const renderer = createInProcessRenderer({ engine: testEngine() });
const PAPER: [number, number, number] = [252, 252, 250];

async function render(template: string, title: string): Promise<DecodedPng> {
  const result = await renderer.render(renderRequest(registry, { template, theme: "light", fields: { title }, width: 1200, height: 630, format: "png" }));
  return decodePng(result.bytes);
}

/** The title area of a title-only light card, clear of the accent rule, bar and stripe. */
const TITLE = [72, 150, 1056, 330] as const;

describe("emoji", () => {
  test("keys follow the pack: hex code points, U+FE0F dropped", () => {
    expect(emojiKey("😀")).toBe("1f600");
    expect(emojiKey("❤️")).toBe("2764");
    expect(emojiKey("👍🏽")).toBe("1f44d-1f3fd");
    expect(emojiKey("🏳️‍🌈")).toBe("1f3f3-200d-1f308");
    expect(emojiKey("#️⃣")).toBe("23-20e3");
  });

  test("the embedded set answers satori's asset hook with SVG data URIs, and only for emoji", async () => {
    for (const e of ["😀", "❤️", "❤", "👍🏽", "🇩🇪", "🏳️‍🌈", "#️⃣", "🧑‍🚀"]) {
      const uri = emojiDataUri(e);
      expect(uri).toStartWith("data:image/svg+xml;base64,");
      expect(Buffer.from(uri!.split(",")[1]!, "base64").toString()).toStartWith("<svg");
    }
    expect(await loadAdditionalAsset("emoji", "🚀")).toStartWith("data:image/svg+xml;base64,");
    expect(await loadAdditionalAsset("ja-JP", "日本")).toEqual([]);
    expect(emojiDataUri("x")).toBeUndefined();
  });

  for (const template of ["event", "blog"]) {
    test(`an emoji title on the ${template} card has colour a plain title lacks`, async () => {
      const plain = await render(template, "Launch week is here");
      const emoji = await render(template, "Launch week 🚀🎉🍕");
      // Navy type on paper is never saturated; the rocket, confetti and pizza are.
      expect(countSaturated(plain, ...TITLE)).toBe(0);
      expect(countSaturated(emoji, ...TITLE)).toBeGreaterThan(2000);
    });
  }
});

describe("fallback fonts (OG_FONTS_DIR)", () => {
  const dir = mkdtempSync(join(tmpdir(), "ogsmith-fonts-"));
  const notoFiles = join(dirname(Bun.resolveSync("@fontsource/noto-sans-jp/package.json", import.meta.dir)), "files");
  // Subsets 117–119 hold 本, 日 and the hiragana こんにちは.
  for (const n of [117, 118, 119]) copyFileSync(join(notoFiles, `noto-sans-jp-${n}-400-normal.woff`), join(dir, `noto-sans-jp-${n}-400-normal.woff`));
  copyFileSync(join(notoFiles, "noto-sans-jp-119-400-normal.woff2"), join(dir, "noto-sans-jp-119-400-normal.woff2"));
  writeFileSync(join(dir, "broken.ttf"), "not a font");
  writeFileSync(join(dir, "README.txt"), "ignored");
  afterAll(() => {
    useExtraFonts(undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  // Two strings of the same characters in a different order: as missing-glyph boxes they draw
  // identically; as real glyphs they differ.
  const A = "こんにちは日本";
  const B = "日本はちにんこ";

  test("a CJK title draws glyphs with or without a fallback font directory", async () => {
    useExtraFonts(undefined);
    const withoutA = await render("blog", A);
    const withoutB = await render("blog", B);
    // The bundled Noto Sans JP draws them: real glyphs, so a different order draws differently.
    expect(maxDiff(withoutA, withoutB, ...TITLE)).toBeGreaterThan(100);

    const report = useExtraFonts(dir);
    // WOFF2 is loaded too (satori decodes it).
    expect(report.loaded).toHaveLength(4);
    expect(report.skipped.map((s) => [s.file.split("/").pop(), s.reason.split(" ")[0]])).toEqual([["broken.ttf", "not"]]);
    for (const template of ["event", "blog"]) {
      const withA = await render(template, A);
      const withB = await render(template, B);
      expect(countInk(withA, ...TITLE, PAPER)).toBeGreaterThan(3000);
      expect(maxDiff(withA, withB, ...TITLE)).toBeGreaterThan(100);
    }
  });

  test("Latin text keeps Inter when fallback fonts are loaded", async () => {
    useExtraFonts(undefined);
    const inter = await render("blog", "Launch week");
    useExtraFonts(dir);
    const withFallbacks = await render("blog", "Launch week");
    expect(maxDiff(inter, withFallbacks, 0, 0, 1200, 630)).toBe(0);
  });

  test("family, weight and style come from the file name", () => {
    expect(describeFontFile("NotoSansJP-Bold.ttf")).toEqual({ family: "Fallback NotoSansJP", weight: 700, style: "normal" });
    expect(describeFontFile("noto-sans-jp-119-400-normal.woff")).toEqual({ family: "Fallback noto-sans-jp-119", weight: 400, style: "normal" });
    expect(describeFontFile("NotoSansArabic-SemiBold.otf")).toEqual({ family: "Fallback NotoSansArabic", weight: 600, style: "normal" });
    expect(describeFontFile("DejaVuSans-BoldOblique.ttf")).toEqual({ family: "Fallback DejaVuSans", weight: 700, style: "italic" });
    expect(describeFontFile("DejaVuSans.ttf")).toEqual({ family: "Fallback DejaVuSans", weight: 400, style: "normal" });
  });
});
