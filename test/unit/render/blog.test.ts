/**
 * Pixel tests of the blog card through the real pipeline (satori + resvg + our PNG encoder),
 * with the fonts from the repo. Regions are in 1200×630 card coordinates (see templates/blog.tsx:
 * 80px side padding, 60px top/bottom, a 64px top row with a 280×64 logo box at the right, the
 * byline along the bottom with a 72px avatar on an 80px ring).
 */
import { describe, expect, test } from "bun:test";
import { createInProcessRenderer } from "../../../src/render/engines/in-process.ts";
import { createTemplateRegistry } from "../../../src/templates/registry.ts";
import { readingTimeLabel } from "../../../templates/blog.tsx";
import { renderRequest, type RenderRequestInput } from "../../support/render-request.ts";
import { testEngine } from "../../support/engines.ts";
import { averageColour, decodePng, fractionNear, solidPngDataUri, type DecodedPng } from "../../support/png.ts";
import { countInk, luminance, maxDiff } from "./regions.ts";

const registry = createTemplateRegistry();
const renderer = createInProcessRenderer({ engine: testEngine() });

const MAGENTA: [number, number, number] = [255, 0, 255];
const GREEN: [number, number, number] = [0, 200, 120];
const NAVY: [number, number, number] = [15, 27, 51];
const PAPER: [number, number, number] = [252, 252, 250];
const LOGO = solidPngDataUri(240, 80, MAGENTA);
const AVATAR = solidPngDataUri(64, 64, GREEN);

const FULL = {
  title: "How we made our renderer three times faster",
  subtitle: "Profiling satori and resvg, and why PNG encoding was the surprise",
  category: "Engineering",
  author_name: "Ada Lovelace",
  date: "March 14, 2025",
  reading_time: "8",
};

const LONG_TITLE = (
  "Annual International Conference on Distributed Systems, Observability and Reliability Engineering with Workshops, " +
  "Hands-on Labs, Keynotes, Panels and an Evening Reception for all Attendees 2025! in Berlin"
).slice(0, 200);

async function render(fields: Record<string, string | undefined>, over: Partial<RenderRequestInput> = {}): Promise<DecodedPng> {
  const result = await renderer.render(renderRequest(registry, { template: "blog", theme: "dark", fields, width: 1200, height: 630, format: "png", ...over }));
  expect(result.contentType).toBe("image/png");
  return decodePng(result.bytes);
}

