/**
 * Pixel tests of the event card through the real pipeline (satori + resvg + our PNG encoder),
 * with the fonts from the repo. Regions are in 1200×630 card coordinates (see templates/event.tsx:
 * 72px side padding, 60px top/bottom, a 300×72 logo box at the top right).
 */
import { describe, expect, test } from "bun:test";
import { ApiError } from "../../../src/errors.ts";
import { createInProcessRenderer } from "../../../src/render/engines/in-process.ts";
import { createTemplateRegistry } from "../../../src/templates/registry.ts";
import { renderRequest, type RenderRequestInput } from "../../support/render-request.ts";
import { testEngine } from "../../support/engines.ts";
import { averageColour, decodePng, fractionNear, solidPngDataUri, type DecodedPng } from "../../support/png.ts";
import { luminance, maxDiff } from "./regions.ts";
import { EVENT_FIELDS } from "./event-fields.ts";

const registry = createTemplateRegistry();
const renderer = createInProcessRenderer({ engine: testEngine() });

const MAGENTA: [number, number, number] = [255, 0, 255];
const GREEN: [number, number, number] = [0, 200, 120];
const LOGO = solidPngDataUri(240, 80, MAGENTA);
const AVATAR = solidPngDataUri(64, 64, GREEN);

async function render(fields: Record<string, string | undefined>, over: Partial<RenderRequestInput> = {}): Promise<DecodedPng> {
  const result = await renderer.render(renderRequest(registry, { template: "event", theme: "dark", fields, width: 1200, height: 630, format: "png", ...over }));
  expect(result.contentType).toBe("image/png");
  return decodePng(result.bytes);
}

describe("event template", () => {
  test("renders 1200×630 by default", async () => {
    const png = await render(EVENT_FIELDS);
    expect([png.width, png.height]).toEqual([1200, 630]);
  });

  test("honours width and height", async () => {
    for (const [width, height] of [
      [200, 200],
      [800, 1000],
      [2400, 1260],
      [2400, 200],
    ]) {
      const png = await render(EVENT_FIELDS, { width, height });
      expect([png.width, png.height]).toEqual([width, height]);
    }
  });

  test("dark theme is a dark card with light text; light theme the reverse", async () => {
    const dark = await render({ title: "Launch Week" }, { theme: "dark" });
    const light = await render({ title: "Launch Week" }, { theme: "light" });
    // Background samples away from any text: left edge band, mid-height, and bottom-right.
    for (const [x, y] of [
      [10, 300],
      [1100, 560],
    ]) {
      expect(luminance(averageColour(dark, x, y, 40, 40))).toBeLessThan(60);
      expect(luminance(averageColour(light, x, y, 40, 40))).toBeGreaterThan(225);
    }
    // The title itself: mostly-white glyph pixels on dark, near-black ones on light.
    expect(fractionNear(dark, 72, 250, 500, 130, [255, 255, 255], 30)).toBeGreaterThan(0.1);
    expect(fractionNear(light, 72, 250, 500, 130, [15, 27, 51], 40)).toBeGreaterThan(0.1);
  });

  test("a solid-colour logo lands in the top-right region, nowhere else", async () => {
    const png = await render({ ...EVENT_FIELDS, logo_url: LOGO });
    // 240×80 contained in the 300×72 box: 216×72 pinned right, i.e. x 912–1128, y 60–132.
    expect(fractionNear(png, 930, 70, 180, 55, MAGENTA, 10)).toBeGreaterThan(0.98);
    expect(fractionNear(png, 0, 0, 600, 630, MAGENTA, 10)).toBe(0);
    expect(fractionNear(png, 0, 200, 1200, 430, MAGENTA, 10)).toBe(0);
  });

  test("the speaker avatar is drawn round in the speaker block", async () => {
    const withAvatar = await render({ ...EVENT_FIELDS, speaker_avatar_url: AVATAR });
    const without = await render(EVENT_FIELDS);
    // Footer, right half.
    const region = [600, 440, 528, 170] as const;
    const covered = fractionNear(withAvatar, ...region, GREEN, 12) * region[2] * region[3];
    // An 84px disc is ~5,540 px; a square would be ~7,056.
    expect(covered).toBeGreaterThan(4800);
    expect(covered).toBeLessThan(6200);
    expect(fractionNear(without, ...region, GREEN, 12)).toBe(0);
  });

  test("renders with every optional field missing", async () => {
    const png = await render({ title: "Launch Week" });
    expect([png.width, png.height]).toEqual([1200, 630]);
    expect(fractionNear(png, 72, 200, 700, 230, [255, 255, 255], 30)).toBeGreaterThan(0.05);
  });

  test("a 200-character title shrinks and clamps without overflowing the card or the footer", async () => {
    const long =
      "Annual International Conference on Distributed Systems, Observability and Reliability Engineering with Workshops, Hands-on Labs, Keynotes, Panels and an Evening Reception for all Attendees 2025!";
    const title200 = `${long} in Berlin`.slice(0, 200);
    expect(title200.length).toBe(200);
    for (const theme of ["dark", "light"] as const) {
      const short = await render({ ...EVENT_FIELDS, speaker_avatar_url: AVATAR, title: "Short" }, { theme });
      const longer = await render({ ...EVENT_FIELDS, speaker_avatar_url: AVATAR, title: title200 }, { theme });
      // The footer (below its rule) and the right and bottom margins are untouched by the title.
      expect(maxDiff(short, longer, 0, 452, 1200, 178)).toBeLessThanOrEqual(2);
      expect(maxDiff(short, longer, 1130, 0, 70, 630)).toBeLessThanOrEqual(2);
      // Title-only card: nothing reaches the bottom padding.
      const alone = await render({ title: title200 }, { theme });
      const aloneShort = await render({ title: "Short" }, { theme });
      expect(maxDiff(alone, aloneShort, 0, 575, 1200, 55)).toBeLessThanOrEqual(2);
    }
  });

  test("Cyrillic and Greek titles draw glyphs from the bundled fonts", async () => {
    for (const title of ["Привет, мир", "Γειά σου κόσμε"]) {
      const png = await render({ title });
      expect(fractionNear(png, 72, 200, 900, 230, [255, 255, 255], 30)).toBeGreaterThan(0.05);
    }
  });

  test("unknown template and non-data image URLs are refused with their error codes", async () => {
    expect(() => renderRequest(registry, { template: "nope", theme: "dark", fields: { title: "x" }, width: 1200, height: 630, format: "png" })).toThrow(
      expect.objectContaining({ code: "UNKNOWN_TEMPLATE" }),
    );
    const err = await renderer
      .render(
        renderRequest(registry, {
          template: "event",
          theme: "dark",
          fields: { title: "x", logo_url: "https://example.com/a.png" },
          width: 1200,
          height: 630,
          format: "png",
        }),
      )
      .catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.code).toBe("IMAGE_FETCH_FAILED");
    expect(err.details[0].field).toBe("logo_url");
  });
});
