/**
 * Whole-card right-to-left, by pixels: when a card's title is Arabic or Hebrew, the built-in
 * templates mirror their layout (logo, pill, accent bar, byline, speaker, meta icons, the light
 * blog's stripe, the dark glows), and mixed runs inside a text (a date "5 مايو 2027", a Latin
 * name inside Arabic or Hebrew) are in the order a browser gives them with `dir="auto"`.
 *
 * Run on every render engine in ENGINES: each must pass the same checks. Regions are in 1200×630
 * card coordinates (templates/blog.tsx: 80px side padding, 280×64 logo box; templates/event.tsx:
 * 72px side padding, 300×72 logo box, the footer below y ≈ 450).
 */
import { describe, expect, test } from "bun:test";
import { createInProcessRenderer } from "../../../src/render/engines/in-process.ts";
import type { Renderer } from "../../../src/render/types.ts";
import { createTemplateRegistry } from "../../../src/templates/registry.ts";
import { renderRequest } from "../../support/render-request.ts";
import { averageColour, decodePng, fractionNear, solidPngDataUri, type DecodedPng } from "../../support/png.ts";

/** The render engines the project has; another engine is one more entry. */
const ENGINES: { name: string; renderer: Renderer }[] = [{ name: "satori", renderer: createInProcessRenderer() }];

const registry = createTemplateRegistry();
const MAGENTA: [number, number, number] = [255, 0, 255];
const GREEN: [number, number, number] = [0, 200, 120];
const LOGO = solidPngDataUri(240, 80, MAGENTA);
const AVATAR = solidPngDataUri(64, 64, GREEN);
const THEMES = ["dark", "light"] as const;

const SCRIPTS = {
  Arabic: {
    title: "كيف نبني خدمة صور سريعة",
    subtitle: "دليل عملي من فريق التحرير",
    category: "هندسة",
    date: (day: number, year: number) => `${day} مايو ${year}`,
    name: (latin: string) => `ليلى ${latin}`,
    location: "دبي، الإمارات",
  },
  Hebrew: {
    title: "איך בונים שירות תמונות מהיר",
    subtitle: "מדריך מעשי מצוות העריכה",
    category: "הנדסה",
    date: (day: number, year: number) => `${day} במאי ${year}`,
    name: (latin: string) => `דנה ${latin}`,
    location: "תל אביב",
  },
} as const;

/** The bounding box of the pixels that differ between two renders inside a region; undefined when none do. */
function diffBox(a: DecodedPng, b: DecodedPng, [x0, y0, w, h]: readonly [number, number, number, number]) {
  let left = Infinity;
  let right = -Infinity;
  for (let y = y0; y < y0 + h; y++) {
    for (let x = x0; x < x0 + w; x++) {
      const i = (y * a.width + x) * 4;
      if (Math.abs(a.pixels[i]! - b.pixels[i]!) + Math.abs(a.pixels[i + 1]! - b.pixels[i + 1]!) + Math.abs(a.pixels[i + 2]! - b.pixels[i + 2]!) > 60) {
        left = Math.min(left, x);
        right = Math.max(right, x);
      }
    }
  }
  return Number.isFinite(left) ? { left, right } : undefined;
}

/** Share of a region's pixels whose channels spread widely: coloured ink (an accent, an icon), not grey or white. */
function colourShare(png: DecodedPng, x: number, y: number, w: number, h: number): number {
  let n = 0;
  for (let yy = y; yy < y + h; yy++) {
    for (let xx = x; xx < x + w; xx++) {
      const i = (yy * png.width + xx) * 4;
      const [r, g, b] = [png.pixels[i]!, png.pixels[i + 1]!, png.pixels[i + 2]!];
      if (Math.max(r, g, b) - Math.min(r, g, b) > 60) n++;
    }
  }
  return n / (w * h);
}

