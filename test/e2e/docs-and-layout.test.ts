/**
 * In a real browser: /docs works fully offline (every request the page makes goes to the server
 * itself), shows no hosted-product buttons and no pre-filled key, and its example body for
 * generate is one the API accepts; the Webhooks page stays within 375 px with the delivery
 * attempts open; the playground carries typed fields to another template; the secret generator
 * makes secrets the Standard Webhooks libraries take as they are.
 */
import { describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { browserTestsCanRun, screenshotPath, useBrowserWithService } from "../support/browser.ts";

const browserReady = browserTestsCanRun("docs/layout browser tests");
const BROWSER_TEST_TIMEOUT = 60_000;
/**
 * /docs is one large script that renders the whole API reference: on a loaded 2-core machine its
 * first render alone can outlast the browser's 10 s default. Loading and rendering it share this
 * deadline (leaving the rest of the test's 60 s for the checks); a page that never renders still
 * fails, with the step that was waiting named in the error.
 */
const DOCS_RENDER_DEADLINE_MS = 40_000;

describe.skipIf(!browserReady)("docs and layout in a browser", () => {
  const fx = useBrowserWithService(BROWSER_TEST_TIMEOUT);

  async function signIn(apiKey: string, width?: number): Promise<Page> {
    await fx.browser.context.clearCookies();
    const page = await fx.browser.newPage({ width });
    await page.goto(fx.s.url + "/dashboard");
    await page.getByLabel("API key").fill(apiKey);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Usage", level: 1 }).waitFor();
    return page;
  }

  test(
    "/docs: every request stays on this server, no hosted-product buttons, no pre-filled key, a working example",
    async () => {
      const page = await fx.browser.newPage();
      const requests: string[] = [];
      page.on("request", (request) => requests.push(request.url()));
      const deadline = performance.now() + DOCS_RENDER_DEADLINE_MS;
      const timeout = () => Math.max(1, Math.round(deadline - performance.now()));
      // The page's one fetch of the API document, awaited on its own: a server that fails it
      // fails here at once, rather than as a render that never comes.
      const documentFetched = page.waitForResponse((response) => new URL(response.url()).pathname === "/openapi.json", { timeout: timeout() });
      await page.goto(fx.s.url + "/docs", { waitUntil: "domcontentloaded", timeout: timeout() });
      expect((await documentFetched).status()).toBe(200);
      await page.getByText("Generate an image").first().waitFor({ timeout: timeout() });
      // Web fonts are where a reference UI usually reaches out: let every font load settle first.
      await page.waitForFunction(() => document.fonts.status === "loaded", undefined, { timeout: timeout() });
      await page.screenshot({ path: screenshotPath("docs"), fullPage: false, timeout: timeout() });

      const text = await page.locator("body").innerText();
      for (const hosted of ["Ask AI", "Generate MCP", "Connect MCP", "Open API Client", "Developer Tools", "Deploy", "Share", "Powered by Scalar"]) {
        expect({ hosted, present: text.includes(hosted) }).toEqual({ hosted, present: false });
      }
      // No credential is typed in for the reader, and no made-up one is shown as a placeholder.
      const looksLikeKey = /^(og_|[A-Za-z0-9+/=_-]{20,}$)/;
      const shown = await page.locator("input").evaluateAll((inputs) =>
        (inputs as HTMLInputElement[]).flatMap((input) => {
          const placeholderColor = getComputedStyle(input, "::placeholder").color;
          const placeholderVisible = !!input.placeholder && placeholderColor !== "rgba(0, 0, 0, 0)" && placeholderColor !== "transparent";
          return [input.value, placeholderVisible ? input.placeholder : ""].filter(Boolean);
        }),
      );
      expect(shown.filter((text) => looksLikeKey.test(text))).toEqual([]);
      expect(text).not.toMatch(/og_[A-Za-z0-9]{32}/);

      // The example the document gives for generate is accepted by the API as is.
      const document = (await (await fx.s.api("/openapi.json")).json()) as any;
      const example = document.paths["/api/generate"].post.requestBody.content["application/json"].example;
      expect(example.title).toBeDefined();
      const { apiKey } = await fx.s.createAccount({ plan: "pro" });
      const res = await fx.s.api("/api/generate", { key: apiKey, json: example });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("image/png");

      // Checked last, so everything the page did meanwhile is included.
      const origin = new URL(fx.s.url).origin;
      const elsewhere = requests.filter((url) => !url.startsWith("data:") && !url.startsWith("blob:") && new URL(url).origin !== origin);
      expect(elsewhere).toEqual([]);
      expect(requests).toContain(`${origin}/openapi.json`);
      await page.close();
    },
    BROWSER_TEST_TIMEOUT,
  );

  test(
    "Webhooks page at 375 px: opening the recent delivery attempts does not widen the page",
    async () => {
      const { apiKey } = await fx.s.createAccount({ plan: "pro" });
      fx.r.respond({ status: 500 }, "/failing");
      const created = await fx.s.api("/api/webhooks", {
        key: apiKey,
        json: { url: fx.r.url("/failing-with-a-rather-long-path/that-keeps-going/and-going"), events: ["usage.warning"], secret: "0123456789abcdef" },
      });
      expect(created.status).toBe(201);
      const hook = (await created.json()) as { id: string; url: string };
      fx.r.respond({ status: 503 });
      expect((await fx.s.api("/api/webhooks/test", { key: apiKey, json: { webhook_id: hook.id } })).status).toBe(200);

      const page = await signIn(apiKey, 375);
      await page.goto(fx.s.url + "/dashboard#/webhooks");
      const card = page.getByRole("article", { name: `Webhook ${hook.url}` });
      await card.getByText("Recent delivery attempts").click();
      await card.getByRole("region", { name: "Delivery attempts" }).waitFor();
      await page.screenshot({ path: screenshotPath("webhooks-deliveries-375"), fullPage: true });
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
      await page.close();
    },
    BROWSER_TEST_TIMEOUT,
  );

  test(
    "playground: a field typed in one template comes along to another template that has it",
    async () => {
      const { apiKey } = await fx.s.createAccount({ plan: "pro" });
      const page = await signIn(apiKey);
      await page.goto(fx.s.url + "/dashboard#/playground");
      await page.locator("#field-title").fill("Typed once");
      await page.locator("#field-subtitle").fill("Kept too");
      await page.getByLabel("Template").selectOption("blog");
      await page.locator("#field-author_name").waitFor();
      expect(await page.locator("#field-title").inputValue()).toBe("Typed once");
      expect(await page.locator("#field-subtitle").inputValue()).toBe("Kept too");
      const curl = await page.getByLabel("curl command").inputValue();
      expect(JSON.parse(/-d '([^']*)'/.exec(curl)![1]!)).toMatchObject({ template: "blog", title: "Typed once", subtitle: "Kept too" });
      await page.close();
    },
    BROWSER_TEST_TIMEOUT,
  );

  test(
    "Generate a secret makes whsec_ + base64 of 32 random bytes (the form the webhook libraries take as is)",
    async () => {
      const { apiKey } = await fx.s.createAccount({ plan: "pro" });
      const page = await signIn(apiKey);
      await page.goto(fx.s.url + "/dashboard#/webhooks");
      const values = new Set<string>();
      for (let i = 0; i < 2; i++) {
        await page.getByRole("button", { name: "Generate a secret" }).click();
        values.add(await page.getByLabel("Secret").inputValue());
      }
      expect(values.size).toBe(2);
      for (const secret of values) {
        expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
        expect(Buffer.from(secret.slice("whsec_".length), "base64")).toHaveLength(32);
        // test/http/webhooks.test.ts verifies real deliveries signed with secrets of this form.
      }
      await page.close();
    },
    BROWSER_TEST_TIMEOUT,
  );

  test(
    "playground: width and height take the server's limits; a size out of range is shown next to its field",
    async () => {
      const { apiKey } = await fx.s.createAccount({ plan: "pro" });
      const page = await signIn(apiKey);
      await page.goto(fx.s.url + "/dashboard#/playground");
      const width = page.getByLabel("Width");
      expect(await width.getAttribute("min")).toBe("200");
      expect(await width.getAttribute("max")).toBe("2400");
      expect(await width.inputValue()).toBe("1200");

      await width.fill("600");
      await page.getByLabel("Height").fill("315");
      await page.waitForFunction(() => (document.querySelector("#preview-image") as HTMLImageElement | null)?.naturalWidth === 600);
      const curl = await page.getByLabel("curl command").inputValue();
      expect(curl).toStartWith("curl --fail-with-body ");
      expect(JSON.parse(/-d '([^']*)'/.exec(curl)![1]!)).toMatchObject({ width: 600, height: 315 });

      await width.fill("100");
      const error = page.locator('[data-error-for="width"]');
      await error.waitFor();
      expect(await error.textContent()).toContain("200");
      expect(await width.getAttribute("aria-invalid")).toBe("true");
      await page.close();
    },
    BROWSER_TEST_TIMEOUT,
  );
});
