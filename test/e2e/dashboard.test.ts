/**
 * The dashboard in a real browser (Debian's chromium through playwright-core) against the real
 * service on port 0: sign-in with a real key, the usage page's numbers, webhooks through the
 * form and a real loopback receiver, field errors, the playground, sign-out and Origin checks.
 * Screenshots of every page (desktop and 375 px) are saved to a temp dir, printed once.
 */
import { beforeEach, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { browserTestsCanRun, screenshotPath, useBrowserWithService } from "../support/browser.ts";

const browserReady = browserTestsCanRun("dashboard browser tests");
/** A browser test drives several page loads and renders; bun's default 5 s is too tight. */
const BROWSER_TEST_TIMEOUT = 60_000;

describe.skipIf(!browserReady)("dashboard in a browser", () => {
  const fx = useBrowserWithService(BROWSER_TEST_TIMEOUT);
  beforeEach(async () => {
    // Tests share one browser profile; each starts signed out.
    await fx.browser.context.clearCookies();
  });

  async function signIn(apiKey: string, options: { width?: number } = {}): Promise<Page> {
    const page = await fx.browser.newPage({ width: options.width });
    await page.goto(fx.s.url + "/dashboard");
    await page.getByLabel("API key").fill(apiKey);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Usage", level: 1 }).waitFor();
    return page;
  }

  const sessionCookie = async () => (await fx.browser.context.cookies(fx.s.url + "/dashboard")).find((c) => c.name === "ogsmith_session");

  test(
    "sign in with a real key: the key is not kept in the page or browser storage, and the usage numbers match /api/user/usage",
    async () => {
      const { apiKey } = await fx.s.createAccount({ plan: "starter" });
      for (let i = 0; i < 4; i++) expect((await fx.s.api("/api/generate", { key: apiKey, json: { title: `Card ${i}` } })).status).toBe(200);

      const page = await fx.browser.newPage();
      await page.goto(fx.s.url + "/dashboard");
      await page.screenshot({ path: screenshotPath("sign-in"), fullPage: true });
      const keyField = page.getByLabel("API key");
      await keyField.fill(apiKey);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("heading", { name: "Usage", level: 1 }).waitFor();

      // The key went once to the server; nothing in the browser holds it now.
      const storage = await page.evaluate(() => ({
        local: localStorage.length,
        session: sessionStorage.length,
        cookie: document.cookie,
        html: document.documentElement.outerHTML,
      }));
      expect(storage).toMatchObject({ local: 0, session: 0, cookie: "" });
      expect(storage.html).not.toContain(apiKey);
      const cookie = await sessionCookie();
      expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Strict", path: "/dashboard" });
      expect(cookie!.value).not.toContain(apiKey);

      const usage = (await (await fx.s.api("/api/user/usage", { key: apiKey })).json()) as any;
      expect(usage.used).toBe(4);
      expect(await page.getByTestId("usage-plan").textContent()).toBe("Starter");
      expect(await page.getByTestId("usage-used").textContent()).toBe(String(usage.used));
      expect(await page.getByTestId("usage-remaining").textContent()).toBe(String(usage.remaining));
      expect(await page.getByTestId("usage-quota").textContent()).toBe(String(usage.quota));
      expect(await page.getByTestId("usage-percent").textContent()).toBe(`${usage.percent_used.toFixed(2)} %`);
      expect(await page.getByTestId("usage-reset").getAttribute("datetime")).toBe(usage.reset_date);
      expect(await page.getByTestId("usage-rate").textContent()).toBe("5 requests per second");
      const bar = page.getByRole("progressbar", { name: "Quota used" });
      expect(await bar.getAttribute("aria-valuenow")).toBe("4");
      expect(await bar.getAttribute("aria-valuemax")).toBe("500");
      // The chart: one bar per day of the month, today's carrying the 4 images.
      const today = new Date(fx.s.now());
      const days = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() + 1, 0)).getUTCDate();
      const chart = page.getByRole("img", { name: /Images per day this month/ });
      await chart.waitFor();
      expect(await chart.locator("g.bar").count()).toBe(days);
      expect(await chart.locator("g.bar.today title").textContent()).toContain("4 images");
      const drawn = await chart.locator("rect.value").evaluateAll((rects) => rects.filter((r) => Number(r.getAttribute("height")) > 0).length);
      expect(drawn).toBe(1);

      await page.screenshot({ path: screenshotPath("usage"), fullPage: true });
      await page.setViewportSize({ width: 375, height: 812 });
      await page.getByRole("img", { name: /Images per day/ }).waitFor();
      // The chart redraws for the new width after a debounced resize: wait until it has.
      await page.waitForFunction(() => {
        const svg = document.querySelector("svg.chart-svg");
        const holder = svg?.parentElement;
        return !!svg && !!holder && Number(svg.getAttribute("width")) === Math.max(260, Math.floor(holder.clientWidth || 600));
      });
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
      await page.screenshot({ path: screenshotPath("usage-375"), fullPage: true });
      await page.close();
    },
    BROWSER_TEST_TIMEOUT,
  );

  test(
    "create a webhook through the form, find it through the API, and Send test reaches a real receiver",
    async () => {
      const { apiKey } = await fx.s.createAccount({ plan: "pro" });
      const page = await signIn(apiKey);
      await page.getByRole("link", { name: "Webhooks" }).click();
      await page.getByRole("heading", { name: "Webhooks", level: 1 }).waitFor();

      const endpoint = fx.r.url("/dashboard-hook");
      await page.getByLabel("Endpoint URL").fill(endpoint);
      await page.getByLabel("usage.warning").check();
      await page.getByLabel("usage.limit_reached").check();
      await page.getByLabel("Secret").fill("dashboard-secret-0123456789");
      await page.getByRole("button", { name: "Save" }).click();
      await page.getByText("Webhook added.").waitFor();

      const list = (await (await fx.s.api("/api/webhooks", { key: apiKey })).json()) as any;
      expect(list.data).toHaveLength(1);
      expect(list.data[0]).toMatchObject({ url: endpoint, events: ["usage.warning", "usage.limit_reached"], status: "enabled" });
      const id = list.data[0].id as string;
      const card = page.getByRole("article", { name: `Webhook ${endpoint}` });
      await card.getByText("Enabled").waitFor();

      await card.getByRole("button", { name: "Send test" }).click();
      await card.getByText("Delivered: the receiver answered 200").waitFor();
      const [delivery] = await fx.r.waitForCount(1, "/dashboard-hook");
      expect(delivery!.headers["x-og-event"]).toBe("webhook.test");
      expect(JSON.parse(delivery!.body).data.webhook_id).toBe(id);

      // A failing receiver: its status is shown, and the attempt is in the delivery log.
      fx.r.respond({ status: 503 }, "/dashboard-hook");
      await card.getByRole("button", { name: "Send test" }).click();
      await card.getByText("Failed: the receiver answered 503").waitFor();
      await card.getByText("Recent delivery attempts").click();
      const attempts = card.getByRole("region", { name: "Delivery attempts" });
      await attempts.waitFor();
      expect(await attempts.locator("tbody tr").count()).toBe(2);
      expect(await attempts.locator("tbody tr").first().textContent()).toContain("503");
      await page.screenshot({ path: screenshotPath("webhooks-test-and-log"), fullPage: true });

      // Edit: drop one event through the same form; the API sees the change.
      await card.getByRole("button", { name: "Edit" }).click();
      await page.getByRole("heading", { name: "Edit webhook" }).waitFor();
      await page.getByLabel("usage.limit_reached").uncheck();
      await page.getByLabel("usage.reset").check();
      await page.getByRole("button", { name: "Save" }).click();
      await page.getByText("Webhook updated.").waitFor();
      const updated = (await (await fx.s.api(`/api/webhooks/${id}`, { key: apiKey })).json()) as any;
      expect(updated.events).toEqual(["usage.warning", "usage.reset"]);

      await page.screenshot({ path: screenshotPath("webhooks"), fullPage: true });
      await page.setViewportSize({ width: 375, height: 812 });
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
      await page.screenshot({ path: screenshotPath("webhooks-375"), fullPage: true });

      // Delete asks once more, then the API no longer has it.
      await page.setViewportSize({ width: 1280, height: 900 });
      await card.getByRole("button", { name: "Delete" }).click();
      await card.getByRole("button", { name: "Confirm delete" }).click();
      await page.getByText("Webhook deleted.").waitFor();
      expect(((await (await fx.s.api("/api/webhooks", { key: apiKey })).json()) as any).data).toEqual([]);
      await page.close();
    },
    BROWSER_TEST_TIMEOUT,
  );

  test(
    "a disabled webhook shows why, and Re-enable brings it back",
    async () => {
      const { apiKey } = await fx.s.createAccount({ plan: "pro" });
      const created = (await (
        await fx.s.api("/api/webhooks", { key: apiKey, json: { url: fx.r.url("/to-disable"), events: ["usage.reset"], secret: "x".repeat(16) } })
      ).json()) as any;
      expect(
        (await fx.s.api(`/api/webhooks/${created.id}`, { key: apiKey, method: "PUT", json: { url: created.url, events: created.events, enabled: false } }))
          .status,
      ).toBe(200);

      const page = await signIn(apiKey);
      await page.goto(fx.s.url + "/dashboard#/webhooks");
      const card = page.getByRole("article", { name: `Webhook ${created.url}` });
      await card.getByText("Disabled", { exact: true }).waitFor();
      await card.getByText("Disabled through the API.").waitFor();
      await page.screenshot({ path: screenshotPath("webhooks-disabled"), fullPage: true });
      await card.getByRole("button", { name: "Re-enable" }).click();
      await page.getByText("Webhook re-enabled.").waitFor();
      expect(((await (await fx.s.api(`/api/webhooks/${created.id}`, { key: apiKey })).json()) as any).status).toBe("enabled");
      await page.close();
    },
    BROWSER_TEST_TIMEOUT,
  );

  test(
    "a bad URL shows the API's field error next to the Endpoint URL field, and nothing is created",
    async () => {
      const { apiKey } = await fx.s.createAccount({ plan: "pro" });
      const page = await signIn(apiKey);
      await page.goto(fx.s.url + "/dashboard#/webhooks");
      await page.getByLabel("Endpoint URL").fill("ftp://files.example.com/hook");
      await page.getByLabel("Secret").fill("short");
      await page.getByRole("button", { name: "Save" }).click();

      const urlField = page.getByLabel("Endpoint URL");
      const urlError = page.locator("#webhook-url-error");
      await urlError.waitFor();
      expect(await urlError.textContent()).toMatch(/http or https/i);
      expect(await urlField.getAttribute("aria-invalid")).toBe("true");
      // "Next to the field": the error is the field's own description, in the same field block.
      expect(await urlField.getAttribute("aria-describedby")).toContain("webhook-url-error");
      expect(await urlError.evaluate((el) => el.parentElement!.querySelector("input")!.id)).toBe("webhook-url");
      // Every field the API named gets its own message.
      expect(await page.locator("#webhook-events-error").textContent()).toMatch(/non-empty/);
      expect(await page.locator("#webhook-secret-error").textContent()).toMatch(/16 to 256/);
      await page.screenshot({ path: screenshotPath("webhooks-errors"), fullPage: true });
      expect(((await (await fx.s.api("/api/webhooks", { key: apiKey })).json()) as any).data).toEqual([]);
      await page.close();
    },
    BROWSER_TEST_TIMEOUT,
  );

  test(
    "playground: fields from the template list, a live preview that is not counted, and a curl command for the same request",
    async () => {
      const { apiKey } = await fx.s.createAccount({ plan: "pro" });
      const page = await signIn(apiKey);
      await page.getByRole("link", { name: "Playground" }).click();
      await page.getByRole("heading", { name: "Playground", level: 1 }).waitFor();

      const templates = ((await (await fx.s.api("/api/templates", { key: apiKey })).json()) as any).data as { id: string; fields: { name: string }[] }[];
      const select = page.getByLabel("Template");
      expect(await select.locator("option").allTextContents()).toEqual(templates.map((t) => t.id));
      const event = templates.find((t) => t.id === "event")!;
      for (const field of event.fields) await page.locator(`#field-${field.name}`).waitFor();

      const image = page.locator("#preview-image");
      const loadedSrc = async (previous?: string | null) => {
        await page.waitForFunction((prev) => {
          const img = document.querySelector<HTMLImageElement>("#preview-image")!;
          return !!img.getAttribute("src") && img.getAttribute("src") !== prev && img.complete && img.naturalWidth === 1200;
        }, previous ?? null);
        return image.getAttribute("src");
      };
      const first = await loadedSrc();

      await page.locator("#field-title").fill("Dashboards in a real browser");
      await page.getByLabel("Theme").selectOption("light");
      const second = await loadedSrc(first);
      expect(await page.getByRole("status").filter({ hasText: "not counted" }).count()).toBe(1);

      const curl = await page.getByLabel("curl command").inputValue();
      expect(curl).toContain(`${fx.s.url}/api/generate`);
      expect(curl).toContain("X-API-Key: $OGSMITH_API_KEY");
      expect(curl).not.toContain(apiKey);
      // The command's body is exactly what the API accepts.
      const body = JSON.parse(/-d '([^']*)'/.exec(curl)![1]!);
      expect(body).toMatchObject({ template: "event", theme: "light", title: "Dashboards in a real browser" });

      // Previews did not count; the curl request would.
      expect(((await (await fx.s.api("/api/user/usage", { key: apiKey })).json()) as any).used).toBe(0);
      const generated = await fx.s.api("/api/generate", { key: apiKey, json: body });
      expect(generated.status).toBe(200);
      expect(((await (await fx.s.api("/api/user/usage", { key: apiKey })).json()) as any).used).toBe(1);

      // A second template generates its own fields.
      const other = templates.find((t) => t.id !== "event");
      if (other) {
        await select.selectOption(other.id);
        for (const field of other.fields) await page.locator(`#field-${field.name}`).waitFor();
        await page.locator("#field-title").fill("Another template");
        const third = await loadedSrc(second);
        await select.selectOption("event");
        expect(await page.locator("#field-title").inputValue()).toBe("Dashboards in a real browser");
        await loadedSrc(third);
      }

      await page.screenshot({ path: screenshotPath("playground"), fullPage: true });
      await page.setViewportSize({ width: 375, height: 812 });
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
      await page.screenshot({ path: screenshotPath("playground-375"), fullPage: true });
      await page.close();
    },
    BROWSER_TEST_TIMEOUT,
  );

  test(
    "keyboard only: sign in, move between pages and reach the webhook form",
    async () => {
      const { apiKey } = await fx.s.createAccount({ plan: "pro" });
      const page = await fx.browser.newPage();
      await page.goto(fx.s.url + "/dashboard");
      // The key field has focus on arrival.
      await page.waitForFunction(() => document.activeElement?.id === "api-key");
      await page.keyboard.type(apiKey);
      await page.keyboard.press("Enter");
      await page.getByRole("heading", { name: "Usage", level: 1 }).waitFor();
      // From the top of the document the skip link comes first; then the brand and the navigation.
      await page.evaluate(() => {
        document.body.tabIndex = -1;
        document.body.focus();
        document.body.removeAttribute("tabindex");
      });
      await page.keyboard.press("Tab");
      expect(await page.evaluate(() => document.activeElement!.textContent)).toBe("Skip to content");
      let guard = 0;
      while ((await page.evaluate(() => document.activeElement!.textContent)) !== "Webhooks" && guard++ < 10) await page.keyboard.press("Tab");
      await page.keyboard.press("Enter");
      await page.getByRole("heading", { name: "Webhooks", level: 1 }).waitFor();
      guard = 0;
      while ((await page.evaluate(() => document.activeElement!.id)) !== "webhook-url" && guard++ < 20) await page.keyboard.press("Tab");
      expect(await page.evaluate(() => document.activeElement!.id)).toBe("webhook-url");
      await page.keyboard.press("Tab");
      expect(await page.evaluate(() => (document.activeElement as HTMLInputElement).value)).toBe("image.generated");
      await page.close();
    },
    BROWSER_TEST_TIMEOUT,
  );

  test(
    "sign-out ends the session: the old cookie no longer works",
    async () => {
      const { apiKey } = await fx.s.createAccount();
      const page = await signIn(apiKey);
      const cookie = await sessionCookie();
      expect(cookie).toBeDefined();
      const header = `${cookie!.name}=${cookie!.value}`;
      expect((await fetch(fx.s.url + "/dashboard/api/me", { headers: { cookie: header } })).status).toBe(200);

      await page.getByRole("button", { name: "Sign out" }).click();
      await page.getByLabel("API key").waitFor();
      await page.getByText("You are signed out.").waitFor();
      expect(await sessionCookie()).toBeUndefined();
      const after = await fetch(fx.s.url + "/dashboard/api/me", { headers: { cookie: header } });
      expect(after.status).toBe(401);
      expect(await after.json()).toMatchObject({ error: true, code: "UNAUTHORIZED" });
      // Reloading shows the sign-in form, not the dashboard.
      await page.reload();
      await page.getByLabel("API key").waitFor();
      await page.close();
    },
    BROWSER_TEST_TIMEOUT,
  );

  test(
    "a request with the session cookie but a foreign Origin is refused",
    async () => {
      const { apiKey } = await fx.s.createAccount({ plan: "pro" });
      const page = await signIn(apiKey);
      const cookie = await sessionCookie();
      const headers = { cookie: `${cookie!.name}=${cookie!.value}`, "content-type": "application/json" };
      const body = JSON.stringify({ url: fx.r.url("/evil"), events: ["usage.warning"], secret: "e".repeat(16) });

      const evil = await fetch(fx.s.url + "/dashboard/api/webhooks", { method: "POST", headers: { ...headers, origin: "http://evil.example" }, body });
      expect(evil.status).toBe(403);
      expect(await evil.json()).toMatchObject({ error: true, code: "FORBIDDEN" });
      const noOrigin = await fetch(fx.s.url + "/dashboard/api/webhooks", { method: "POST", headers, body });
      expect(noOrigin.status).toBe(403);
      expect(((await (await fx.s.api("/api/webhooks", { key: apiKey })).json()) as any).data).toEqual([]);
      // The session itself was fine all along.
      expect(
        (await fetch(fx.s.url + "/dashboard/api/webhooks", { method: "POST", headers: { ...headers, origin: new URL(fx.s.url).origin }, body })).status,
      ).toBe(201);
      await page.close();
    },
    BROWSER_TEST_TIMEOUT,
  );

  test(
    "a canceled account can sign in and sees why it is blocked",
    async () => {
      const { apiKey } = await fx.s.createAccount({ plan: "pro", status: "canceled" });
      const page = await signIn(apiKey);
      const banner = page.getByRole("alert").filter({ hasText: "SUBSCRIPTION_CANCELED" });
      await banner.waitFor();
      expect(await banner.textContent()).toContain("Subscription canceled.");
      await page.getByText("Subscription canceled", { exact: true }).waitFor(); // the at-a-glance pill
      await page.screenshot({ path: screenshotPath("usage-canceled"), fullPage: true });
      await page.getByRole("link", { name: "Playground" }).click();
      await page.getByText("(SUBSCRIPTION_CANCELED)").waitFor();
      await page.close();
    },
    BROWSER_TEST_TIMEOUT,
  );

  test(
    "every page loads only from the dashboard's own origin (no CDN, works offline)",
    async () => {
      const { apiKey } = await fx.s.createAccount({ plan: "pro" });
      const page = await signIn(apiKey);
      const requested: string[] = [];
      page.on("request", (request) => requested.push(request.url()));
      await page.reload();
      await page.getByRole("heading", { name: "Usage", level: 1 }).waitFor();
      await page.getByRole("link", { name: "Webhooks" }).click();
      await page.getByLabel("Endpoint URL").waitFor();
      await page.getByRole("link", { name: "Playground" }).click();
      await page.waitForFunction(() => (document.querySelector<HTMLImageElement>("#preview-image")?.naturalWidth ?? 0) > 0);
      const own = new URL(fx.s.url).origin;
      expect(requested.length).toBeGreaterThan(5);
      expect(requested.filter((url) => !url.startsWith(own + "/") && !url.startsWith("blob:") && !url.startsWith("data:"))).toEqual([]);
      await page.close();
    },
    BROWSER_TEST_TIMEOUT,
  );
});
