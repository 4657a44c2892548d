/**
 * The dashboard's Signing keys page in a real browser (Debian's chromium through playwright-core)
 * against the real service on port 0: create a key (its secret shown once, never listed again),
 * build a URL from the playground's fields with one click, fetch it (a 200 image), delete the key
 * (the URL answers 401 at once).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { browserTestsCanRun, launchBrowser, screenshotPath, type TestBrowser } from "../support/browser.ts";
import { startTestService, type TestService } from "../support/harness.ts";
import { decodePng } from "../support/png.ts";

const browserReady = browserTestsCanRun("dashboard signing-keys browser test");
const BROWSER_TEST_TIMEOUT = 60_000;

describe.skipIf(!browserReady)("dashboard: signing keys", () => {
  let s: TestService;
  let browser: TestBrowser;
  beforeAll(async () => {
    s = await startTestService();
    browser = await launchBrowser();
  }, BROWSER_TEST_TIMEOUT);
  afterAll(async () => {
    await browser?.close();
    await s?.stop();
  });

  test(
    "create a key, build a URL from the playground's fields, fetch the image, delete the key",
    async () => {
      const { apiKey } = await s.createAccount({ plan: "custom", quota: 100, requests_per_second: 100 });
      const page = await browser.newPage();
      await page.goto(s.url + "/dashboard");
      await page.getByLabel("API key").fill(apiKey);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("heading", { name: "Usage", level: 1 }).waitFor();

      // The playground's fields are what the URL carries.
      await page.getByRole("link", { name: "Playground" }).click();
      await page.getByRole("heading", { name: "Playground", level: 1 }).waitFor();
      await page.getByLabel("title (required)").fill("Built in the dashboard");

      await page.getByRole("link", { name: "Signing keys" }).click();
      await page.getByRole("heading", { name: "Signing keys", level: 1 }).waitFor();
      await page.getByRole("button", { name: "Create signing key" }).click();
      const secret = await page.getByLabel("Secret (shown once)").inputValue();
      expect(secret).toMatch(/^ogsk_[A-Za-z0-9_-]{43}$/);
      const listed = (await (await s.api("/api/signing-keys", { key: apiKey })).json()) as { data: { id: string }[] };
      expect(listed.data).toHaveLength(1);
      const keyId = listed.data[0]!.id;
      expect(JSON.stringify(listed)).not.toContain(secret);
      await page.getByRole("region", { name: "Signing keys" }).getByText(keyId).waitFor();

      await page.getByRole("button", { name: "Build URL" }).click();
      const field = page.getByLabel("Image URL");
      await page.waitForFunction(() => (document.querySelector("#signed-url") as HTMLInputElement | null)?.value.includes("/i/"));
      const url = new URL(await field.inputValue());
      expect(url.pathname).toStartWith(`/i/${keyId}/`);
      expect(url.pathname).toEndWith("/event.png");
      expect(url.searchParams.get("title")).toBe("Built in the dashboard");
      await page.screenshot({ path: screenshotPath("signing-keys"), fullPage: true });

      const image = await fetch(s.url + url.pathname + url.search);
      expect(image.status).toBe(200);
      expect(image.headers.get("content-type")).toBe("image/png");
      const png = decodePng(new Uint8Array(await image.arrayBuffer()));
      expect([png.width, png.height]).toEqual([1200, 630]);

      // Reload: the secret is gone from the page; delete stops the URL at once.
      await page.reload();
      await page.getByRole("heading", { name: "Signing keys", level: 1 }).waitFor();
      expect(await page.content()).not.toContain(secret);
      await page.getByRole("button", { name: `Delete ${keyId}` }).click();
      await page.getByText("No signing keys yet.").waitFor();
      expect((await fetch(s.url + url.pathname + url.search)).status).toBe(401);
      await page.close();
    },
    BROWSER_TEST_TIMEOUT,
  );
});
