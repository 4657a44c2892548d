/**
 * The template studio in a real browser (Debian's chromium through playwright-core) against the
 * real service on port 0: create a template from a starter, type in the code editor and see the
 * preview change, make an error and see it at its line, save (version 2), restore version 1
 * (version 3 with version 1's content), copy the signed URL and fetch it; duplicate and delete
 * from the list; the editor at 375 px with no horizontal scroll; leaving the editor (a link, Back,
 * Sign out) or restoring a version over unsaved edits asks first. Screenshots go to the temp dir
 * test/support/browser.ts prints.
 */
import { beforeEach, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { browserTestsCanRun, clickAfter, screenshotPath, useBrowserWithService } from "../support/browser.ts";
import { decodePng } from "../support/png.ts";

const browserReady = browserTestsCanRun("template studio browser tests");
const BROWSER_TEST_TIMEOUT = 120_000;

describe.skipIf(!browserReady)("template studio in a browser", () => {
  const fx = useBrowserWithService(BROWSER_TEST_TIMEOUT);
  beforeEach(async () => {
    await fx.browser.context.clearCookies();
  });

  async function signIn(apiKey: string, options: { width?: number } = {}): Promise<Page> {
    const page = await fx.browser.newPage({ width: options.width });
    page.on("pageerror", (error) => console.log(`page error: ${error.message}`));
    await page.goto(fx.s.url + "/dashboard");
    await page.getByLabel("API key").fill(apiKey);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Usage", level: 1 }).waitFor();
    return page;
  }

  /**
   * The preview on screen: its number (each answer shown carries the number of the edit it
   * answers), its size and a digest of its pixels (read back through a canvas: the page's CSP
   * lets nothing fetch the blob: URL, as it should).
   */
  async function previewNow(page: Page): Promise<{ sequence: number; width: number; height: number; digest: string }> {
    await page.waitForFunction(() => document.querySelector<HTMLImageElement>("#template-preview")?.complete);
    return page.evaluate(async () => {
      const img = document.querySelector<HTMLImageElement>("#template-preview")!;
      await img.decode();
      const canvas = document.createElement("canvas");
      canvas.width = img.naturalWidth;
      canvas.height = img.naturalHeight;
      const context = canvas.getContext("2d")!;
      context.drawImage(img, 0, 0);
      const pixels = context.getImageData(0, 0, canvas.width, canvas.height).data;
      const digest = Array.from(new Uint8Array(await crypto.subtle.digest("SHA-256", pixels)), (b) => b.toString(16).padStart(2, "0")).join("");
      return { sequence: Number(img.dataset.sequence), width: img.naturalWidth, height: img.naturalHeight, digest };
    });
  }

  /** Waits for a preview newer than `after` to be shown. */
  async function nextPreview(page: Page, after: number) {
    await page.waitForFunction((n) => Number(document.querySelector<HTMLImageElement>("#template-preview")?.dataset.sequence ?? 0) > n, after);
    return previewNow(page);
  }

  const api = async (path: string, key: string, init: { method?: string; json?: unknown } = {}) => {
    const res = await fx.s.api(path, { key, ...init });
    return { status: res.status, body: (await res.json()) as any };
  };

  test(
    "from a starter to a signed URL: create, type and watch the preview, an error at its line, save, restore, copy the URL and fetch it",
    async () => {
      // A generous rate: previews share the key's window with this test's own API calls.
      const { apiKey } = await fx.s.createAccount({ plan: "custom", quota: 10_000, requests_per_second: 100 });
      expect((await api("/api/signing-keys", apiKey, { method: "POST" })).status).toBe(201);
      const page = await signIn(apiKey);
      await fx.browser.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: fx.s.url });

      // New from the Product launch starter.
      await page.getByRole("link", { name: "Templates" }).click();
      await page.getByRole("heading", { name: "Templates", level: 1 }).waitFor();
      await page.getByLabel(/Product launch/).check();
      await page.getByLabel("Template id").fill("launch");
      await page.screenshot({ path: screenshotPath("templates-list-empty"), fullPage: true });
      await page.getByRole("button", { name: "Create template" }).click();
      await page.getByRole("heading", { name: "Product launch", level: 1 }).waitFor();
      const created = await api("/api/templates/launch", apiKey);
      expect(created.body).toMatchObject({ id: "launch", version: 1, source: "account" });

      // The first preview arrives by itself, and the signed URL of version 1 is there.
      const first = await nextPreview(page, 0);
      expect(first).toMatchObject({ width: 1200, height: 630 });
      // Beside it, what drawing it costs (the preview's X-Template-Cost).
      await page.waitForFunction(() => !document.querySelector<HTMLElement>("#template-cost")?.hidden);
      expect(await page.locator("#template-cost").textContent()).toMatch(/^Drawing cost: about \d+ of 500 units$/);
      await page.waitForFunction(() => (document.querySelector<HTMLInputElement>("#template-signed-url")?.value ?? "").includes("v=1"));

      // Every control on the page has a label, and the keyboard gets into the code pane and out.
      const unlabelled = await page.evaluate(() =>
        [...document.querySelectorAll("#main input, #main select, #main textarea, #main [contenteditable=true]")]
          .filter((el) => !((el as HTMLInputElement).labels?.length || el.getAttribute("aria-label") || el.getAttribute("aria-labelledby")))
          .map((el) => el.outerHTML.slice(0, 80)),
      );
      expect(unlabelled).toEqual([]);
      await page.getByLabel("Template description").focus();
      await page.keyboard.press("Tab");
      expect(await page.evaluate(() => document.activeElement?.classList.contains("cm-content"))).toBe(true);
      await page.keyboard.press("Escape");
      await page.keyboard.press("Tab");
      expect(await page.evaluate(() => Boolean(document.activeElement?.closest(".cm-editor")))).toBe(false);

      // Type in the code editor: the preview follows.
      const html: string = created.body.html;
      const titleLine = html.split("\n").findIndex((line) => line.includes("{{title}}")) + 1;
      expect(titleLine).toBeGreaterThan(0);
      const editor = page.getByRole("textbox", { name: "Template HTML" });
      await editor.waitFor();
      await clickAfter(page, "{{title}}");
      await page.keyboard.type(" is here");
      const typed = await nextPreview(page, first.sequence);
      expect(typed.digest).not.toBe(first.digest);

      // An undeclared placeholder: refused, shown at its line in the editor and in the list.
      await page.keyboard.type(" {{nope}}");
      const problems = page.locator("#template-problems");
      // (Typing passes through other mistakes, such as an unclosed "{{no": wait for this one.)
      const problem = problems.locator("li", { hasText: "{{nope}}" });
      await problem.waitFor();
      expect(await problem.textContent()).toContain(`HTML line ${titleLine}`);
      const marked = page.locator(".cm-lintRange-error");
      await marked.first().waitFor();
      expect(await marked.first().evaluate((el) => el.closest(".cm-line")?.textContent ?? "")).toContain("{{title}} is here {{nope}}");
      await page.screenshot({ path: screenshotPath("template-editor-error"), fullPage: true });
      // Undo the mistake: the problem goes away and the preview renders again.
      for (let i = 0; i < " {{nope}}".length; i++) await page.keyboard.press("Backspace");
      await page.locator("#template-problems li").first().waitFor({ state: "detached" });
      await page.waitForFunction(() => (document.querySelector(".problems") as HTMLElement).hidden);

      // Save: version 2 with the typed text.
      await page.getByRole("button", { name: "Save as new version" }).click();
      await page.getByText("Saved as version 2.").waitFor();
      const v2 = await api("/api/templates/launch", apiKey);
      expect(v2.status).toBe(200);
      expect(v2.body.version).toBe(2);
      expect(v2.body.html).toContain("{{title}} is here</h1>");

      // Restore version 1: version 3 with version 1's content.
      const beforeRestore = await previewNow(page);
      await page.getByRole("button", { name: "Restore version 1" }).click();
      await page.getByText("Restored version 1 as version 3.").waitFor();
      const v3 = await api("/api/templates/launch", apiKey);
      const v1 = await api("/api/templates/launch/versions/1", apiKey);
      expect(v3.body.version).toBe(3);
      expect(v3.body.html).toBe(v1.body.html);
      expect(v3.body.html).not.toContain("is here");
      expect((await api("/api/templates/launch/versions", apiKey)).body.data.map((v: any) => v.version).sort()).toEqual([1, 2, 3]);
      expect(await page.locator(".cm-content").textContent()).not.toContain("is here");

      // Viewing version 2 shows its picture (with the typed words) without touching the draft...
      const restored = await nextPreview(page, beforeRestore.sequence);
      await page.getByRole("button", { name: "View version 2" }).click();
      await page.getByText("Showing version 2").waitFor();
      const viewed = await nextPreview(page, restored.sequence);
      expect(viewed.digest).not.toBe(restored.digest);
      // ...and its HTML, read-only, beside a diff against the editor (version 3, which is version 1).
      const versionView = page.getByRole("region", { name: "Version 2", exact: true });
      await versionView.waitFor();
      const versionCode = page.getByRole("textbox", { name: "Version 2 HTML, read-only" });
      // It opens at the first line the editor no longer has.
      await page.locator(".version-code .cm-line", { hasText: "{{title}} is here" }).waitFor();
      expect(await versionCode.getAttribute("contenteditable")).toBe("false");
      await versionCode.click();
      await page.keyboard.type("typed into a version");
      expect(await versionCode.textContent()).not.toContain("typed into a version");
      expect(await page.locator(".cm-content").first().textContent()).not.toContain("typed into a version");
      const diff = page.getByRole("region", { name: "Changes from version 2 to the editor" });
      const removed = (await diff.locator("del").allTextContents()).join("\n");
      const added = (await diff.locator("ins").allTextContents()).join("\n");
      expect(removed).toContain("{{title}} is here");
      expect(added).toContain("{{title}}");
      expect(added).not.toContain("is here");
      expect(await page.locator("#version-diff-caption").textContent()).toMatch(/^1 line removed, 1 added \(− version 2, \+ the editor: version 3\)\.$/);
      await page.screenshot({ path: screenshotPath("template-editor-version"), fullPage: true });
      // On a phone the two stack, with no horizontal scroll.
      await page.setViewportSize({ width: 375, height: 812 });
      await page.waitForFunction(() => document.documentElement.scrollWidth <= 375);
      const [code, changes] = await page.evaluate(() =>
        [".version-code", "#version-diff"].map((selector) => document.querySelector(selector)!.getBoundingClientRect().toJSON()),
      );
      expect(code.right).toBeLessThanOrEqual(375);
      expect(changes.top).toBeGreaterThanOrEqual(code.bottom);
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      await versionView.screenshot({ path: screenshotPath("template-editor-version-375") });
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.getByRole("button", { name: "Back to the editor" }).click();
      const back = await nextPreview(page, viewed.sequence);
      expect(back.digest).toBe(restored.digest);
      expect(await versionView.isHidden()).toBe(true);

      // Size presets and the theme switch redraw the preview at that size, in that theme.
      await page.getByText("1080 × 1080", { exact: true }).click();
      const square = await nextPreview(page, back.sequence);
      expect(square).toMatchObject({ width: 1080, height: 1080 });
      await page.getByText("1000 × 1500", { exact: true }).click();
      const portrait = await nextPreview(page, square.sequence);
      expect(portrait).toMatchObject({ width: 1000, height: 1500 });
      await page.locator("label[for=theme-light]").click();
      const light = await nextPreview(page, portrait.sequence);
      expect(light).toMatchObject({ width: 1000, height: 1500 });
      expect(light.digest).not.toBe(portrait.digest);
      await page.getByText("1200 × 630", { exact: true }).click();
      await page.locator("label[for=theme-dark]").click();

      // The signed URL of version 3, copied and fetched.
      const urlField = page.getByLabel("Signed image URL");
      await page.waitForFunction(() => {
        const url = document.querySelector<HTMLInputElement>("#template-signed-url")?.value ?? "";
        return url.includes("v=3") && url.includes("theme=dark");
      });
      await page.getByRole("button", { name: "Copy URL" }).click();
      const copied = await page.evaluate(() => navigator.clipboard.readText());
      expect(copied).toBe(await urlField.inputValue());
      // The URL is on OG_BASE_URL, which the harness leaves at a placeholder: fetch its path here.
      const signed = new URL(copied);
      expect(signed.searchParams.get("v")).toBe("3");
      const image = await fetch(fx.s.url + signed.pathname + signed.search);
      expect(image.status).toBe(200);
      expect(image.headers.get("content-type")).toBe("image/png");
      expect(decodePng(new Uint8Array(await image.arrayBuffer())).width).toBe(1200);
      const curl = await page.getByLabel("curl command").inputValue();
      expect(curl).toContain('"template":"launch"');
      expect(curl).toContain('"template_version":3');
      await page.screenshot({ path: screenshotPath("template-editor"), fullPage: true });

      // The same page on a phone: editor and preview stacked, no horizontal scroll.
      await page.setViewportSize({ width: 375, height: 812 });
      await page.waitForFunction(() => document.documentElement.scrollWidth <= 375);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
      // The preview comes first on a phone, above the design.
      const order = await page.evaluate(() => [
        document.querySelector(".studio-preview")!.getBoundingClientRect().top,
        document.querySelector(".studio-edit")!.getBoundingClientRect().top,
      ]);
      expect(order[0]).toBeLessThan(order[1]!);
      // Let the code pane measure its wrapped lines at the new width before the picture.
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      await page.screenshot({ path: screenshotPath("template-editor-375"), fullPage: true });
      await page.close();
    },
    BROWSER_TEST_TIMEOUT,
  );

  test(
    "the list: every template with name, id, version and date (a name that looks like HTML stays text); duplicate; delete only after confirming; new from blank",
    async () => {
      // A generous rate: previews share the key's window with this test's own API calls.
      const { apiKey } = await fx.s.createAccount({ plan: "custom", quota: 10_000, requests_per_second: 100 });
      const starters = (await (await fetch(fx.s.url + "/dashboard/api/starters")).json()) as any;
      expect(starters.code).toBe("UNAUTHORIZED");
      const page = await signIn(apiKey);
      const list = await page.evaluate(async () => (await (await fetch("/dashboard/api/starters")).json()) as any);
      const quote = list.data.find((s: any) => s.id === "quote");
      expect((await api("/api/templates", apiKey, { method: "POST", json: { ...quote, id: "said", name: "What they said" } })).status).toBe(201);

      // A name that looks like HTML is shown as the characters it is, in the list and the editor.
      const markup = '<img src=x onerror="window.pwned=1"><b>Bold</b>';
      expect((await api("/api/templates", apiKey, { method: "POST", json: { ...quote, id: "markup", name: markup } })).status).toBe(201);

      await page.goto(fx.s.url + "/dashboard#/templates");
      const table = page.getByRole("region", { name: "Your templates" });
      await table.getByRole("cell", { name: "said", exact: true }).waitFor();
      expect(await table.getByRole("row").filter({ hasText: "said" }).first().textContent()).toContain("What they said");
      await table.getByText(markup).waitFor();
      expect(await page.locator("#template-list img, #template-list b").count()).toBe(0);
      await page.goto(fx.s.url + "/dashboard#/templates/markup");
      await page.getByRole("heading", { name: markup, level: 1 }).waitFor();
      expect(await page.locator("#main h1 img, #main h1 b").count()).toBe(0);
      expect(await page.evaluate(() => (window as any).pwned)).toBeUndefined();
      await page.goto(fx.s.url + "/dashboard#/templates");
      await table.getByRole("cell", { name: "said", exact: true }).waitFor();

      // Duplicate: a new template with the same content under a new id.
      await page.getByRole("button", { name: "Duplicate said" }).click();
      await page.getByLabel("Id of the copy of said").fill("said-too");
      await page.getByRole("button", { name: "Create copy" }).click();
      await page.getByRole("heading", { name: "What they said (copy)", level: 1 }).waitFor();
      const copy = await api("/api/templates/said-too", apiKey);
      expect(copy.body.html).toBe(quote.html);

      // Delete asks first; Cancel keeps it, the confirming button deletes it.
      await page.goto(fx.s.url + "/dashboard#/templates");
      await page.getByRole("button", { name: "Delete said-too" }).click();
      await page.getByRole("group", { name: "Confirm deleting said-too" }).waitFor();
      await page.getByRole("button", { name: "Cancel" }).click();
      expect((await api("/api/templates/said-too", apiKey)).status).toBe(200);
      await page.getByRole("button", { name: "Delete said-too" }).click();
      await page.getByRole("group", { name: "Confirm deleting said-too" }).getByRole("button", { name: "Delete said-too" }).click();
      await page.getByText("Deleted said-too.").waitFor();
      expect((await api("/api/templates/said-too", apiKey)).status).toBe(404);
      expect((await api("/api/templates/said", apiKey)).status).toBe(200);

      // A clashing id is shown next to the id field, as text.
      await page.getByLabel("Template id").fill("said");
      await page.getByRole("button", { name: "Create template" }).click();
      await page.getByText("Is taken in this account").waitFor();
      await page.screenshot({ path: screenshotPath("templates-list"), fullPage: true });

      await page.setViewportSize({ width: 375, height: 812 });
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
      await page.screenshot({ path: screenshotPath("templates-list-375"), fullPage: true });

      // New from blank: a valid one-field template to start from nothing.
      await page.getByLabel(/^Blank/).check();
      await page.getByLabel("Template id").fill("plain");
      await page.getByRole("button", { name: "Create template" }).click();
      await page.getByRole("heading", { name: "plain", level: 1 }).waitFor();
      const plain = await api("/api/templates/plain", apiKey);
      expect(plain.body).toMatchObject({ version: 1, fields: [{ name: "title", type: "text", required: true }] });
      await nextPreview(page, 0);
      await page.close();
    },
    BROWSER_TEST_TIMEOUT,
  );
  test(
    "a slow answer to an older edit never replaces the preview of a newer one",
    async () => {
      const { apiKey } = await fx.s.createAccount({ plan: "custom", quota: 10_000, requests_per_second: 100 });
      const page = await signIn(apiKey);
      const quote = (await page.evaluate(async () => (await (await fetch("/dashboard/api/starters")).json()) as any)).data.find((s: any) => s.id === "quote");
      expect((await api("/api/templates", apiKey, { method: "POST", json: { ...quote, id: "slow" } })).status).toBe(201);
      await page.goto(fx.s.url + "/dashboard#/templates/slow");
      const first = await nextPreview(page, 0);

      // Hold back the preview of the first edit; let every other one through.
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let held: import("playwright-core").Request | undefined;
      let heldSettled!: Promise<void>;
      let arrived!: () => void;
      const heldArrived = new Promise<void>((resolve) => (arrived = resolve));
      await page.route("**/dashboard/api/account-templates/preview", async (route) => {
        if (!held && route.request().postData()?.includes("first edit")) {
          held = route.request();
          arrived();
          // Finished or failed (the page aborts it when a newer edit goes out): watched from now on.
          heldSettled = new Promise((resolve) => {
            const settle = (request: import("playwright-core").Request) => request === held && resolve();
            page.on("requestfinished", settle);
            page.on("requestfailed", settle);
          });
          await released;
          await route.continue().catch(() => {}); // the page may have given up on it already
          return;
        }
        await route.continue();
      });
      await clickAfter(page, "{{quote}}");
      await page.keyboard.type(" first edit");
      await heldArrived;
      await page.keyboard.type(" and a second");
      const second = await nextPreview(page, first.sequence);
      expect(second.digest).not.toBe(first.digest);

      // Now the older answer may come (or was dropped by the page): the newer preview stays.
      release();
      await heldSettled;
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      const after = await previewNow(page);
      expect(after).toEqual(second);
      await page.close();
    },
    BROWSER_TEST_TIMEOUT,
  );
  test(
    "fields and theme variables: a colour change redraws the card, removing a used field is refused at its line, a new field saves (Ctrl+S)",
    async () => {
      const { apiKey } = await fx.s.createAccount({ plan: "custom", quota: 10_000, requests_per_second: 100 });
      const page = await signIn(apiKey);
      const quote = (await page.evaluate(async () => (await (await fetch("/dashboard/api/starters")).json()) as any)).data.find((s: any) => s.id === "quote");
      expect((await api("/api/templates", apiKey, { method: "POST", json: { ...quote, id: "rows" } })).status).toBe(201);
      await page.goto(fx.s.url + "/dashboard#/templates/rows");
      const first = await nextPreview(page, 0);

      // The dark background, through its theme variable: the card changes colour.
      const bgRow = page.locator(".var-row", { has: page.locator('input[value="bg"]') });
      await bgRow.getByLabel("Dark").fill("#7F1D1D");
      const red = await nextPreview(page, first.sequence);
      expect(red.digest).not.toBe(first.digest);

      // Removing a field the HTML still uses: refused, at the line that uses it.
      const sourceLine = quote.html.split("\n").findIndex((line: string) => line.includes("{{source}}")) + 1;
      await page.locator("summary", { hasText: /^source/ }).click();
      await page.getByRole("button", { name: "Remove field source" }).click();
      await page.locator("#template-problems").getByText(`HTML line ${sourceLine}`).waitFor();
      await page.getByRole("button", { name: "Save as new version" }).click();
      await page.getByText("Not saved: fix the problems listed under the editor.").waitFor();
      expect((await api("/api/templates/rows", apiKey)).body.version).toBe(1);

      // Undo by adding it back as a new field, with a sample value: saved as version 2.
      await page.getByRole("button", { name: "Add field" }).click();
      const added = page.locator("details.field-row").last();
      await added.getByLabel("Name").fill("source");
      await added.getByLabel("Max length").fill("30");
      await added.getByLabel("Sample value").fill("example.org");
      await page.locator("#template-problems li").first().waitFor({ state: "detached" });
      // Saved from the keyboard, in the code pane.
      await page.getByRole("textbox", { name: "Template HTML" }).focus();
      await page.keyboard.press("Control+s");
      await page.getByText("Saved as version 2.").waitFor();
      const saved = (await api("/api/templates/rows", apiKey)).body;
      expect(saved.fields.find((f: any) => f.name === "source")).toEqual({ name: "source", type: "text", required: false, max_length: 30 });
      expect(saved.sample.source).toBe("example.org");
      expect(saved.themes.dark.bg).toBe("#7F1D1D");
      await page.close();
    },
    BROWSER_TEST_TIMEOUT,
  );

  /** A template from the quote starter, and the editor open on it with its first preview shown. */
  async function editorOn(page: Page, apiKey: string, id: string) {
    const quote = (await page.evaluate(async () => (await (await fetch("/dashboard/api/starters")).json()) as any)).data.find((s: any) => s.id === "quote");
    expect((await api("/api/templates", apiKey, { method: "POST", json: { ...quote, id } })).status).toBe(201);
    await page.goto(fx.s.url + `/dashboard#/templates/${id}`);
    await nextPreview(page, 0);
  }
  const leaveDialog = (page: Page) => page.getByRole("dialog", { name: "Discard unsaved changes?" });
  const hashOf = (page: Page) => page.evaluate(() => location.hash);

  test(
    "leaving the editor by a link with unsaved changes asks first: Keep editing stays with the edit, Leave without saving leaves; without edits or after saving, links leave at once",
    async () => {
      const { apiKey } = await fx.s.createAccount({ plan: "custom", quota: 10_000, requests_per_second: 100 });
      const page = await signIn(apiKey);
      await editorOn(page, apiKey, "keep");
      const nav = page.getByRole("navigation", { name: "Dashboard" });

      // No edit: the nav link leaves at once.
      await nav.getByRole("link", { name: "Usage" }).click();
      await page.getByRole("heading", { name: "Usage", level: 1 }).waitFor();
      expect(await page.getByRole("dialog").count()).toBe(0);

      // An edit in the code pane, then the nav link: asked, in a modal dialog, focus on the safe answer.
      await page.goto(fx.s.url + "/dashboard#/templates/keep");
      await nextPreview(page, 0);
      await clickAfter(page, "{{quote}}");
      await page.keyboard.type(" not saved yet");
      await nav.getByRole("link", { name: "Templates" }).click();
      await leaveDialog(page).waitFor();
      expect(await page.evaluate(() => document.querySelector("dialog")?.matches(":modal"))).toBe(true);
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Keep editing");
      // (Clipped to the viewport: a plain viewport screenshot can leave out the dialog's backdrop.)
      await page.screenshot({ path: screenshotPath("template-editor-leave"), clip: { x: 0, y: 0, width: 1280, height: 900 } });

      // Keep editing: still in the editor, the edit where it was, focus back on the link.
      await leaveDialog(page).getByRole("button", { name: "Keep editing" }).click();
      await leaveDialog(page).waitFor({ state: "detached" });
      expect(await hashOf(page)).toBe("#/templates/keep");
      expect(await page.locator(".cm-content").textContent()).toContain("{{quote}} not saved yet");
      expect(await page.getByText("Unsaved changes", { exact: true }).isVisible()).toBe(true);
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Templates");

      // Escape answers the same; the breadcrumb asks as the nav does.
      await page.locator(".breadcrumb").getByRole("link", { name: "Templates" }).click();
      await leaveDialog(page).waitFor();
      await page.keyboard.press("Escape");
      await leaveDialog(page).waitFor({ state: "detached" });
      expect(await hashOf(page)).toBe("#/templates/keep");
      expect(await page.locator(".cm-content").textContent()).toContain("{{quote}} not saved yet");

      // Leave without saving: the Templates page, and the template as it was.
      await nav.getByRole("link", { name: "Templates" }).click();
      await leaveDialog(page).getByRole("button", { name: "Leave without saving" }).click();
      await page.getByRole("heading", { name: "Templates", level: 1 }).waitFor();
      expect(await hashOf(page)).toBe("#/templates");
      expect((await api("/api/templates/keep", apiKey)).body.version).toBe(1);

      // Edit, save: the nav link leaves at once.
      await page.getByRole("link", { name: "Edit keep" }).click();
      await nextPreview(page, 0);
      await page.getByLabel("Template name").fill("Kept");
      await page.getByRole("button", { name: "Save as new version" }).click();
      await page.getByText("Saved as version 2.").waitFor();
      await nav.getByRole("link", { name: "Usage" }).click();
      await page.getByRole("heading", { name: "Usage", level: 1 }).waitFor();
      expect(await page.getByRole("dialog").count()).toBe(0);
      expect((await api("/api/templates/keep", apiKey)).body).toMatchObject({ version: 2, name: "Kept" });
      await page.close();
    },
    BROWSER_TEST_TIMEOUT,
  );

  test(
    "Back and Forward, signing out and restoring a version over unsaved changes ask first; the skip link leaves nothing",
    async () => {
      const { apiKey } = await fx.s.createAccount({ plan: "custom", quota: 10_000, requests_per_second: 100 });
      const page = await signIn(apiKey);
      await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Templates" }).click();
      await page.getByRole("heading", { name: "Templates", level: 1 }).waitFor();
      await editorOn(page, apiKey, "away");
      const description = await page.getByLabel("Template description").inputValue();
      await page.getByLabel("Template description").fill("An edit");

      // The skip link moves focus within the page: no question, no new page, the edit stays.
      await page.locator(".skip-link").focus();
      await page.keyboard.press("Enter");
      await page.waitForFunction(() => location.hash === "#main");
      expect(await page.getByRole("dialog").count()).toBe(0);
      expect(await page.getByLabel("Template description").inputValue()).toBe("An edit");
      await page.goBack();
      await page.waitForFunction(() => location.hash === "#/templates/away");
      expect(await page.getByRole("dialog").count()).toBe(0);
      expect(await page.getByLabel("Template description").inputValue()).toBe("An edit");

      // Back: asked, with the address on the editor again; Keep editing stays, with the edit.
      await page.goBack();
      await leaveDialog(page).waitFor();
      expect(await hashOf(page)).toBe("#/templates/away");
      await leaveDialog(page).getByRole("button", { name: "Keep editing" }).click();
      await leaveDialog(page).waitFor({ state: "detached" });
      expect(await hashOf(page)).toBe("#/templates/away");
      expect(await page.getByLabel("Template description").inputValue()).toBe("An edit");
      // Back again and leave: the Templates page the editor was opened from.
      await page.goBack();
      await leaveDialog(page).getByRole("button", { name: "Leave without saving" }).click();
      await page.getByRole("heading", { name: "Templates", level: 1 }).waitFor();
      expect(await hashOf(page)).toBe("#/templates");
      // Forward: the editor again, as saved (nothing to ask on the way in).
      await page.goForward();
      await nextPreview(page, 0);
      expect(await page.getByLabel("Template description").inputValue()).toBe(description);

      // Restoring a version over unsaved changes asks; Keep editing keeps them and restores nothing.
      await page.getByLabel("Template description").fill("Version two");
      await page.getByRole("button", { name: "Save as new version" }).click();
      await page.getByText("Saved as version 2.").waitFor();
      await page.getByLabel("Template description").fill("Not saved");
      await page.getByRole("button", { name: "Restore version 1" }).click();
      const restoreDialog = page.getByRole("dialog", { name: "Restore version 1?" });
      await restoreDialog.getByRole("button", { name: "Keep editing" }).click();
      await restoreDialog.waitFor({ state: "detached" });
      expect(await page.getByLabel("Template description").inputValue()).toBe("Not saved");
      expect((await api("/api/templates/away", apiKey)).body.version).toBe(2);
      await page.getByRole("button", { name: "Restore version 1" }).click();
      await restoreDialog.getByRole("button", { name: "Discard changes and restore version 1" }).click();
      await page.getByText("Restored version 1 as version 3. Your unsaved changes were discarded.").waitFor();
      expect(await page.getByLabel("Template description").inputValue()).toBe(description);
      expect(await page.getByText("Unsaved changes", { exact: true }).isVisible()).toBe(false);

      // Signing out with unsaved changes asks too.
      await page.getByLabel("Template description").fill("Last words");
      await page.getByRole("button", { name: "Sign out" }).click();
      await leaveDialog(page).getByRole("button", { name: "Keep editing" }).click();
      await leaveDialog(page).waitFor({ state: "detached" });
      expect(await page.getByLabel("Template description").inputValue()).toBe("Last words");
      await page.getByRole("button", { name: "Sign out" }).click();
      await leaveDialog(page).getByRole("button", { name: "Sign out without saving" }).click();
      await page.getByText("You are signed out.").waitFor();
      expect((await api("/api/templates/away", apiKey)).body).toMatchObject({ version: 3, description });
      await page.close();
    },
    BROWSER_TEST_TIMEOUT,
  );
});
