/**
 * The Fonts page and the editor's fonts in a real browser (Debian's chromium through
 * playwright-core) against the real service on port 0: upload a font and see it listed with a
 * sample drawn in its face (its pixels against the bundled serif's sample), delete it only after
 * confirming; the API's errors as it words them (400 naming the file, 413, 409); the editor
 * listing the account's families, putting one at the cursor, and showing the preview's warning;
 * the page at 375 px. Screenshots go to the temp dir test/support/browser.ts prints.
 */
import { beforeEach, describe, expect, test } from "bun:test";
import type { Locator, Page } from "playwright-core";
import { browserTestsCanRun, clickAfter, screenshotPath, useBrowserWithService } from "../support/browser.ts";
import { asset, pixelFont, sfntFromWoff } from "../support/fonts.ts";

const browserReady = browserTestsCanRun("fonts page browser tests");
const BROWSER_TEST_TIMEOUT = 120_000;

describe.skipIf(!browserReady)("fonts in the dashboard", () => {
  const fx = useBrowserWithService(BROWSER_TEST_TIMEOUT);
  beforeEach(async () => {
    await fx.browser.context.clearCookies();
  });

  const newAccount = async () => (await fx.s.createAccount({ plan: "custom", quota: 10_000, requests_per_second: 100 })).apiKey;

  async function signIn(apiKey: string, options: { width?: number; height?: number } = {}): Promise<Page> {
    const page = await fx.browser.newPage(options);
    page.on("pageerror", (error) => console.log(`page error: ${error.message}`));
    await page.goto(fx.s.url + "/dashboard");
    await page.getByLabel("API key").fill(apiKey);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Usage", level: 1 }).waitFor();
    return page;
  }

  async function openFonts(page: Page) {
    await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Fonts" }).click();
    await page.getByRole("heading", { name: "Fonts", level: 1 }).waitFor();
  }

  const apiUpload = (key: string, file: Uint8Array, fields: Record<string, string> = {}) => {
    const form = new FormData();
    form.set("file", new Blob([file as Uint8Array<ArrayBuffer>]), "font.otf");
    for (const [k, v] of Object.entries(fields)) form.set(k, v);
    return fx.s.api("/api/fonts", { key, method: "POST", body: form });
  };

  const accountFonts = async (key: string) =>
    ((await (await fx.s.api("/api/fonts", { key })).json()) as { data: { id: string; family: string; weight: number; source: string }[] }).data.filter(
      (f) => f.source === "account",
    );

  /** Fills the upload form and sends it. */
  async function uploadInPage(page: Page, file: Uint8Array, name: string, fields: { family?: string; weight?: string; style?: string } = {}) {
    await page.getByLabel("Font file").setInputFiles({ name, mimeType: "application/octet-stream", buffer: Buffer.from(file) });
    await page.getByLabel("Family", { exact: true }).fill(fields.family ?? "");
    await page.getByLabel("Weight", { exact: true }).selectOption(fields.weight ?? "");
    await page.getByLabel("Style", { exact: true }).selectOption(fields.style ?? "");
    await page.getByRole("button", { name: "Upload font" }).click();
  }

  /**
   * Dark pixels (luminance under 96) of an image on the page, read back through a canvas once it
   * has loaded and decoded: how much ink the face drew.
   */
  async function inkOfImage(image: Locator): Promise<{ ink: number; width: number; height: number }> {
    await image.waitFor();
    return image.evaluate(async (img: HTMLImageElement) => {
      await img.decode();
      const canvas = document.createElement("canvas");
      canvas.width = img.naturalWidth;
      canvas.height = img.naturalHeight;
      const context = canvas.getContext("2d")!;
      context.drawImage(img, 0, 0);
      const pixels = context.getImageData(0, 0, canvas.width, canvas.height).data;
      let ink = 0;
      for (let i = 0; i < pixels.length; i += 4) if (0.299 * pixels[i]! + 0.587 * pixels[i + 1]! + 0.114 * pixels[i + 2]! < 96) ink++;
      return { ink, width: img.naturalWidth, height: img.naturalHeight };
    });
  }

  const sampleOf = (page: Page, family: string) =>
    page.locator(".font-item", { has: page.locator(".font-family-name", { hasText: new RegExp(`^${family}$`) }) }).locator("img.font-sample");

  test(
    "upload a font and see it listed with its sample drawn in its face; delete only after confirming",
    async () => {
      const key = await newAccount();
      const page = await signIn(key);
      await openFonts(page);
      await page.getByText("No fonts of your own yet.").waitFor();
      // The bundled families are listed beside them.
      for (const family of ["Inter", "Source Serif 4", "JetBrains Mono"])
        await page.getByRole("list", { name: "Bundled families" }).getByText(family, { exact: true }).waitFor();
      await page.screenshot({ path: screenshotPath("fonts-empty"), fullPage: true });

      // A blocky face whose letters are filled boxes, as weight 700 (its name table gives the family).
      await uploadInPage(page, pixelFont("Blocky Brand"), "blocky.otf", { weight: "700" });
      await page.getByText("Uploaded Blocky Brand 700.").waitFor();
      // The bundled serif's own file, under a family of the account's.
      await uploadInPage(page, sfntFromWoff(asset("source-serif-4-latin-400-normal.woff")), "serif.ttf", { family: "Brand Serif" });
      await page.getByText("Uploaded Brand Serif 400.").waitFor();

      const list = page.getByRole("list", { name: "Your fonts" });
      expect(await list.locator(".font-family-name").allTextContents()).toEqual(["Blocky Brand", "Brand Serif"]);
      expect(await list.locator(".font-item").first().textContent()).toContain("700 · normal · OTF");
      expect(await page.locator("#fonts-usage").textContent()).toMatch(/^2 of 20 fonts · /);
      expect((await accountFonts(key)).map((f) => `${f.family} ${f.weight}`)).toEqual(["Blocky Brand 700", "Brand Serif 400"]);

      // Each sample is drawn in its own face: filled boxes take far more ink than the serif's strokes.
      const blocky = await inkOfImage(sampleOf(page, "Blocky Brand"));
      const serif = await inkOfImage(sampleOf(page, "Brand Serif"));
      expect({ width: blocky.width, height: blocky.height }).toEqual({ width: 1000, height: 200 });
      expect(serif.ink).toBeGreaterThan(0);
      expect(blocky.ink).toBeGreaterThan(serif.ink * 2);
      expect(await page.getByRole("img", { name: "Sample of Blocky Brand 700" }).isVisible()).toBe(true);
      await page.screenshot({ path: screenshotPath("fonts"), fullPage: true });

      // Delete asks first, in a modal dialog; Keep it keeps the font.
      await page.getByRole("button", { name: "Delete Blocky Brand 700" }).click();
      const dialog = page.getByRole("dialog", { name: "Delete Blocky Brand 700?" });
      await dialog.waitFor();
      expect(await dialog.textContent()).toContain("Templates that name Blocky Brand are refused (400)");
      await page.screenshot({ path: screenshotPath("fonts-delete"), clip: { x: 0, y: 0, width: 1280, height: 900 } });
      await dialog.getByRole("button", { name: "Keep it" }).click();
      await dialog.waitFor({ state: "detached" });
      expect((await accountFonts(key)).map((f) => f.family)).toEqual(["Blocky Brand", "Brand Serif"]);

      await page.getByRole("button", { name: "Delete Blocky Brand 700" }).click();
      await dialog.getByRole("button", { name: "Delete Blocky Brand 700" }).click();
      await page.getByText("Deleted Blocky Brand 700.").waitFor();
      expect(await list.locator(".font-family-name").allTextContents()).toEqual(["Brand Serif"]);
      expect((await accountFonts(key)).map((f) => f.family)).toEqual(["Brand Serif"]);
      await page.close();
    },
    BROWSER_TEST_TIMEOUT,
  );

  test(
    "errors as the API words them: 400 naming the file or the family, 413 over 5 MiB, 409 past 20 fonts",
    async () => {
      const key = await newAccount();
      const page = await signIn(key);
      await openFonts(page);
      const fileError = page.locator('[data-error-for="file"]');
      const formError = page.locator('[data-error-for="_form"]');

      // Not a font: next to the file field, in the API's words.
      const notFont = new TextEncoder().encode("<html>this is not a font at all</html>");
      const apiAnswer = (await (await apiUpload(await newAccount(), notFont)).json()) as { details: { field: string; message: string }[] };
      expect(apiAnswer.details[0]!.field).toBe("file");
      await uploadInPage(page, notFont, "notes.ttf");
      await fileError.waitFor();
      const shown = (await fileError.textContent())!;
      expect(shown.toLowerCase()).toBe(apiAnswer.details[0]!.message.toLowerCase());
      expect(await page.getByLabel("Font file").getAttribute("aria-invalid")).toBe("true");
      await page.screenshot({ path: screenshotPath("fonts-error-file"), fullPage: true });

      // A bundled family's name: next to the family field.
      await uploadInPage(page, pixelFont("Fine"), "fine.otf", { family: "Inter" });
      await page.locator('[data-error-for="family"]').getByText("is a bundled or generic family").waitFor();
      expect(await fileError.isHidden()).toBe(true);

      // Over 5 MiB: 413, the API's message whole.
      const big = new Uint8Array(5 * 1024 * 1024 + 1);
      big.set(pixelFont("Big"));
      await uploadInPage(page, big, "big.otf");
      await formError.getByText("The font file is 5.0 MiB; at most 5 MiB.").waitFor();

      // Twenty fonts (through the API), then a 21st here: 409 with the bound.
      for (let i = 0; i < 20; i++) expect((await apiUpload(key, pixelFont(`Many ${i}`))).status).toBe(201);
      await uploadInPage(page, pixelFont("One Too Many"), "many.otf");
      await formError.getByText("An account can have at most 20 fonts. Delete one first.").waitFor();
      expect((await accountFonts(key)).length).toBe(20);
      // Nothing the page sent was stored.
      expect((await accountFonts(key)).some((f) => ["Fine", "Big", "One Too Many"].includes(f.family))).toBe(false);
      await page.close();
    },
    BROWSER_TEST_TIMEOUT,
  );

  test(
    "the editor lists the account's families, puts one at the cursor, and shows the preview's warning",
    async () => {
      const key = await newAccount();
      expect((await apiUpload(key, pixelFont("Blocky Brand"))).status).toBe(201);
      const html =
        '<div style="display: flex; width: 100%; height: 100%; padding: 60px; background-color: #ffffff; color: #000000; font-size: 120px; font-family: Inter">{{title}}</div>';
      const created = await fx.s.api("/api/templates", {
        key,
        json: { id: "brand-card", html, fields: [{ name: "title", type: "text", required: true }], sample: { title: "Hello Brand" } },
      });
      expect(created.status).toBe(201);
      const page = await signIn(key);
      await page.goto(fx.s.url + "/dashboard#/templates/brand-card");
      await page.getByRole("heading", { name: "brand-card", level: 1 }).waitFor();

      // The account's family and the bundled ones, beside the code.
      const fonts = page.locator("#template-fonts");
      await fonts.getByRole("list", { name: "Your fonts" }).getByRole("button", { name: "Insert Blocky Brand at the cursor" }).waitFor();
      for (const family of ["Inter", "Source Serif 4", "JetBrains Mono"])
        await fonts
          .getByRole("list", { name: "Bundled fonts" })
          .getByRole("button", { name: `Insert ${family} at the cursor` })
          .waitFor();
      const preview = async (after: number) => {
        await page.waitForFunction((n) => Number(document.querySelector<HTMLImageElement>("#template-preview")?.dataset.sequence ?? 0) > n, after);
        const sequence = Number(await page.locator("#template-preview").getAttribute("data-sequence"));
        return { sequence, ...(await inkOfImage(page.locator("#template-preview"))) };
      };
      const inter = await preview(0);
      expect(await page.locator(".warnings").isHidden()).toBe(true);

      // A family the server does not have: drawn in Inter, and the warning says so.
      await selectInEditor(page, "font-family: Inter", "Inter".length);
      await page.keyboard.type("Nowhere Sans");
      const warning = page.locator("#template-warnings li", { hasText: "Nowhere Sans" });
      await warning.waitFor();
      expect(await warning.textContent()).toContain("names no font this server has");
      expect(await warning.textContent()).toContain("drawn in Inter");
      await page.screenshot({ path: screenshotPath("template-editor-font-warning"), fullPage: true });

      // Select it and pick the account's family instead: no warning, and the card drawn in the face.
      await selectInEditor(page, "font-family: Nowhere Sans", "Nowhere Sans".length);
      const before = Number(await page.locator("#template-preview").getAttribute("data-sequence"));
      await fonts.getByRole("button", { name: "Insert Blocky Brand at the cursor" }).click();
      expect(await page.locator(".cm-content").textContent()).toContain("font-family: Blocky Brand");
      await page.locator(".warnings").waitFor({ state: "hidden" });
      const blocky = await preview(before);
      expect(blocky.ink).toBeGreaterThan(inter.ink * 2);
      await page.screenshot({ path: screenshotPath("template-editor-fonts"), fullPage: true });

      await page.getByRole("button", { name: "Save as new version" }).click();
      await page.getByText("Saved as version 2.").waitFor();
      const saved = (await (await fx.s.api("/api/templates/brand-card", { key })).json()) as { html: string };
      expect(saved.html).toContain("font-family: Blocky Brand");
      await page.close();
    },
    BROWSER_TEST_TIMEOUT,
  );

  test(
    "at 375 px: no horizontal scroll; upload, the sample and Delete are reachable",
    async () => {
      const key = await newAccount();
      expect((await apiUpload(key, pixelFont("A Rather Long Family Name For A Phone"))).status).toBe(201);
      const page = await signIn(key, { width: 375, height: 812 });
      await openFonts(page);
      await uploadInPage(page, pixelFont("Phone Face"), "phone.otf", { weight: "400", style: "italic" });
      await page.getByText("Uploaded Phone Face 400 italic.").waitFor();
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);

      // Every control is inside the viewport's width once scrolled to.
      for (const control of [
        page.getByLabel("Font file"),
        page.getByLabel("Family", { exact: true }),
        page.getByLabel("Weight", { exact: true }),
        page.getByLabel("Style", { exact: true }),
        page.getByRole("button", { name: "Upload font" }),
        page.getByRole("button", { name: "Delete Phone Face 400 italic" }),
        page.getByRole("button", { name: "Delete A Rather Long Family Name For A Phone 400" }),
        page.getByRole("img", { name: "Sample of Phone Face 400 italic" }),
      ]) {
        await control.scrollIntoViewIfNeeded();
        const box = (await control.boundingBox())!;
        expect(box.x).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width).toBeLessThanOrEqual(375);
      }
      await inkOfImage(sampleOf(page, "Phone Face"));
      await page.screenshot({ path: screenshotPath("fonts-375"), fullPage: true });

      // Delete works from the phone too.
      await page.getByRole("button", { name: "Delete Phone Face 400 italic" }).click();
      await page.getByRole("dialog", { name: "Delete Phone Face 400 italic?" }).getByRole("button", { name: "Delete Phone Face 400 italic" }).click();
      await page.getByText("Deleted Phone Face 400 italic.").waitFor();
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
      await page.close();
    },
    BROWSER_TEST_TIMEOUT,
  );
});

/** Selects the last `length` characters of `needle` in the code editor: a click just after it, then Shift+Left. */
async function selectInEditor(page: Page, needle: string, length: number) {
  await clickAfter(page, needle);
  for (let i = 0; i < length; i++) await page.keyboard.press("Shift+ArrowLeft");
}
