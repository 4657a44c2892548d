/**
 * Text for the whole web: the bundled fallback fonts per script (ink where the title is),
 * right-to-left layout (right-aligned, bidi order of a mixed Hebrew/Latin title), characters no
 * font has (a plain box, counted), and OG_FONTS_DIR collections, WOFF2 and variable fonts.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { inflateSync } from "node:zlib";
import { createInProcessRenderer, renderTemplateToPng } from "../../../src/render/engines/in-process.ts";
import { firstFontOfCollection, fontsForCard, fontsForSegment, hanPreference, loadFonts, useExtraFonts } from "../../../src/render/fonts/fonts.ts";
import { textDirectionStyle } from "../../../src/templates/kit.ts";
import { BUILT_IN_TEMPLATES, createTemplateRegistry } from "../../../src/templates/registry.ts";
import { LABEL_TEMPLATES } from "../../support/label-templates.ts";
import type { TemplateDefinition } from "../../../src/templates/types.ts";
import { renderRequest } from "../../support/render-request.ts";
import { testEngine } from "../../support/engines.ts";
import { decodePng, pixelAt, type DecodedPng } from "../../support/png.ts";
import { countInk, maxDiff } from "./regions.ts";

const registry = createTemplateRegistry();
const renderer = createInProcessRenderer({ engine: testEngine() });
const PAPER: [number, number, number] = [252, 252, 250];
/** The title area of a title-only light card (as in scripts.test.ts). */
const TITLE = [72, 150, 1056, 330] as const;

async function render(template: string, title: string, theme: "light" | "dark" = "light") {
  const result = await renderer.render(renderRequest(registry, { template, theme, fields: { title }, width: 1200, height: 630, format: "png" }));
  return { png: decodePng(result.bytes), missing: result.missingGlyphs ?? [] };
}

/** Leftmost and rightmost columns with ink in the title area. */
function inkSpan(png: DecodedPng): { left: number; right: number } {
  let left = Infinity;
  let right = -Infinity;
  const [x0, y0, w, h] = TITLE;
  for (let x = x0; x < x0 + w; x++) {
    for (let y = y0; y < y0 + h; y++) {
      const [r, g, b] = pixelAt(png, x, y);
      if (Math.abs(r - PAPER[0]) > 40 || Math.abs(g - PAPER[1]) > 40 || Math.abs(b - PAPER[2]) > 40) {
        left = Math.min(left, x);
        right = Math.max(right, x);
        break;
      }
    }
  }
  return { left, right };
}

const SCRIPTS: Record<string, [string, string]> = {
  "Chinese (simplified)": ["开源图片服务", "务服片图源开"],
  "Chinese (traditional)": ["開源圖片產生", "生產片圖源開"],
  Japanese: ["こんにちは日本", "日本はちにんこ"],
  Korean: ["안녕하세요 한국", "한국 요세하녕안"],
  Arabic: ["مرحبا بالعالم", "بالعالم مرحبا"],
  Hebrew: ["שלום עולם", "עולם שלום"],
  Devanagari: ["नमस्ते दुनिया", "दुनिया नमस्ते"],
  Thai: ["สวัสดีชาวโลก", "ชาวโลกสวัสดี"],
};

describe("bundled scripts", () => {
  for (const [script, [a, b]] of Object.entries(SCRIPTS)) {
    test(`${script} draws real glyphs with no configuration, nothing missing`, async () => {
      const first = await render("blog", a);
      const second = await render("blog", b);
      expect(first.missing).toEqual([]);
      expect(countInk(first.png, ...TITLE, PAPER)).toBeGreaterThan(2000);
      // Boxes would draw the same whatever the order; glyphs do not.
      expect(maxDiff(first.png, second.png, ...TITLE)).toBeGreaterThan(100);
    });
  }

  test("a title mixing Latin, CJK and emoji draws every part", async () => {
    const mixed = await render("event", "Go 日本 🚀 한국");
    expect(mixed.missing).toEqual([]);
    const latinOnly = await render("event", "Go");
    expect(countInk(mixed.png, ...TITLE, PAPER)).toBeGreaterThan(countInk(latinOnly.png, ...TITLE, PAPER) * 3);
  });
});

