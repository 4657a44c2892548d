/**
 * The dashboard in a real browser (Debian's chromium through playwright-core) against the real
 * service: the Usage page lists the account's batches with their progress and follows a running
 * one to the end; the template studio previews every size of a template's size set side by side,
 * and keeps the size set when it saves.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { browserTestsCanRun, launchBrowser, screenshotPath, type TestBrowser } from "../support/browser.ts";
import { GATED_PROCESS } from "../support/gated-render-process.ts";
import { startTestService, type TestService } from "../support/harness.ts";

const browserReady = browserTestsCanRun("dashboard batches browser test");
const BROWSER_TEST_TIMEOUT = 60_000;

describe.skipIf(!browserReady)("dashboard: batches and size sets", () => {
  let s: TestService;
  let browser: TestBrowser;
  let gates: string;
  beforeAll(async () => {
    gates = mkdtempSync(join(tmpdir(), "ogsmith-dash-batch-"));
    s = await startTestService({ OG_RENDER_WORKERS: "2", OG_RENDER_TIMEOUT_MS: "60000" }, { renderer: { pool: { command: GATED_PROCESS } } });
    browser = await launchBrowser();
  }, BROWSER_TEST_TIMEOUT);
  afterAll(async () => {
    writeFileSync(join(gates, "held.release"), "");
    await browser?.close();
    await s?.stop();
    rmSync(gates, { recursive: true, force: true });
  });

  async function signIn(apiKey: string) {
    await browser.context.clearCookies();
    const page = await browser.newPage({ width: 1600, height: 1000 });
    await page.goto(s.url + "/dashboard");
    await page.getByLabel("API key").fill(apiKey);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Usage", level: 1 }).waitFor();
    return page;
  }

  test(
    "the Usage page shows each batch with its progress, and follows a running one to done",
    async () => {
      const { apiKey } = await s.createAccount({ plan: "custom", quota: 100, requests_per_second: 1000 });
      await s.api("/api/signing-keys", { key: apiKey, json: {} });
      const items = [
        { title: "one", width: 400, height: 210 },
        { title: `hold:${join(gates, "held")}`, width: 400, height: 210 },
        { title: "three", width: 400, height: 210 },
      ];
      const { id } = await (await s.api("/api/batches", { key: apiKey, json: { items } })).json();

      const page = await signIn(apiKey);
      const row = page.locator(`[data-batch-id="${id}"]`);
      await row.waitFor();
      await page.getByRole("progressbar", { name: `Batch ${id}` }).waitFor();
      expect(await row.getAttribute("data-status")).toMatch(/^(queued|running)$/);
      await page.screenshot({ path: screenshotPath("usage-batches-running"), fullPage: true });

      writeFileSync(join(gates, "held.release"), "");
      // The page refreshes itself while a batch runs.
      await page.waitForFunction((batchId) => document.querySelector(`[data-batch-id="${batchId}"]`)?.getAttribute("data-status") === "done", id, {
        timeout: 20_000,
      });
      expect(await row.locator('[data-testid="batch-progress"]').textContent()).toBe("3 drawn, 0 failed, of 3");
      expect(await page.getByRole("progressbar", { name: `Batch ${id}` }).getAttribute("aria-valuenow")).toBe("3");
      await page.close();
    },
    BROWSER_TEST_TIMEOUT,
  );

  test(
    "the studio previews every size side by side, and saving keeps the size set",
    async () => {
      const { apiKey } = await s.createAccount({ plan: "custom", quota: 100, requests_per_second: 1000 });
      const sizes = { og: { width: 1200, height: 630 }, square: { width: 1080, height: 1080 }, story: { width: 1080, height: 1920 } };
      const created = await s.api("/api/templates", {
        key: apiKey,
        json: {
          id: "social",
          html: '<div class="flex w-full h-full items-center justify-center bg-[#ff0000] portrait:bg-[#0000ff] text-white"><h1>{{title}}</h1></div>',
          fields: [{ name: "title", type: "text" }],
          sample: { title: "Hi" },
          sizes,
        },
      });
      expect(created.status).toBe(201);
      const page = await signIn(apiKey);
      await page.goto(s.url + "/dashboard#/templates/social");
      const set = page.locator('[data-testid="size-set"]');
      await set.waitFor();
      expect(await set.locator("figure").evaluateAll((figures) => figures.map((f) => (f as HTMLElement).dataset.size))).toEqual(["og", "square", "story"]);
      // Every preview arrives, each at its own size's shape.
      await page.waitForFunction(
        () => [...document.querySelectorAll('[data-testid="size-set"] img')].every((img) => (img as HTMLImageElement).naturalWidth > 0),
        null,
        { timeout: 20_000 },
      );
      const shapes = await set
        .locator("img")
        .evaluateAll((imgs) => imgs.map((img) => Math.round(((img as HTMLImageElement).naturalWidth / (img as HTMLImageElement).naturalHeight) * 100) / 100));
      expect(shapes).toEqual([1.9, 1, 0.56]);
      // Side by side: the three figures share a row on a wide page.
      const tops = await set.locator("figure").evaluateAll((figures) => figures.map((f) => Math.round(f.getBoundingClientRect().top)));
      expect(new Set(tops).size).toBe(1);
      await page.screenshot({ path: screenshotPath("studio-size-set"), fullPage: true });

      // An edit to the size set previews the new size too, and saving keeps it.
      const input = page.getByLabel("Sizes");
      expect(await input.inputValue()).toBe("og 1200x630, square 1080x1080, story 1080x1920");
      await input.fill("og 1200x630, square 1080x1080, banner 1500x500");
      await page.locator('[data-testid="size-set"] figure[data-size="banner"]').waitFor();
      await page.getByRole("button", { name: "Save as new version" }).click();
      await page.getByText("Saved as version 2.").waitFor();
      const stored = await (await s.api("/api/templates/social", { key: apiKey })).json();
      expect(stored.sizes).toEqual({ og: sizes.og, square: sizes.square, banner: { width: 1500, height: 500 } });
      await page.close();
    },
    BROWSER_TEST_TIMEOUT,
  );
});
