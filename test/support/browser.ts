/**
 * A real Chromium for the dashboard tests, driven by playwright-core (no bundled browser: Debian's
 * `chromium` package). Locally the browser tests skip with one line when it is missing; under
 * CI=true a missing browser is a failure, so CI can never pass by skipping them.
 *
 * Works under `bun test` as is: `launchPersistentContext` talks to Chromium over its pipe
 * transport (--remote-debugging-pipe) and Bun's child-process pipes carry it fine.
 */
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { startTestService, type ServiceWithReceiver } from "./harness.ts";
import { startReceiver } from "./receiver.ts";

export const CHROMIUM_PATH = process.env.OG_CHROMIUM_PATH ?? "/usr/bin/chromium";

export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
];

export type BrowserAvailability = { ok: true } | { ok: false; reason: string; mustFail: boolean };

/** Whether the browser tests can run here, and whether their absence must fail the run (CI). */
export function browserAvailability(): BrowserAvailability {
  if (existsSync(CHROMIUM_PATH)) return { ok: true };
  return {
    ok: false,
    reason: `no chromium at ${CHROMIUM_PATH} (apt-get install chromium, or set OG_CHROMIUM_PATH)`,
    mustFail: (process.env.CI ?? "").toLowerCase() === "true" || process.env.CI === "1",
  };
}

/**
 * The guard every browser test file starts with: true when Chromium is here. Otherwise, under CI,
 * it registers a test that fails with the reason; locally it prints one line saying what skips.
 */
export function browserTestsCanRun(what: string): boolean {
  const availability = browserAvailability();
  if (availability.ok) return true;
  if (availability.mustFail) {
    test("chromium is installed (required under CI=true)", () => {
      throw new Error(`${what} cannot run: ${availability.reason}`);
    });
  } else {
    console.log(`${what} skipped: ${availability.reason}`);
  }
  return false;
}

export interface TestBrowser {
  context: BrowserContext;
  /**
   * Every Content-Security-Policy violation a dashboard page of the context reported (the console
   * line Chromium writes, and the page's own securitypolicyviolation event), since the last take.
   * (The /docs page's bundled API reference evaluates code its CSP refuses: not counted here.)
   */
  takeCspViolations(): string[];
  /** A fresh page; cookies are shared by the context, so tests clear them first. */
  newPage(options?: { width?: number; height?: number }): Promise<Page>;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<TestBrowser> {
  const profileDir = mkdtempSync(join(tmpdir(), "ogsmith-chromium-"));
  const context = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 900 },
  });
  context.setDefaultTimeout(10_000);
  // Every page reports its CSP violations to the console as well, with where they came from.
  const violations: string[] = [];
  await context.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) => {
      console.error(
        `CSP violation: ${event.violatedDirective} blocked ${event.blockedURI || "(inline)"} at ${event.sourceFile || "?"}:${event.lineNumber}:${event.columnNumber}`,
      );
    });
  });
  context.on("console", (message) => {
    const page = message.page()?.url() ?? "";
    if (/Content Security Policy|CSP violation/i.test(message.text()) && new URL(page || "about:blank").pathname.startsWith("/dashboard"))
      violations.push(`${message.text()} (${message.location().url || page})`);
  });
  // A persistent context opens with one blank page: close it so every test starts clean.
  for (const page of context.pages()) await page.close();
  return {
    context,
    takeCspViolations: () => violations.splice(0),
    async newPage(options = {}) {
      const page = await context.newPage();
      await page.setViewportSize({ width: options.width ?? 1280, height: options.height ?? 900 });
      return page;
    },
    async close() {
      await context.close().catch(() => {});
      rmSync(profileDir, { recursive: true, force: true });
    },
  };
}

let shotsDir: string | undefined;

/** Screenshots of the dashboard go to one temp dir per run (printed once) to be looked at. */
export function screenshotPath(name: string): string {
  if (!shotsDir) {
    shotsDir = process.env.OG_SCREENSHOT_DIR ?? mkdtempSync(join(tmpdir(), "ogsmith-dashboard-shots-"));
    mkdirSync(shotsDir, { recursive: true });
    console.log(`dashboard screenshots: ${shotsDir}`);
  }
  return join(shotsDir, `${name}.png`);
}

/**
 * The browser tests' set-up, for the tests of the enclosing `describe`: a service that may call
 * loopback, a receiver for it and one browser; the fields are set once its beforeAll has run.
 * The browser closes first, so no page holds a connection to the service as it stops. A test
 * during which a dashboard page reported a Content-Security-Policy violation fails.
 */
export function useBrowserWithService(timeoutMs: number): ServiceWithReceiver & { browser: TestBrowser } {
  const fixture = {} as ServiceWithReceiver & { browser: TestBrowser };
  beforeAll(async () => {
    fixture.s = await startTestService({ OG_ALLOW_PRIVATE_NETWORKS: "1" });
    fixture.r = await startReceiver();
    fixture.browser = await launchBrowser();
  }, timeoutMs);
  afterEach(() => {
    expect(fixture.browser?.takeCspViolations() ?? []).toEqual([]);
  });
  afterAll(async () => {
    await fixture.browser?.close();
    await fixture.r?.stop();
    await fixture.s?.stop();
  });
  return fixture;
}

/**
 * Clicks in the dashboard's code editor just after `needle` (on one line), as a person would
 * (Home and End follow the wrapped visual line, so they cannot find a place in a long line).
 */
export async function clickAfter(page: Page, needle: string): Promise<void> {
  const line = page.locator(".cm-line", { hasText: needle });
  await line.scrollIntoViewIfNeeded();
  const point = await line.evaluate((el, text) => {
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const at = node.textContent!.indexOf(text);
      if (at < 0) continue;
      const range = document.createRange();
      // The right half of the last character: the caret lands after it.
      range.setStart(node, at + text.length - 1);
      range.setEnd(node, at + text.length);
      const box = range.getBoundingClientRect();
      return { x: box.right - 1, y: box.top + box.height / 2 };
    }
    return null;
  }, needle);
  if (!point) throw new Error(`${needle} is not in one piece of text in the editor`);
  await page.mouse.click(point.x, point.y);
}