describe("Han characters", () => {
  test("follow the card: kana make it Japanese, Hangul Korean, other Han Chinese", () => {
    expect(hanPreference(["日本語のタイトル"])).toBe("ja-JP");
    expect(hanPreference(["漢字", "한국어"])).toBe("ko-KR");
    expect(hanPreference(["开源", undefined])).toBe("zh-CN");
    expect(hanPreference(["Latin only", "עברית"])).toBeUndefined();
  });

  test("draw with that family's slice when satori cannot tell the language", async () => {
    const ambiguous = "ja-JP|zh-CN|zh-TW|zh-HK";
    for (const [han, family] of [
      ["ja-JP", "Noto Sans JP"],
      ["ko-KR", "Noto Sans KR"],
      ["zh-CN", "Noto Sans SC"],
    ] as const) {
      const { fonts, missing } = await fontsForSegment(ambiguous, "語", han);
      expect(missing).toEqual([]);
      expect(new Set(fonts.map((f) => f.name.split("#")[0]))).toEqual(new Set([family]));
    }
    // When satori names one language (kana: Japanese), that language wins over the card.
    expect((await fontsForSegment("ja-JP", "の", "zh-CN")).fonts[0]!.name).toStartWith("Noto Sans JP");
  });
});

describe("Inter's subsets beyond Latin", () => {
  test("satori gets only the Latin faces up front; the subset a character needs comes when asked", async () => {
    expect((await loadFonts()).map((f) => `${f.name} ${f.weight} ${f.style}`)).toEqual([
      "Inter 400 normal",
      "Inter 600 normal",
      "Inter 700 normal",
      "Inter 800 normal",
      "Inter 400 italic",
      "Inter 700 italic",
    ]);
    const families = async (segment: string) => {
      const { fonts, missing } = await fontsForSegment("unknown", segment);
      expect(missing).toEqual([]);
      return [...new Set(fonts.map((f) => f.name))];
    };
    expect(await families("Привет")).toEqual(["Inter Cyrillic"]);
    expect(await families("Ѣ")).toEqual(["Inter Cyrillic Ext"]);
    expect(await families("Αθήνα ἀρχή")).toEqual(["Inter Greek", "Inter Greek Ext"]);
    expect(await families("Łódź")).toEqual(["Inter Latin Ext"]);
    // ư and ỹ are in both Latin Ext and Vietnamese: they go to Latin Ext, registered first, as
    // when every subset was given up front; ạ only Vietnamese has.
    expect(await families("ạ ư ỹ")).toEqual(["Inter Vietnamese", "Inter Latin Ext"]);
    // Mixed: the subset for the Cyrillic, a Noto slice for the Han character.
    const [cyrillic, han, ...more] = await families("Пр 日");
    expect([cyrillic, more]).toEqual(["Inter Cyrillic", []]);
    expect(han).toStartWith("Noto Sans SC#");
    // Every subset comes with its upright faces and its italics (regular and bold).
    for (const text of ["Ж", "Ѣ", "Α", "ἀ", "Ł", "ạ"]) {
      const faces = (await fontsForSegment("unknown", text)).fonts.map((f) => `${f.weight} ${f.style}`);
      expect({ text, faces }).toEqual({ text, faces: ["400 normal", "600 normal", "700 normal", "800 normal", "400 italic", "700 italic"] });
    }
  });

  // With OG_FONTS_DIR set, every subset is given up front (Inter keeps precedence over the
  // directory's fonts); without, they come on demand. The pixels must not depend on which.
  test("cards draw byte for byte the same whether the subsets come up front or on demand", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ogsmith-subsets-"));
    const files = join(dirname(Bun.resolveSync("@fontsource/noto-sans-jp/package.json", import.meta.dir)), "files");
    writeFileSync(join(dir, "noto-jp-119-400-normal.woff"), readFileSync(join(files, "noto-sans-jp-119-400-normal.woff")));
    const titles = ["Привет, мир — Ёлка №5", "Γειά σου Κόσμε ἀρχή", "Tiếng Việt: Đặng Thị Ưng", "Łódź Ærøskøbing Şişli", "Москва Αθήνα Hà Nội"];
    const draw = async () => {
      const out: string[] = [];
      for (const title of titles) {
        const result = await renderer.render(
          renderRequest(registry, { template: "event", theme: "dark", fields: { title, subtitle: title }, width: 1200, height: 630, format: "png" }),
        );
        expect(result.missingGlyphs ?? []).toEqual([]);
        out.push(new Bun.CryptoHasher("sha256").update(result.bytes).digest("hex"));
      }
      return out;
    };
    try {
      useExtraFonts(undefined);
      expect((await loadFonts()).length).toBe(6);
      const onDemand = await draw();
      useExtraFonts(dir);
      expect((await loadFonts()).filter((f) => f.name.startsWith("Inter")).length).toBe(42);
      const upFront = await draw();
      expect(upFront).toEqual(onDemand);
      expect(new Set(onDemand).size).toBe(titles.length);
    } finally {
      useExtraFonts(undefined);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("which cards share the Latin font list", () => {
  test("Latin and emoji share it; other scripts get their own, unless OG_FONTS_DIR's fonts (given up front) draw them", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ogsmith-shared-"));
    const files = join(dirname(Bun.resolveSync("@fontsource/noto-sans-jp/package.json", import.meta.dir)), "files");
    // Subsets 117–119 hold 本, 日 and the hiragana こんにちは; one as WOFF2 to read its map too.
    for (const n of [117, 118]) writeFileSync(join(dir, `noto-jp-${n}-400-normal.woff`), readFileSync(join(files, `noto-sans-jp-${n}-400-normal.woff`)));
    writeFileSync(join(dir, "noto-jp-119-400-normal.woff2"), readFileSync(join(files, "noto-sans-jp-119-400-normal.woff2")));
    const shares = async (...texts: string[]) => (await fontsForCard(texts)).shared;
    try {
      useExtraFonts(undefined);
      expect(await shares("Launch week", "Ünïcödé Latin — “quoted” €5")).toBe(true);
      expect(await shares("Launch 🚀🎉 👍🏽")).toBe(true);
      expect(await shares("Launch", "Привет")).toBe(false);
      expect(await shares("こんにちは日本")).toBe(false);
      useExtraFonts(dir);
      expect(await shares("Привет", "Ελληνικά")).toBe(true);
      expect(await shares("こんにちは日本")).toBe(true);
      expect(await shares("한국")).toBe(false);
      const card = { template: "event", theme: "light" as const, fields: { title: "こんにちは日本" }, width: 1200, height: 630, format: "png" as const };
      const first = await renderer.render(renderRequest(registry, card));
      await renderer.render(renderRequest(registry, { ...card, fields: { title: "한국 开源 ← →" } }));
      const again = await renderer.render(renderRequest(registry, card));
      expect(first.missingGlyphs ?? []).toEqual([]);
      expect(Buffer.from(again.bytes).equals(Buffer.from(first.bytes))).toBe(true);
    } finally {
      useExtraFonts(undefined);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the same card, the same pixels", () => {
  type Card = { template: string; title: string; subtitle?: string };
  /** The PNG hashes of `cards` rendered one after another in a fresh process. */
  async function freshHashes(cards: Card[]): Promise<string[]> {
    const child = Bun.spawn([process.execPath, join(import.meta.dir, "../../support/render-hash.ts"), JSON.stringify(cards)], {
      stdout: "pipe",
      stderr: "inherit",
    });
    const out = await new Response(child.stdout).text();
    expect(await child.exited).toBe(0);
    return out.trim().split("\n");
  }
  async function hereHash({ template, ...fields }: Card, templates = registry): Promise<string> {
    const result = await renderer.render(renderRequest(templates, { template, theme: "light", fields, width: 1200, height: 630, format: "png" }));
    return new Bun.CryptoHasher("sha256").update(result.bytes).digest("hex");
  }
  const chinese: Card = { template: "blog", title: "开源的社交图片生成服务", subtitle: "简体中文：自托管，无需网络" };
  const traditional: Card = { template: "blog", title: "開源的社交圖片產生服務", subtitle: "繁體中文：自行架設，無需網路" };

  // The Chinese card's punctuation (：，) is in the Japanese, Korean and both Chinese families;
  // which one draws it used to depend on which font file finished reading first.
  test("a CJK card draws identically in separate fresh processes", async () => {
    const runs = await Promise.all(Array.from({ length: 6 }, () => freshHashes([chinese])));
    expect(runs[0]![0]).toMatch(/^[0-9a-f]{64}$/);
    expect(new Set(runs.map((r) => r[0])).size).toBe(1);
  });

  // A card with arrows loads a Japanese slice that also has characters of the traditional card;
  // in a shared font loader those then came from it instead of the slices a fresh worker loads.
  test("a CJK card draws the same after other cards as in a fresh process", async () => {
    const arrows: Card = { template: "event", title: "東京", subtitle: "← →" };
    const [fresh] = await freshHashes([traditional]);
    const [, afterArrows] = await freshHashes([arrows, traditional]);
    expect(afterArrows).toBe(fresh!);
    // This process has drawn cards in every bundled script by now (the tests above).
    await hereHash(arrows);
    expect(await hereHash(traditional)).toBe(fresh!);
    expect(await hereHash(chinese)).toBe((await freshHashes([chinese]))[0]!);
  });

  // A template's own labels are laid out too: a Chinese label loads a slice that has 日 and 時,
  // and in the shared loader the Japanese label then drew them with it.
  test("a template whose own labels go beyond Latin draws the same after other templates", async () => {
    const [fresh] = await freshHashes([{ template: "labels-ja", title: "Launch" }]);
    const [, afterChinese] = await freshHashes([
      { template: "labels-zh", title: "Launch" },
      { template: "labels-ja", title: "Launch" },
    ]);
    expect(afterChinese).toBe(fresh!);
    const labels = createTemplateRegistry([...BUILT_IN_TEMPLATES, ...LABEL_TEMPLATES]);
    await hereHash({ template: "labels-zh", title: "Launch" }, labels);
    expect(await hereHash({ template: "labels-ja", title: "Launch" }, labels)).toBe(fresh!);
    // Latin cards keep the shared loader, with emoji too (drawn from images, not fonts), and
    // still draw as anywhere; an emoji the embedded set lacks (🫟, Unicode 16) falls back to
    // text like any other character.
    const latin: Card[] = [
      { template: "event", title: "Launch week is here" },
      { template: "event", title: "Launch week 🚀🎉" },
      { template: "blog", title: "Splash 🫟 here" },
    ];
    const freshLatin = await freshHashes(latin);
    for (const [i, card] of latin.entries()) expect(await hereHash(card)).toBe(freshLatin[i]!);
  });
});

describe("right-to-left", () => {
  test("the paragraph direction comes from the first strong character", () => {
    expect(textDirectionStyle("שלום world")).toMatchObject({ direction: "rtl", textAlign: "right" });
    expect(textDirectionStyle("Hello שלום")).toEqual({});
    expect(textDirectionStyle("2026 مرحبا")).toEqual({ direction: "rtl", textAlign: "right", letterSpacing: 0 });
  });

  for (const template of ["event", "blog"]) {
    for (const [script, title] of [
      ["Hebrew", "שלום עולם"],
      ["Arabic", "مرحبا بالعالم"],
    ]) {
      test(`a ${script} title is right-aligned on the ${template} card`, async () => {
        const rtl = inkSpan((await render(template, title)).png);
        const ltr = inkSpan((await render(template, "Hello world")).png);
        // LTR text starts at the left edge of the box; RTL text ends at its right edge.
        expect(ltr.left).toBeLessThan(TITLE[0] + 30);
        expect(rtl.right).toBeGreaterThan(TITLE[0] + TITLE[2] - 30);
        expect(rtl.left).toBeGreaterThan(TITLE[0] + 100);
      });
    }
  }

  // A line of text at a fixed size (the built-in templates size text by its length, which
  // would move the words between renders), in the direction textDirectionStyle gives it.
  const line: TemplateDefinition = {
    id: "line",
    description: "one line of text",
    fields: [{ name: "title", type: "text" }],
    render: (fields) => ({
      type: "div",
      props: {
        style: { display: "flex", width: 1200, height: 630, backgroundColor: "rgb(252,252,250)", padding: 100, fontFamily: "Inter", color: "black" },
        children: {
          type: "div",
          props: {
            style: {
              display: "block",
              width: 1000,
              fontSize: 64,
              fontWeight: 700,
              ...textDirectionStyle(fields.title),
              ...(fields.align ? { textAlign: fields.align } : {}),
            },
            children: fields.title,
          },
        },
      },
    }),
  };
  const drawLine = async (title: string, align?: "left" | "right") =>
    decodePng((await renderTemplateToPng(line, { title, align }, { width: 1200, height: 630, theme: "light", images: {}, engine: testEngine() })).png);
  /**
   * Dark pixels per column, and the first and last inked column. Columns, not pixels: a word
   * alone sits on its own font's baseline, a few pixels off its height in a mixed line.
   */
  const columns = (png: DecodedPng) => {
    const ink = Array.from({ length: png.width }, (_, x) => {
      let n = 0;
      for (let y = 60; y < 300; y++) if (pixelAt(png, x, y)[0] < 128) n++;
      return n;
    });
    return { ink, left: ink.findIndex((n) => n > 0), right: ink.findLastIndex((n) => n > 0) };
  };
  /** Share of the columns of `word` (rendered alone) whose ink matches `line`'s, allowing a 3 px shift (subpixel placement). */
  const sameColumns = (line: DecodedPng, word: DecodedPng) => {
    const a = columns(line);
    const b = columns(word);
    let best = 0;
    for (let shift = -3; shift <= 3; shift++) {
      let same = 0;
      for (let x = b.left; x <= b.right; x++) if (Math.abs((a.ink[x + shift] ?? 0) - b.ink[x]!) <= 2) same++;
      best = Math.max(best, same / (b.right - b.left + 1));
    }
    return best;
  };

  for (const [title, first, last] of [
    ["שלום React", "שלום", "React"],
    ["מחיר 100$ בלבד", "מחיר", "בלבד"],
    ["כנס React Native 2026 בתל אביב", "כנס", "אביב"],
  ]) {
    test(`bidi order of "${title}": the first word at the right, the last at the left, glyph for glyph`, async () => {
      // Right-aligned, the paragraph's first word sits at the right edge, column for column as alone.
      const full = await drawLine(title);
      expect(sameColumns(full, await drawLine(first))).toBeGreaterThan(0.9);
      // Left-aligned, its last word sits at the left edge, column for column as alone.
      const fullLeft = await drawLine(title, "left");
      expect(sameColumns(fullLeft, await drawLine(last, "left"))).toBeGreaterThan(0.9);
      // Left-to-right order would put the first word at the left instead: it is not there.
      expect(sameColumns(fullLeft, await drawLine(first, "left"))).toBeLessThan(0.6);
    });
  }
});

/** Lowest row with ink in the title area. */
function inkBottom(png: DecodedPng): number {
  const [x0, y0, w, h] = TITLE;
  for (let y = y0 + h - 1; y >= y0; y--) {
    for (let x = x0; x < x0 + w; x++) {
      const [r, g, b] = pixelAt(png, x, y);
      if (Math.abs(r - PAPER[0]) > 40 || Math.abs(g - PAPER[1]) > 40 || Math.abs(b - PAPER[2]) > 40) return y;
    }
  }
  return -1;
}

describe("Arabic marks", () => {
  // ي is ى plus two dots below, which Noto Sans Arabic draws as a separate mark glyph moved
  // under the letter by GPOS. With satori's vertical offsets upside down (patched, see docs/rendering.md)
  // the dots landed inside the letter and both drew to the same depth.
  test("the dots of a final ي sit below the letter, as HarfBuzz places them", async () => {
    for (const template of ["event", "blog"]) {
      const yeh = inkBottom((await render(template, "علي في")).png);
      const dotless = inkBottom((await render(template, "على فى")).png);
      expect(yeh).toBeGreaterThan(dotless + 8);
    }
  });
});

describe("characters no font has", () => {
  test("are drawn as a plain box and counted", async () => {
    const result = await render("blog", "Runes ᚠᚢ");
    expect(result.missing).toEqual([0x16a0, 0x16a2]);
    // Both runes draw the same plain box: swapping them changes nothing.
    const swapped = await render("blog", "Runes ᚢᚠ");
    expect(maxDiff(result.png, swapped.png, ...TITLE)).toBe(0);
    expect(countInk(result.png, ...TITLE, PAPER)).toBeGreaterThan(countInk((await render("blog", "Runes")).png, ...TITLE, PAPER));
  });

  test("ordinary text reports nothing missing", async () => {
    expect((await render("event", "Plain Latin, Ελληνικά, Кириллица")).missing).toEqual([]);
  });
});

/** A WOFF file unpacked to the TrueType/OpenType file it wraps (zlib per table). */
function woffToSfnt(woff: Uint8Array): Uint8Array {
  const v = new DataView(woff.buffer, woff.byteOffset, woff.byteLength);
  const count = v.getUint16(12);
  const tables = Array.from({ length: count }, (_, i) => {
    const at = 44 + i * 20;
    const [offset, compLength, origLength] = [v.getUint32(at + 4), v.getUint32(at + 8), v.getUint32(at + 12)];
    const raw = woff.subarray(offset, offset + compLength);
    return { dir: woff.subarray(at, at + 20), data: compLength < origLength ? new Uint8Array(inflateSync(raw)) : raw };
  });
  let size = 12 + count * 16;
  for (const t of tables) size += (t.data.length + 3) & ~3;
  const out = new Uint8Array(size);
  const o = new DataView(out.buffer);
  o.setUint32(0, v.getUint32(4));
  o.setUint16(4, count);
  let at = 12 + count * 16;
  tables.forEach((t, i) => {
    out.set(t.dir.subarray(0, 4), 12 + i * 16);
    out.set(t.dir.subarray(16, 20), 12 + i * 16 + 4); // checksum
    o.setUint32(12 + i * 16 + 8, at);
    o.setUint32(12 + i * 16 + 12, t.data.length);
    out.set(t.data, at);
    at += (t.data.length + 3) & ~3;
  });
  return out;
}

/** A two-font collection holding `sfnt` twice (table offsets rebased). */
function collectionOf(sfnt: Uint8Array): Uint8Array {
  const header = 12 + 8;
  const out = new Uint8Array(header + sfnt.length * 2);
  const o = new DataView(out.buffer);
  out.set(new TextEncoder().encode("ttcf"), 0);
  o.setUint32(4, 0x00010000);
  o.setUint32(8, 2);
  for (let k = 0; k < 2; k++) {
    const base = header + k * sfnt.length;
    o.setUint32(12 + k * 4, base);
    out.set(sfnt, base);
    const count = o.getUint16(base + 4);
    for (let i = 0; i < count; i++) o.setUint32(base + 12 + i * 16 + 8, o.getUint32(base + 12 + i * 16 + 8) + base);
  }
  return out;
}

describe("OG_FONTS_DIR formats", () => {
  const dir = mkdtempSync(join(tmpdir(), "ogsmith-fontfmt-"));
  const files = join(dirname(Bun.resolveSync("@fontsource/noto-sans-jp/package.json", import.meta.dir)), "files");
  const sfnt = woffToSfnt(readFileSync(join(files, "noto-sans-jp-119-400-normal.woff")));
  afterAll(() => {
    useExtraFonts(undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  test("a collection's first font is extracted byte for byte", () => {
    const { font, count } = firstFontOfCollection(collectionOf(sfnt));
    expect(count).toBe(2);
    expect(Buffer.from(font).equals(Buffer.from(sfnt))).toBe(true);
  });

  test(".ttc and .woff2 load, a variable font loads with a note, junk is skipped with a reason", async () => {
    writeFileSync(join(dir, "NotoJP-Regular.ttc"), collectionOf(sfnt));
    writeFileSync(join(dir, "noto-jp-119-400-normal.woff2"), readFileSync(join(files, "noto-sans-jp-119-400-normal.woff2")));
    // A variable font: the same tables plus an `fvar` entry in the directory.
    const variable = new Uint8Array(sfnt.length + 16);
    const count = new DataView(sfnt.buffer).getUint16(4);
    variable.set(sfnt.subarray(0, 12 + count * 16));
    new DataView(variable.buffer).setUint16(4, count + 1);
    variable.set(sfnt.subarray(0, 12 + count * 16).subarray(12, 28), 12 + count * 16);
    variable.set(new TextEncoder().encode("fvar"), 12 + count * 16);
    variable.set(sfnt.subarray(12 + count * 16), 12 + (count + 1) * 16);
    const v = new DataView(variable.buffer);
    for (let i = 0; i <= count; i++) v.setUint32(12 + i * 16 + 8, v.getUint32(12 + i * 16 + 8) + 16);
    writeFileSync(join(dir, "SomeVariable.ttf"), variable);
    writeFileSync(join(dir, "cut.woff2"), readFileSync(join(files, "noto-sans-jp-119-400-normal.woff2")).subarray(0, 100));
    writeFileSync(join(dir, "junk.otf"), "OTTO but nothing else");

    const report = useExtraFonts(dir);
    expect(report.loaded.map((l) => l.split(" ")[0]).sort()).toEqual(["NotoJP-Regular.ttc", "SomeVariable.ttf", "noto-jp-119-400-normal.woff2"]);
    expect(report.skipped.map((s) => [s.file.split("/").pop(), s.reason])).toEqual([
      ["cut.woff2", "truncated WOFF2 (its header gives another length)"],
      ["junk.otf", "truncated font file"],
    ]);
    expect(report.notes.map((n) => [n.file.split("/").pop(), n.note.split(":")[0]])).toEqual([
      ["NotoJP-Regular.ttc", "collection of 2 fonts"],
      ["SomeVariable.ttf", "variable font"],
    ]);
    // Renders still work with all of them registered, and draw the kana.
    const result = await render("blog", "こんにちは");
    expect(result.missing).toEqual([]);
    expect(countInk(result.png, ...TITLE, PAPER)).toBeGreaterThan(2000);
  });
});
