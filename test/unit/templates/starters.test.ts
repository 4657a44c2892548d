/**
 * The starter designs (templates/starters/*.json): each is a definition the template language
 * accepts as is, carries a sample value for every field it needs, and draws a card in both
 * themes with something in it. And none lets text out of the card: with every text field at
 * its longest, nothing the text changes comes within a few pixels of the canvas edge, on the
 * wide card, the square one and a portrait one (whose taller canvases the design must fill).
 * And the square and portrait cards are designed for their shape, not the wide card with empty
 * space around it: their text covers about as much of the card as on the wide one.
 *
 * "What the text changes" is the difference between a card with each text field at its maximum
 * length and the same card with those fields cleared: decorations that do not move with the
 * text (glows, rings, edge bars) cancel out, and the text and whatever it pushes remain.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { renderTemplate } from "../../../src/render/engines/in-process.ts";
import { accountTemplateDefinition, parseAccountTemplate } from "../../../src/templates/account/index.ts";
import type { Theme } from "../../../src/templates/types.ts";
import { STARTER_PICTURES, STARTERS } from "../../../src/modules/dashboard/starters.ts";
import { decodePng, type DecodedPng } from "../../support/png.ts";
import { testEngine } from "../../support/engines.ts";

const DIR = join(import.meta.dir, "../../../templates/starters");
const files = readdirSync(DIR).filter((name) => name.endsWith(".json"));
/** Rendering is the slow part (≈ 0.5 s a card on a shared 2-core box). */
const TIMEOUT = 60_000;
/** Text must stay this far inside the card. Every starter pads its content by 52 px or more. */
const EDGE = 12;
/** Fields drawn as decoration that may reach the edge on purpose (the release notes' version watermark). */
const DECORATIVE: Record<string, string[]> = { "release-notes": ["version"] };

type Definition = ReturnType<typeof parseAccountTemplate>;

function load(file: string): Definition {
  return parseAccountTemplate(JSON.parse(readFileSync(join(DIR, file), "utf8")));
}

async function draw(spec: Definition, values: Record<string, string>, theme: Theme, width = 1200, height = 630): Promise<DecodedPng> {
  const { bytes } = await renderTemplate(accountTemplateDefinition(spec), values, { width, height, theme, images: {}, engine: testEngine() });
  const png = decodePng(bytes);
  expect(png).toMatchObject({ width, height });
  return png;
}

const channelDistance = (a: Uint8Array, i: number, b: Uint8Array, j: number) =>
  Math.max(Math.abs(a[i]! - b[j]!), Math.abs(a[i + 1]! - b[j + 1]!), Math.abs(a[i + 2]! - b[j + 2]!));

/** Fraction of the middle of the card (10 %–90 % each way) that differs from the top-left pixel's colour. */
function busyMiddle(png: DecodedPng): number {
  let differing = 0;
  let total = 0;
  for (let y = Math.floor(png.height * 0.1); y < png.height * 0.9; y += 2) {
    for (let x = Math.floor(png.width * 0.1); x < png.width * 0.9; x += 2) {
      total++;
      if (channelDistance(png.pixels, (y * png.width + x) * 4, png.pixels, 0) > 24) differing++;
    }
  }
  return differing / total;
}

/** The box around every pixel that differs between two renders, or null when none does. */
function changedBox(a: DecodedPng, b: DecodedPng): { left: number; top: number; right: number; bottom: number; count: number } | null {
  let left = Infinity;
  let top = Infinity;
  let right = -1;
  let bottom = -1;
  let count = 0;
  for (let y = 0; y < a.height; y++) {
    for (let x = 0; x < a.width; x++) {
      const i = (y * a.width + x) * 4;
      if (channelDistance(a.pixels, i, b.pixels, i) <= 40) continue;
      count++;
      left = Math.min(left, x);
      right = Math.max(right, x);
      top = Math.min(top, y);
      bottom = Math.max(bottom, y);
    }
  }
  return count ? { left, top, right, bottom, count } : null;
}