for (const { name: engine, renderer } of ENGINES) {
  const render = async (template: string, theme: string, fields: Record<string, string>): Promise<DecodedPng> => {
    const result = await renderer.render(renderRequest(registry, { template, theme, fields, width: 1200, height: 630, format: "png" }));
    return decodePng(result.bytes);
  };

  describe(`${engine}: blog, right to left`, () => {
    for (const [script, text] of Object.entries(SCRIPTS)) {
      for (const theme of THEMES) {
        test(`${script}, ${theme}: logo on the left, pill on the right, byline from the right`, async () => {
          const fields = {
            title: text.title,
            subtitle: text.subtitle,
            category: text.category,
            author_name: text.name("Smith"),
            date: text.date(5, 2027),
            logo_url: LOGO,
            author_avatar_url: AVATAR,
          };
          const rtl = await render("blog", theme, fields);
          const ltr = await render("blog", theme, { ...fields, title: "How we build a fast image service" });
          // The logo: 192×64 pinned to the left of its box (x 80–272) instead of the right (x 928–1120).
          expect(fractionNear(rtl, 86, 64, 180, 56, MAGENTA, 10)).toBeGreaterThan(0.98);
          expect(fractionNear(rtl, 600, 0, 600, 140, MAGENTA, 10)).toBe(0);
          expect(fractionNear(ltr, 934, 64, 180, 56, MAGENTA, 10)).toBeGreaterThan(0.98);
          // The pill at the right end of the top row, nothing of it elsewhere.
          const pill = diffBox(rtl, await render("blog", theme, { ...fields, category: "" }), [0, 40, 1200, 100])!;
          expect(pill.right).toBeGreaterThan(1100);
          expect(pill.left).toBeGreaterThan(800);
          // The avatar on the right end of the byline (x 1040–1120), none on the left.
          expect(fractionNear(rtl, 1030, 440, 100, 190, GREEN, 12)).toBeGreaterThan(0.12);
          expect(fractionNear(rtl, 0, 440, 600, 190, GREEN, 12)).toBe(0);
          expect(fractionNear(ltr, 60, 440, 120, 190, GREEN, 12)).toBeGreaterThan(0.12);
          if (theme === "light") {
            // The stripe runs down the right edge.
            expect(fractionNear(rtl, 1188, 0, 12, 630, [31, 79, 191], 10)).toBeGreaterThan(0.99);
            expect(fractionNear(rtl, 0, 0, 12, 630, [31, 79, 191], 30)).toBe(0);
          } else {
            // The big violet glow lights the bottom-left corner instead of the bottom-right.
            expect(averageColour(rtl, 0, 560, 60, 60)[2]).toBeGreaterThan(averageColour(rtl, 1140, 560, 60, 60)[2] + 20);
            expect(averageColour(ltr, 1140, 560, 60, 60)[2]).toBeGreaterThan(averageColour(ltr, 0, 560, 60, 60)[2] + 20);
          }
        });

        test(`${script}, ${theme}: without a category the accent bar sits on the right`, async () => {
          const png = await render("blog", theme, { title: text.title });
          expect(colourShare(png, 1050, 85, 70, 12)).toBeGreaterThan(0.5);
          expect(colourShare(png, 80, 85, 70, 12)).toBe(0);
        });
      }

      test(`${script}: a date and a Latin name in the byline follow the bidi algorithm (dir="auto")`, async () => {
        const byline = [80, 470, 1040, 130] as const;
        // "5 <month> 2027" is right-to-left: the day is read first, so it is drawn rightmost, the year leftmost.
        const dated = { title: text.title, date: text.date(5, 2027) };
        const base = await render("blog", "dark", dated);
        const day = diffBox(base, await render("blog", "dark", { ...dated, date: text.date(8, 2027) }), byline)!;
        const year = diffBox(base, await render("blog", "dark", { ...dated, date: text.date(5, 2028) }), byline)!;
        expect(year.left).toBeLessThan(day.left);
        expect(day.right).toBeGreaterThan(year.right);
        // "<first name> Smith": the first name is read first (rightmost); the Latin surname is on its
        // left, still spelled left to right.
        const named = { title: text.title, author_name: text.name("Smith") };
        const withName = await render("blog", "dark", named);
        const name = diffBox(withName, await render("blog", "dark", { title: text.title }), byline)!;
        const surname = diffBox(withName, await render("blog", "dark", { ...named, author_name: text.name("Smyth") }), byline)!;
        expect(surname.left - name.left).toBeLessThan(12);
        expect(name.right - surname.right).toBeGreaterThan(40);
      });
    }
  });

  describe(`${engine}: event, right to left`, () => {
    for (const [script, text] of Object.entries(SCRIPTS)) {
      for (const theme of THEMES) {
        test(`${script}, ${theme}: accent on the right, logo on the left, meta from the right with icons on the right, speaker on the left`, async () => {
          const fields = {
            title: text.title,
            subtitle: text.subtitle,
            date: text.date(5, 2027),
            time: "18:00 CET",
            location: text.location,
            speaker_name: "John Doe",
            speaker_avatar_url: AVATAR,
            logo_url: LOGO,
          };
          const rtl = await render("event", theme, fields);
          const ltr = await render("event", theme, { ...fields, title: "Developer Meetup" });
          // Logo: 216×72 pinned left (x 72–288) rather than right (x 912–1128).
          expect(fractionNear(rtl, 78, 64, 200, 60, MAGENTA, 10)).toBeGreaterThan(0.98);
          expect(fractionNear(rtl, 600, 0, 600, 140, MAGENTA, 10)).toBe(0);
          expect(fractionNear(ltr, 918, 64, 200, 60, MAGENTA, 10)).toBeGreaterThan(0.98);
          // The accent bar (64×8 at the top of the row) at the right end.
          expect(colourShare(rtl, 1070, 68, 56, 8)).toBeGreaterThan(0.8);
          expect(colourShare(ltr, 74, 68, 56, 8)).toBeGreaterThan(0.8);
          // The speaker's photo on the left of the footer, none on the right.
          expect(fractionNear(rtl, 60, 450, 400, 180, GREEN, 12)).toBeGreaterThan(0.05);
          expect(fractionNear(rtl, 600, 450, 600, 180, GREEN, 12)).toBe(0);
          expect(fractionNear(ltr, 740, 450, 460, 180, GREEN, 12)).toBeGreaterThan(0.05);
          // The meta icons (coloured strokes) at the right edge, beside their text; none at the left edge.
          expect(colourShare(rtl, 1096, 480, 32, 100)).toBeGreaterThan(0.05);
          expect(colourShare(ltr, 72, 480, 32, 100)).toBeGreaterThan(0.05);
          expect(colourShare(rtl, 72, 480, 32, 100)).toBeLessThan(colourShare(rtl, 1096, 480, 32, 100) / 4);
          if (theme === "dark") {
            // The top glow lights the top-left corner instead of the top-right.
            expect(averageColour(rtl, 0, 0, 60, 60)[2]).toBeGreaterThan(averageColour(rtl, 1140, 0, 60, 60)[2] + 20);
          }
        });
      }

      test(`${script}: the date's day, month and year in the order dir="auto" gives them, next to its icon on the right`, async () => {
        const fields = { title: text.title, date: text.date(5, 2027) };
        const footer = [72, 440, 1056, 190] as const;
        const base = await render("event", "light", fields);
        const day = diffBox(base, await render("event", "light", { ...fields, date: text.date(8, 2027) }), footer)!;
        const year = diffBox(base, await render("event", "light", { ...fields, date: text.date(5, 2028) }), footer)!;
        expect(year.left).toBeLessThan(day.left);
        expect(day.right).toBeGreaterThan(year.right);
        expect(day.right).toBeGreaterThan(1000);
      });
    }
  });
}