describe("blog template", () => {
  test("is a built-in with its documented fields", () => {
    const blog = registry.get("blog");
    expect(blog?.fields.map((f) => f.name)).toEqual(["title", "subtitle", "logo_url", "author_name", "author_avatar_url", "date", "reading_time", "category"]);
    expect(blog?.fields.find((f) => f.name === "title")).toMatchObject({ required: true, maxLength: 200, type: "text" });
    expect(blog?.fields.filter((f) => f.type === "image_url").map((f) => f.name)).toEqual(["logo_url", "author_avatar_url"]);
    expect(blog?.fields.filter((f) => f.required).map((f) => f.name)).toEqual(["title"]);
  });

  test("a bare number of minutes reads as 'n min read'; other reading times are shown as written", () => {
    expect(readingTimeLabel("8")).toBe("8 min read");
    expect(readingTimeLabel(" 12 ")).toBe("12 min read");
    expect(readingTimeLabel("5 minutes")).toBe("5 minutes");
  });

  test("dark is a dark card with white type; light is paper with navy type and a blue edge stripe", async () => {
    const dark = await render({ title: "Launch Week" }, { theme: "dark" });
    const light = await render({ title: "Launch Week" }, { theme: "light" });
    for (const [x, y] of [
      [600, 150],
      [1100, 300],
    ]) {
      expect(luminance(averageColour(dark, x, y, 40, 40))).toBeLessThan(60);
      expect(luminance(averageColour(light, x, y, 40, 40))).toBeGreaterThan(225);
    }
    // Title-only: the title sits mid-card (y ≈ 300–390).
    expect(fractionNear(dark, 80, 290, 680, 110, [255, 255, 255], 30)).toBeGreaterThan(0.1);
    expect(fractionNear(light, 80, 290, 680, 110, NAVY, 40)).toBeGreaterThan(0.1);
    // The light theme's left stripe; the dark theme has none.
    expect(fractionNear(light, 0, 0, 12, 630, [31, 79, 191], 10)).toBeGreaterThan(0.99);
    expect(fractionNear(dark, 0, 0, 12, 630, [31, 79, 191], 30)).toBe(0);
  });

  test("a solid-colour logo lands in the top-right box, nowhere else", async () => {
    const png = await render({ ...FULL, logo_url: LOGO });
    // 240×80 contained in the 280×64 box: 192×64 pinned right, i.e. x 928–1120, y 60–124.
    expect(fractionNear(png, 934, 64, 180, 56, MAGENTA, 10)).toBeGreaterThan(0.98);
    expect(fractionNear(png, 0, 0, 900, 630, MAGENTA, 10)).toBe(0);
    expect(fractionNear(png, 0, 140, 1200, 490, MAGENTA, 10)).toBe(0);
  });

  test("the author avatar is drawn round at the start of the byline", async () => {
    for (const fields of [FULL, { title: "Only a photo", author_avatar_url: AVATAR }]) {
      const withAvatar = await render({ ...fields, author_avatar_url: AVATAR });
      const region = [60, 440, 260, 190] as const;
      const covered = fractionNear(withAvatar, ...region, GREEN, 12) * region[2] * region[3];
      // A 72px disc is ~4,070 px; a square would be 5,184.
      expect(covered).toBeGreaterThan(3600);
      expect(covered).toBeLessThan(4700);
    }
    const without = await render(FULL);
    expect(fractionNear(without, 0, 0, 1200, 630, GREEN, 12)).toBe(0);
  });

  test("every optional field may be missing; absent blocks leave no trace", async () => {
    for (const theme of ["dark", "light"] as const) {
      const bare = await render({ title: "Launch Week" }, { theme });
      const blanks = await render({ title: "Launch Week", subtitle: " ", category: "", author_name: "  ", date: "", reading_time: "" }, { theme });
      expect(maxDiff(bare, blanks, 0, 0, 1200, 630)).toBe(0);
    }
    // The light title-only card: nothing but the title between the top row and the bottom padding.
    const light = await render({ title: "Launch Week" }, { theme: "light" });
    expect(countInk(light, 160, 140, 1040, 140, PAPER)).toBe(0);
    expect(countInk(light, 20, 420, 1180, 210, PAPER)).toBe(0);
  });

  test("a byline without an author still shows the date and reading time", async () => {
    const light = await render({ title: "Release notes", date: "March 14, 2025", reading_time: "3" }, { theme: "light" });
    const bare = await render({ title: "Release notes" }, { theme: "light" });
    expect(countInk(light, 80, 500, 600, 70, PAPER)).toBeGreaterThan(500);
    expect(countInk(bare, 80, 500, 600, 70, PAPER)).toBe(0);
  });

  test("long text shrinks and clamps: it never overflows the card, the byline or the logo", async () => {
    const longAll = {
      title: LONG_TITLE,
      subtitle:
        "A very long standfirst that goes on about the venue, the speakers, the sponsors, the food, the after party and the many workshops that happen on the second day",
      category: "Distributed systems and reliability engineering conference notes and more",
      author_name: "Maximilian Alexander Friedrich von Hohenzollern-Sigmaringen the Third of Many",
      date: "Wednesday, the twenty-third of September, two thousand and twenty-five",
      reading_time: "approximately forty-five minutes of careful reading at a leisurely pace",
    };
    for (const theme of ["dark", "light"] as const) {
      const short = await render({ ...FULL, title: "Short", author_avatar_url: AVATAR, logo_url: LOGO }, { theme });
      const longTitle = await render({ ...FULL, title: LONG_TITLE, author_avatar_url: AVATAR, logo_url: LOGO }, { theme });
      // The byline (below y 470) and the logo box are untouched by a long title.
      expect(maxDiff(short, longTitle, 0, 470, 1200, 160)).toBeLessThanOrEqual(2);
      expect(maxDiff(short, longTitle, 900, 0, 300, 130)).toBeLessThanOrEqual(2);
      // Everything long at once: the right margin (past 1120) and the bottom padding stay empty.
      const everything = await render({ ...longAll, author_avatar_url: AVATAR, logo_url: LOGO }, { theme });
      expect(maxDiff(short, everything, 1125, 0, 75, 630)).toBeLessThanOrEqual(2);
      expect(maxDiff(short, everything, 0, 585, 1200, 45)).toBeLessThanOrEqual(2);
      // The logo still shows in full next to a long category.
      expect(fractionNear(everything, 934, 64, 180, 56, MAGENTA, 10)).toBeGreaterThan(0.98);
    }
  });

  test("Latin-extended, Vietnamese, Cyrillic and Greek text draws real glyphs from the bundled fonts", async () => {
    // A missing glyph draws the same box whatever the character, so a string and its reverse
    // render alike when the font lacks them (Armenian, the control) and differ when it has them.
    const reversed = (s: string) => [...s].reverse().join("");
    const samples = { latinExt: "ŽťčýůňŁźØŚĞİőűÆ", vietnamese: "ếệấầẩẫậắềểễộ", cyrillic: "Приветмир", greek: "Γειάσουκόσμε", armenian: "Բարեւաշխարհ" };
    const diffs: Record<string, number> = {};
    for (const [script, text] of Object.entries(samples)) {
      const forward = await render({ title: text }, { theme: "light" });
      const backward = await render({ title: reversed(text) }, { theme: "light" });
      expect(countInk(forward, 80, 200, 1040, 260, PAPER)).toBeGreaterThan(3000);
      diffs[script] = maxDiff(forward, backward, 80, 200, 1040, 260);
    }
    expect(diffs.armenian).toBe(0);
    for (const script of ["latinExt", "vietnamese", "cyrillic", "greek"]) expect({ script, diff: diffs[script]! > 100 }).toEqual({ script, diff: true });
  });
});