/** Words up to exactly `length` characters: the longest value the field accepts. */
function longest(sample: string, length: number): string {
  const words = (sample.trim() || "Long value").split(/\s+/);
  let text = "";
  for (let i = 0; text.length < length; i++) text += (text ? " " : "") + words[i % words.length];
  return text.slice(0, length).trimEnd();
}

test("at least six starters, each shipped in the binary's list under its file name, with its picture", async () => {
  expect(files.length).toBeGreaterThanOrEqual(6);
  expect(STARTERS.map((s) => `${s.id}.json`).sort()).toEqual([...files].sort());
  for (const starter of STARTERS) {
    // A palette PNG: its size from the IHDR chunk (bytes 16–23), which the test decoder does not need to read.
    const bytes = new DataView(await Bun.file(STARTER_PICTURES.get(starter.id)!).arrayBuffer());
    expect(bytes.getUint32(12)).toBe(0x49484452); // "IHDR"
    expect(bytes.getUint32(16) / bytes.getUint32(20)).toBeCloseTo(1200 / 630, 1);
  }
});

describe.each(files)("starter %s", (file) => {
  const spec = load(file);
  const decorative = DECORATIVE[spec.id] ?? [];
  const texts = spec.fields.filter((f) => f.type === "text" && !decorative.includes(f.name));

  test("is a complete definition: both themes, a name, a description and a sample value for every text field", () => {
    expect(spec.id).toBe(file.replace(/\.json$/, ""));
    expect(spec.name.length).toBeGreaterThan(0);
    expect(spec.description.length).toBeGreaterThan(20);
    expect(Object.keys(spec.themes.dark ?? {}).sort()).toEqual(Object.keys(spec.themes.light ?? {}).sort());
    expect(Object.keys(spec.themes.dark ?? {}).length).toBeGreaterThan(0);
    for (const field of spec.fields.filter((f) => f.type === "text")) expect(spec.sample[field.name]?.length ?? 0).toBeGreaterThan(0);
    for (const field of spec.fields) expect(field.max_length === undefined || field.max_length <= 300).toBe(true);
  });

  test.each(["dark", "light"] as const)(
    "draws its sample values in the %s theme: a full card, the text on it",
    async (theme) => {
      const card = await draw(spec, spec.sample, theme);
      expect(busyMiddle(card)).toBeGreaterThan(0.03);
      // Clearing the text changes the card: the sample text is really drawn.
      const changed = changedBox(card, await draw(spec, cleared, theme));
      expect(changed?.count ?? 0).toBeGreaterThan(2000);
    },
    TIMEOUT,
  );

  const cleared = { ...spec.sample, ...Object.fromEntries(texts.map((f) => [f.name, f.required ? "·" : ""])) };

  test.each([
    [1200, 630],
    [1080, 1080],
    [1080, 1350],
  ])(
    "keeps the longest text inside a %i×%i card",
    async (width, height) => {
      const long = { ...spec.sample, ...Object.fromEntries(texts.map((f) => [f.name, longest(spec.sample[f.name] ?? "", f.max_length ?? 200)])) };
      const changed = changedBox(await draw(spec, long, "dark", width, height), await draw(spec, cleared, "dark", width, height));
      expect(changed).not.toBeNull();
      expect(changed!.left).toBeGreaterThanOrEqual(EDGE);
      expect(changed!.top).toBeGreaterThanOrEqual(EDGE);
      expect(changed!.right).toBeLessThan(width - EDGE);
      expect(changed!.bottom).toBeLessThan(height - EDGE);
    },
    TIMEOUT,
  );

  // Laid out unchanged, a 1080×1080 card's text covered about half the share of the card it
  // covers on the wide card, and a 1080×1350 card's about 40 %: a small block in a big card.
  test.each([
    [1080, 1080, 0.8],
    [1080, 1350, 0.65],
  ])(
    "fills a %i×%i card: its text covers at least %d of the share of the card it covers at 1200×630",
    async (width, height, least) => {
      const share = async (w: number, h: number) =>
        (changedBox(await draw(spec, spec.sample, "dark", w, h), await draw(spec, cleared, "dark", w, h))?.count ?? 0) / (w * h);
      expect(await share(width, height)).toBeGreaterThanOrEqual(least * (await share(1200, 630)));
    },
    TIMEOUT,
  );
});
