/**
 * The dashboard's JSON API (/dashboard/api/…) and its pages and assets, in process
 * (test/support/in-process.ts): no browser (the browser tests are test/e2e/dashboard*.test.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { decodePng } from "../support/png.ts";
import { testEngine } from "../support/engines.ts";
import { inkIn, pixelFont } from "../support/fonts.ts";
import { startInProcessApp, type InProcessApp } from "../support/in-process.ts";

/**
 * The dashboard's session and JSON endpoints through the app (no
 * browser): cookie attributes, Origin checks, expiry on the service clock, key replacement,
 * blocked accounts, previews that are rate limited but never counted.
 */
describe("sessions and the dashboard's JSON endpoints", () => {
  let s: InProcessApp;
  beforeAll(async () => {
    s = await startInProcessApp();
  });
  afterAll(() => s.stop());

  const origin = () => new URL(s.url).origin;

  /** A dashboard request as the dashboard's own page would send it (same Origin, the cookie). */
  function dash(path: string, init: { method?: string; cookie?: string; json?: unknown; origin?: string | null; headers?: Record<string, string> } = {}) {
    const headers: Record<string, string> = { ...init.headers };
    if (init.cookie) headers.cookie = init.cookie;
    if (init.origin !== null) headers.origin = init.origin ?? origin();
    if (init.json !== undefined) headers["content-type"] = "application/json";
    return s.fetch(s.url + path, {
      method: init.method ?? (init.json !== undefined ? "POST" : "GET"),
      headers,
      body: init.json !== undefined ? JSON.stringify(init.json) : undefined,
    });
  }

  async function signIn(apiKey: string): Promise<{ cookie: string; setCookie: string; body: any }> {
    const res = await dash("/dashboard/api/session", { json: { api_key: apiKey } });
    expect(res.status).toBe(200);
    const setCookie = res.headers.get("set-cookie")!;
    return { cookie: setCookie.split(";")[0]!, setCookie, body: await res.json() };
  }

  async function expectError(res: Response, status: number, code: string) {
    expect(res.status).toBe(status);
    const body = (await res.json()) as any;
    expect(body).toMatchObject({ error: true, code });
    expect(typeof body.message).toBe("string");
    return body;
  }

  describe("sign-in", () => {
    test("exchanges the key for an HttpOnly, SameSite=Strict session cookie on /dashboard; only the token's hash is stored", async () => {
      const { accountId, apiKey } = await s.createAccount({ plan: "starter", email: "dash@example.com" });
      const { cookie, setCookie, body } = await signIn(apiKey);
      expect(setCookie).toMatch(/^ogsmith_session=ogs_[A-Za-z0-9]{43}; /);
      expect(setCookie).toContain("HttpOnly");
      expect(setCookie).toContain("SameSite=Strict");
      expect(setCookie).toContain("Path=/dashboard");
      expect(setCookie).toMatch(/Max-Age=\d+/);
      expect(setCookie).not.toContain("Secure"); // OG_BASE_URL is http here
      expect(body.account).toMatchObject({ id: accountId, email: "dash@example.com", plan: "starter", status: "active" });
      expect(body.blocked).toBeNull();
      expect(JSON.stringify(body)).not.toContain(apiKey);

      const me = await dash("/dashboard/api/me", { cookie });
      expect(me.status).toBe(200);
      expect(((await me.json()) as any).account.id).toBe(accountId);

      const token = cookie.split("=")[1]!;
      const rows = await s.service.services.store.listSessions(accountId);
      expect(rows).toHaveLength(1);
      expect(JSON.stringify(rows)).not.toContain(token);
      expect(JSON.stringify(rows)).not.toContain(apiKey);
      expect(rows[0]!.tokenHash).toBe(new Bun.CryptoHasher("sha256").update(token).digest("hex"));
    });

    test("an empty, malformed or unknown key is refused with the field named", async () => {
      const empty = await expectError(await dash("/dashboard/api/session", { json: { api_key: "" } }), 400, "VALIDATION_ERROR");
      expect(empty.details).toEqual([{ field: "api_key", message: "is required" }]);
      const bad = await expectError(await dash("/dashboard/api/session", { json: { api_key: "og_nope" } }), 401, "INVALID_API_KEY");
      expect(bad.details[0].field).toBe("api_key");
      await expectError(await dash("/dashboard/api/session", { json: { api_key: "og_" + "a".repeat(32) } }), 401, "INVALID_API_KEY");
    });

    test("sign-in itself needs this server's Origin (no login CSRF)", async () => {
      const { apiKey } = await s.createAccount();
      await expectError(await dash("/dashboard/api/session", { json: { api_key: apiKey }, origin: "http://evil.example" }), 403, "FORBIDDEN");
      await expectError(await dash("/dashboard/api/session", { json: { api_key: apiKey }, origin: null }), 403, "FORBIDDEN");
    });

    test("JSON endpoints need a session; without one they answer 401 UNAUTHORIZED in the envelope", async () => {
      for (const path of ["/dashboard/api/me", "/dashboard/api/usage", "/dashboard/api/webhooks", "/dashboard/api/templates"]) {
        await expectError(await dash(path), 401, "UNAUTHORIZED");
        await expectError(await dash(path, { cookie: "ogsmith_session=ogs_" + "x".repeat(43) }), 401, "UNAUTHORIZED");
      }
      // The API key is not a dashboard credential, and a session cookie is not an API credential.
      const { apiKey } = await s.createAccount();
      await expectError(await dash("/dashboard/api/me", { headers: { "x-api-key": apiKey } }), 401, "UNAUTHORIZED");
      const { cookie } = await signIn(apiKey);
      await expectError(await s.api("/api/user/usage", { headers: { cookie } }), 401, "MISSING_API_KEY");
    });
  });

  describe("session lifetime", () => {
    test("sign-out deletes the session: the same cookie never works again", async () => {
      const { apiKey } = await s.createAccount();
      const { cookie } = await signIn(apiKey);
      const out = await dash("/dashboard/api/session", { method: "DELETE", cookie });
      expect(out.status).toBe(200);
      expect(out.headers.get("set-cookie")).toContain("Max-Age=0");
      await expectError(await dash("/dashboard/api/me", { cookie }), 401, "UNAUTHORIZED");
    });

    test("sessions end after 30 idle minutes, and after 12 hours however much they are used, on the service clock", async () => {
      const { apiKey } = await s.createAccount();
      const { cookie, body } = await signIn(apiKey);
      const signedInAt = s.now();
      expect(Date.parse(body.session.expires_at)).toBe(signedInAt + 30 * 60 * 1000);
      // Used every 29 minutes: alive until the 12 hours are up; /me reports the moving end.
      for (let minutes = 29; minutes < 12 * 60; minutes += 29) {
        await s.advance(29 * 60);
        const me = await dash("/dashboard/api/me", { cookie });
        expect(me.status).toBe(200);
        const { session } = (await me.json()) as { session: { expires_at: string } };
        expect(Date.parse(session.expires_at)).toBe(Math.min(s.now() + 30 * 60 * 1000, signedInAt + 12 * 3600 * 1000));
      }
      await s.advance((signedInAt + 12 * 3600 * 1000 - s.now()) / 1000);
      await expectError(await dash("/dashboard/api/me", { cookie }), 401, "UNAUTHORIZED");

      // Left alone for 30 minutes: over.
      const idle = await signIn(apiKey);
      await s.advance(30 * 60);
      await expectError(await dash("/dashboard/api/me", { cookie: idle.cookie }), 401, "UNAUTHORIZED");
    });

    test("replacing the key ends the sessions opened with it", async () => {
      const { accountId, apiKey } = await s.createAccount();
      const { cookie } = await signIn(apiKey);
      expect((await s.admin(`/admin/accounts/${accountId}/keys`, { method: "POST" })).status).toBe(201);
      await expectError(await dash("/dashboard/api/me", { cookie }), 401, "UNAUTHORIZED");
    });
  });

  describe("origin checks", () => {
    test("every state-changing request needs the session and this server's Origin; a foreign or missing one is 403", async () => {
      const { apiKey } = await s.createAccount({ plan: "pro" });
      const { cookie } = await signIn(apiKey);
      const body = { url: "https://example.com/hook", events: ["usage.warning"], secret: "s".repeat(20) };
      await expectError(await dash("/dashboard/api/webhooks", { cookie, json: body, origin: "http://evil.example" }), 403, "FORBIDDEN");
      await expectError(await dash("/dashboard/api/webhooks", { cookie, json: body, origin: null }), 403, "FORBIDDEN");
      await expectError(await dash("/dashboard/api/webhooks", { cookie, json: body, origin: "null" }), 403, "FORBIDDEN");
      await expectError(await dash("/dashboard/api/session", { method: "DELETE", cookie, origin: "http://evil.example" }), 403, "FORBIDDEN");
      await expectError(await dash("/dashboard/api/preview", { cookie, json: { title: "x" }, origin: `${origin()}.evil.example` }), 403, "FORBIDDEN");
      // None of them did anything: the session still works and there is no webhook yet.
      expect(((await (await s.api("/api/webhooks", { key: apiKey })).json()) as any).data).toEqual([]);
      const ok = await dash("/dashboard/api/webhooks", { cookie, json: body });
      expect(ok.status).toBe(201);
      expect(((await (await s.api("/api/webhooks", { key: apiKey })).json()) as any).data).toHaveLength(1);
    });

    test("with OG_BASE_URL (a TLS proxy in front) its origin alone is accepted, the Host must be its host, and an https base URL makes the cookie Secure", async () => {
      const behindProxy = await startInProcessApp({ OG_BASE_URL: "https://og.example.com" });
      try {
        const { apiKey } = await behindProxy.createAccount();
        const signIn = (origin: string, host = "og.example.com") =>
          behindProxy.fetch(behindProxy.url + "/dashboard/api/session", {
            method: "POST",
            headers: { host, origin, "content-type": "application/json" },
            body: JSON.stringify({ api_key: apiKey }),
          });
        const res = await signIn("https://og.example.com");
        expect(res.status).toBe(200);
        expect(res.headers.get("set-cookie")).toContain("; Secure");
        // The origin the request was addressed to is not enough any more: only OG_BASE_URL's.
        await expectError(await signIn("http://og.example.com"), 403, "FORBIDDEN");
        // Another Host (a rebinding page's name, or the bare address) is not this server at all.
        await expectError(await signIn("https://og.example.com", "rebind.attacker.example"), 421, "MISDIRECTED_REQUEST");
        await expectError(await signIn("https://og.example.com", new URL(behindProxy.url).host), 421, "MISDIRECTED_REQUEST");
      } finally {
        await behindProxy.stop();
      }
    });
  });

  describe("playground previews", () => {
    test("render a PNG, never count toward the quota, and share the key's rate-limit window", async () => {
      const { apiKey } = await s.createAccount({ plan: "free" }); // 1 request per second
      const { cookie } = await signIn(apiKey);
      await s.advance(2); // a fresh window for this key (sign-in does not use it)

      const preview = await dash("/dashboard/api/preview", { cookie, json: { template: "event", title: "Preview only", theme: "light" } });
      expect(preview.status).toBe(200);
      expect(preview.headers.get("content-type")).toBe("image/png");
      expect(preview.headers.get("ratelimit-limit")).toBe("1");
      const bytes = new Uint8Array(await preview.arrayBuffer());
      expect([...bytes.slice(1, 4)]).toEqual([0x50, 0x4e, 0x47]);

      // Same instant on the test clock: the window is full, for the dashboard and the API alike.
      const limited = await expectError(await dash("/dashboard/api/preview", { cookie, json: { title: "again" } }), 429, "RATE_LIMIT_EXCEEDED");
      expect(limited.message).toContain("1 request per second");
      await expectError(await s.api("/api/user/usage", { key: apiKey }), 429, "RATE_LIMIT_EXCEEDED");

      await s.advance(1);
      const usage = (await (await s.api("/api/user/usage", { key: apiKey })).json()) as any;
      expect(usage.used).toBe(0);
    });

    test("validation errors name the field, like /api/generate", async () => {
      const { apiKey } = await s.createAccount({ plan: "pro" });
      const { cookie } = await signIn(apiKey);
      const body = await expectError(await dash("/dashboard/api/preview", { cookie, json: { template: "event", title: "" } }), 400, "VALIDATION_ERROR");
      expect(body.details.map((d: any) => d.field)).toEqual(["title"]);
      await expectError(await dash("/dashboard/api/preview", { cookie, json: { template: "nope", title: "x" } }), 400, "UNKNOWN_TEMPLATE");
    });
  });

  describe("blocked accounts", () => {
    for (const [status, code] of [
      ["canceled", "SUBSCRIPTION_CANCELED"],
      ["past_due", "PAYMENT_PAST_DUE"],
    ] as const) {
      test(`a ${status} account signs in, sees why it is blocked, and its actions get ${code}`, async () => {
        const { apiKey } = await s.createAccount({ plan: "pro", status });
        const { cookie, body } = await signIn(apiKey);
        expect(body.blocked.code).toBe(code);
        expect(body.blocked.message.length).toBeGreaterThan(10);
        // Reads stay open so the page can show usage and settings…
        expect((await dash("/dashboard/api/usage", { cookie })).status).toBe(200);
        expect((await dash("/dashboard/api/webhooks", { cookie })).status).toBe(200);
        // …API-like actions are refused with the API's codes.
        await expectError(await dash("/dashboard/api/preview", { cookie, json: { title: "x" } }), 403, code);
        await expectError(
          await dash("/dashboard/api/webhooks", { cookie, json: { url: "https://example.com/h", events: ["usage.reset"], secret: "s".repeat(16) } }),
          403,
          code,
        );
        // Signing out still works.
        expect((await dash("/dashboard/api/session", { method: "DELETE", cookie })).status).toBe(200);
      });
    }
  });

  describe("usage and pages", () => {
    test("the usage overview agrees with /api/user/usage and fills every day of the month", async () => {
      const { apiKey } = await s.createAccount({ plan: "pro" });
      for (let i = 0; i < 3; i++) expect((await s.api("/api/generate", { key: apiKey, json: { title: `n${i}` } })).status).toBe(200);
      const { cookie } = await signIn(apiKey);
      const overview = (await (await dash("/dashboard/api/usage", { cookie })).json()) as any;
      const usage = await (await s.api("/api/user/usage", { key: apiKey })).json();
      expect(overview.usage).toEqual(usage);
      expect(overview.rate_limit).toEqual({ requests_per_second: 10 });
      expect(overview.quota_state).toBe("available");
      const today = new Date(s.now()).toISOString().slice(0, 10);
      expect(overview.today).toBe(today);
      expect(overview.daily.find((d: any) => d.day === today).count).toBe(3);
      expect(overview.daily.reduce((sum: number, d: any) => sum + d.count, 0)).toBe(3);
      const [y, m] = today.split("-").map(Number) as [number, number];
      expect(overview.daily).toHaveLength(new Date(Date.UTC(y, m, 0)).getUTCDate());
    });

    test("the page and its assets come from the binary with a strict CSP and no third-party URL", async () => {
      const page = await s.fetch(s.url + "/dashboard");
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toContain("text/html");
      expect(page.headers.get("content-security-policy")).toContain("default-src 'none'");
      expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
      const html = await page.text();
      const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!).filter((u) => u.startsWith("/dashboard/assets/"));
      expect(assets).toHaveLength(2);
      for (const asset of assets) {
        const res = await s.fetch(s.url + asset);
        expect(res.status).toBe(200);
        const text = await res.text();
        // Nothing loaded from elsewhere (the browser test also watches the network), and the
        // script keeps nothing in browser storage.
        expect(text).not.toMatch(/@import|url\(\s*["']?https?:|cdn\.|unpkg|jsdelivr|googleapis/);
        expect(text).not.toMatch(/localStorage|sessionStorage|indexedDB|document\.cookie/);
      }
      expect(html).not.toMatch(/https?:\/\//);
    });
  });
});

/**
 * The template studio's endpoints through the app (no browser): they
 * need a session and a same-origin Origin, another account's template is not there, a preview
 * is capped and never counted, a definition error names its line, the starters are
 * complete definitions, and editor-sized bodies (up to 1 MiB) are accepted.
 */
describe("templates in the dashboard", () => {
  let s: InProcessApp;
  beforeAll(async () => {
    s = await startInProcessApp();
  });
  afterAll(() => s.stop());

  const origin = () => new URL(s.url).origin;

  function dash(path: string, init: { method?: string; cookie?: string; json?: unknown; origin?: string | null; body?: string } = {}) {
    const headers: Record<string, string> = {};
    if (init.cookie) headers.cookie = init.cookie;
    if (init.origin !== null) headers.origin = init.origin ?? origin();
    if (init.json !== undefined || init.body !== undefined) headers["content-type"] = "application/json";
    return s.fetch(s.url + path, {
      method: init.method ?? (init.json !== undefined || init.body !== undefined ? "POST" : "GET"),
      headers,
      body: init.body ?? (init.json !== undefined ? JSON.stringify(init.json) : undefined),
    });
  }

  async function signIn(apiKey: string): Promise<string> {
    const res = await dash("/dashboard/api/session", { json: { api_key: apiKey } });
    expect(res.status).toBe(200);
    return res.headers.get("set-cookie")!.split(";")[0]!;
  }

  async function starter(cookie: string, id: string) {
    const { data } = (await (await dash("/dashboard/api/starters", { cookie })).json()) as any;
    const { name, description, html, fields, themes, width, height, sample } = data.find((s: any) => s.id === id);
    return { id, name, description, html, fields, themes, width, height, sample };
  }

  describe("template studio endpoints", () => {
    test("need a session, and state changes need this server's Origin", async () => {
      expect((await dash("/dashboard/api/account-templates")).status).toBe(401);
      expect((await dash("/dashboard/api/starters")).status).toBe(401);
      const { apiKey } = await s.createAccount({ plan: "pro" });
      const cookie = await signIn(apiKey);
      const definition = await starter(cookie, "quote");
      expect((await dash("/dashboard/api/account-templates", { cookie, json: definition, origin: "https://evil.example" })).status).toBe(403);
      expect((await dash("/dashboard/api/account-templates", { cookie, json: definition, origin: null })).status).toBe(403);
      expect((await dash("/dashboard/api/account-templates/preview", { cookie, json: { template: definition }, origin: "https://evil.example" })).status).toBe(
        403,
      );
    });

    test("create, new version, versions, read one, delete; another account sees none of it", async () => {
      const { apiKey } = await s.createAccount({ plan: "pro" });
      const cookie = await signIn(apiKey);
      const definition = await starter(cookie, "release-notes");
      const created = await dash("/dashboard/api/account-templates", { cookie, json: { ...definition, id: "notes" } });
      expect(created.status).toBe(201);
      expect(await created.json()).toMatchObject({ id: "notes", version: 1, source: "account" });
      const updated = await dash("/dashboard/api/account-templates/notes", {
        cookie,
        method: "PUT",
        json: { ...definition, id: "notes", name: "Notes, again" },
      });
      expect(await updated.json()).toMatchObject({ id: "notes", version: 2, name: "Notes, again" });
      expect(
        ((await (await dash("/dashboard/api/account-templates/notes/versions", { cookie })).json()) as any).data.map((v: any) => v.version).sort(),
      ).toEqual([1, 2]);
      expect(await (await dash("/dashboard/api/account-templates/notes/versions/1", { cookie })).json()).toMatchObject({ version: 1, name: definition.name });
      // The same template through the API key: the dashboard and /api/templates are one store.
      expect(((await (await s.api("/api/templates/notes", { key: apiKey })).json()) as any).version).toBe(2);

      const other = await signIn((await s.createAccount({ plan: "pro" })).apiKey);
      for (const path of [
        "/dashboard/api/account-templates/notes",
        "/dashboard/api/account-templates/notes/versions",
        "/dashboard/api/account-templates/notes/versions/1",
      ]) {
        const res = await dash(path, { cookie: other });
        expect({ path, status: res.status, code: ((await res.json()) as any).code }).toEqual({ path, status: 404, code: "TEMPLATE_NOT_FOUND" });
      }
      expect((await dash("/dashboard/api/account-templates/notes", { cookie: other, method: "DELETE" })).status).toBe(404);
      expect(((await (await dash("/dashboard/api/account-templates", { cookie: other })).json()) as any).data).toEqual([]);

      expect(await (await dash("/dashboard/api/account-templates/notes", { cookie, method: "DELETE" })).json()).toEqual({ id: "notes", deleted: true });
      expect((await dash("/dashboard/api/account-templates/notes", { cookie })).status).toBe(404);
    });

    test("a preview is the API's preview (capped at 1500 px, marked) and not counted; a definition error names its line", async () => {
      const { apiKey } = await s.createAccount({ plan: "pro" });
      const cookie = await signIn(apiKey);
      const definition = await starter(cookie, "product-launch");
      const before = ((await (await s.api("/api/user/usage", { key: apiKey })).json()) as any).used;

      const portrait = await dash("/dashboard/api/account-templates/preview", {
        cookie,
        json: { template: definition, width: 1000, height: 1500, theme: "light" },
      });
      expect(portrait.status).toBe(200);
      expect(portrait.headers.get("cache-control")).toBe("no-store");
      expect(decodePng(new Uint8Array(await portrait.arrayBuffer()))).toMatchObject({ width: 1000, height: 1500 });
      const large = await dash("/dashboard/api/account-templates/preview", { cookie, json: { template: definition, width: 2400, height: 1260 } });
      expect(decodePng(new Uint8Array(await large.arrayBuffer()))).toMatchObject({ width: 1500, height: 788 });
      expect(((await (await s.api("/api/user/usage", { key: apiKey })).json()) as any).used).toBe(before);
      // The same picture, PREVIEW mark included, as the API's own preview route draws.
      const same = { template: definition, width: 1200, height: 630, theme: "dark" };
      const fromDashboard = new Uint8Array(await (await dash("/dashboard/api/account-templates/preview", { cookie, json: same })).arrayBuffer());
      const fromApi = await s.api("/api/templates/preview", { key: apiKey, json: same });
      expect(fromApi.status).toBe(200);
      expect(Buffer.from(fromDashboard).equals(Buffer.from(new Uint8Array(await fromApi.arrayBuffer())))).toBe(true);

      // An undeclared placeholder on the third line: the same 400 as creating it, with its place.
      const broken = { ...definition, html: '<div style="display: flex;">\n  <h1>{{title}}</h1>\n  <p>{{missing}}</p>\n</div>' };
      const refused = await dash("/dashboard/api/account-templates/preview", { cookie, json: { template: broken } });
      expect(refused.status).toBe(400);
      const body = (await refused.json()) as any;
      expect(body.code).toBe("VALIDATION_ERROR");
      expect(body.details).toContainEqual(expect.objectContaining({ field: "html", line: 3 }));
      expect((await dash("/dashboard/api/account-templates/preview", { cookie, json: {} })).status).toBe(400);
    });

    test("the starters: at least six, each created as is and drawn from its sample values; their pictures are PNGs", async () => {
      const { apiKey } = await s.createAccount({ plan: "pro" });
      const cookie = await signIn(apiKey);
      const { data } = (await (await dash("/dashboard/api/starters", { cookie })).json()) as any;
      expect(data.length).toBeGreaterThanOrEqual(6);
      for (const item of data) {
        const created = await s.api("/api/templates", { key: apiKey, json: item });
        expect({ id: item.id, status: created.status }).toEqual({ id: item.id, status: 201 });
        const picture = await dash(`/dashboard/api/starters/${item.id}/picture`, { cookie });
        expect(picture.headers.get("content-type")).toBe("image/png");
        expect([...new Uint8Array(await picture.arrayBuffer()).subarray(1, 4)]).toEqual([0x50, 0x4e, 0x47]);
      }
      // Rendered through the API by id, with the sample values.
      const quote = data.find((item: any) => item.id === "quote");
      const image = await s.api("/api/generate", { key: apiKey, json: { template: "quote", ...quote.sample } });
      expect(image.status).toBe(200);
      expect(decodePng(new Uint8Array(await image.arrayBuffer())).width).toBe(1200);
      expect((await dash("/dashboard/api/starters/nope/picture", { cookie })).status).toBe(404);
    });

    test("bodies the size of a large template pass (the editor's routes take up to 1 MiB, like /api/templates)", async () => {
      const { apiKey } = await s.createAccount({ plan: "pro" });
      const cookie = await signIn(apiKey);
      const definition = await starter(cookie, "quote");
      // About 200 KiB of HTML: a comment-free run of nested elements the language accepts.
      const html = `<div style="display: flex; flex-direction: column;">${'<div style="display: flex; width: 10px; height: 1px; background-color: #123456;"></div>'.repeat(1800)}<p>{{quote}}</p></div>`;
      expect(html.length).toBeGreaterThan(150_000);
      const res = await dash("/dashboard/api/account-templates", { cookie, json: { ...definition, id: "big", html } });
      expect(res.status).toBe(201);
      const tooLarge = await dash("/dashboard/api/account-templates", {
        cookie,
        body: JSON.stringify({ ...definition, id: "huge", html: "x".repeat(1024 * 1024 + 10) }),
      });
      expect(tooLarge.status).toBe(413);
    });
    test("the code editor is served from this server, gzipped for browsers that take it", async () => {
      const page = await (await s.fetch(s.url + "/dashboard")).text();
      const version = /dashboard\.js\?v=([a-z0-9]+)/.exec(page)![1];
      const editor = await (await s.fetch(`${s.url}/dashboard/assets/template-editor.js?v=${version}`)).text();
      expect(editor).toContain(`import("./code-editor.js?v=${version}")`);
      const plain = await s.fetch(`${s.url}/dashboard/assets/code-editor.js?v=${version}`, { headers: { "accept-encoding": "identity" } });
      expect(plain.headers.get("content-encoding")).toBeNull();
      const text = await plain.text();
      expect(text).toContain("cm-content");
      const gzipped = await s.fetch(`${s.url}/dashboard/assets/code-editor.js?v=${version}`, { headers: { "accept-encoding": "gzip" }, decompress: false });
      expect(gzipped.headers.get("content-encoding")).toBe("gzip");
      expect(gzipped.headers.get("vary")).toBe("accept-encoding");
      const bytes = new Uint8Array(await gzipped.arrayBuffer());
      expect(bytes.byteLength).toBeLessThan(text.length / 2);
      expect(new TextDecoder().decode(Bun.gunzipSync(bytes))).toBe(text);
    });
  });
});

/**
 * The Fonts page's endpoints through the app (no browser; satori, or
 * the other engine with OG_TEST_ENGINE=takumi): the session and the Origin check guard them;
 * upload, list and delete answer as /api/fonts does (the same core, the same words for 400, 409
 * and 413); the sample picture is drawn in the face it names (its ink against a sample drawn by
 * another face), is the account's alone, and each face of a family gets its own; a repeat comes
 * from the image cache.
 */
describe("fonts in the dashboard", () => {
  let s: InProcessApp;
  beforeAll(async () => {
    s = await startInProcessApp({ OG_RENDER_ENGINE: testEngine() });
  });
  afterAll(() => s.stop());

  const origin = () => new URL(s.url).origin;

  async function signIn(): Promise<{ cookie: string; apiKey: string }> {
    const { apiKey } = await s.createAccount({ plan: "custom", quota: 10_000, requests_per_second: 1_000 });
    const res = await s.fetch(s.url + "/dashboard/api/session", {
      method: "POST",
      headers: { origin: origin(), "content-type": "application/json" },
      body: JSON.stringify({ api_key: apiKey }),
    });
    expect(res.status).toBe(200);
    return { cookie: res.headers.get("set-cookie")!.split(";")[0]!, apiKey };
  }

  function dash(path: string, cookie: string, init: { method?: string; body?: BodyInit; origin?: string | null } = {}) {
    const headers: Record<string, string> = { cookie };
    if (init.origin !== null) headers.origin = init.origin ?? origin();
    return s.fetch(s.url + "/dashboard/api" + path, { method: init.method ?? "GET", headers, body: init.body });
  }

  function form(file: Uint8Array, fields: Record<string, string> = {}) {
    const body = new FormData();
    body.set("file", new Blob([file as Uint8Array<ArrayBuffer>]), "font.otf");
    for (const [k, v] of Object.entries(fields)) body.set(k, v);
    return body;
  }

  const upload = (cookie: string, file: Uint8Array, fields: Record<string, string> = {}) =>
    dash("/fonts", cookie, { method: "POST", body: form(file, fields) });

  async function inkOfSample(cookie: string, id: string): Promise<number> {
    const res = await dash(`/fonts/${id}/sample`, cookie);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/png");
    const png = decodePng(new Uint8Array(await res.arrayBuffer()));
    return inkIn(png.pixels, png.width, { x: 0, y: 0, w: png.width, h: png.height });
  }

  describe("dashboard fonts", () => {
    test("a session is required; a state change needs this server's Origin", async () => {
      const { cookie } = await signIn();
      expect((await s.fetch(s.url + "/dashboard/api/fonts")).status).toBe(401);
      const crossSite = await dash("/fonts", cookie, { method: "POST", body: form(pixelFont("Cross")), origin: "https://evil.example" });
      expect(crossSite.status).toBe(403);
      const noOrigin = await dash("/fonts", cookie, { method: "POST", body: form(pixelFont("Cross")), origin: null });
      expect(noOrigin.status).toBe(403);
      const list = (await (await dash("/fonts", cookie)).json()) as { data: { source: string }[] };
      expect(list.data.filter((f) => f.source === "account")).toEqual([]);
    });

    test("upload, list (with the bundled families), sample in the face, delete: the same answers as /api/fonts", async () => {
      const { cookie, apiKey } = await signIn();
      const res = await upload(cookie, pixelFont("Blocky Dash"), { weight: "700" });
      expect(res.status).toBe(201);
      const font = (await res.json()) as { id: string; family: string; weight: number; style: string };
      expect(font).toMatchObject({ family: "Blocky Dash", weight: 700, style: "normal", format: "otf" });

      const list = (await (await dash("/fonts", cookie)).json()) as { data: { family: string; source: string }[] };
      expect(list).toEqual((await (await s.api("/api/fonts", { key: apiKey })).json()) as typeof list);
      expect(list.data.map((f) => `${f.source}:${f.family}`)).toEqual([
        "account:Blocky Dash",
        "builtin:Inter",
        "builtin:Source Serif 4",
        "builtin:JetBrains Mono",
      ]);

      // Filled boxes against frames: the sample is drawn in the face it names.
      const hollow = (await (await upload(cookie, pixelFont("Hollow Dash", { hollow: true }))).json()) as { id: string };
      const blockyInk = await inkOfSample(cookie, font.id);
      const hollowInk = await inkOfSample(cookie, hollow.id);
      expect(blockyInk).toBeGreaterThan(hollowInk * 1.2);
      const sample = await dash(`/fonts/${font.id}/sample`, cookie);
      expect(sample.headers.get("cache-control")).toBe("no-store");
      // Asked again, it comes from the renderer's image cache.
      expect(sample.headers.get("x-render-cache")).toBe("hit");
      expect(decodePng(new Uint8Array(await sample.arrayBuffer()))).toMatchObject({ width: 1000, height: 200 });

      const deleted = await dash(`/fonts/${font.id}`, cookie, { method: "DELETE" });
      expect(deleted.status).toBe(200);
      expect(await deleted.json()).toEqual({ id: font.id, deleted: true });
      expect((await dash(`/fonts/${font.id}/sample`, cookie)).status).toBe(404);
      expect((await dash(`/fonts/${font.id}`, cookie, { method: "DELETE" })).status).toBe(404);
    });

    test("two faces of one family get two samples, each in its own face", async () => {
      const { cookie } = await signIn();
      const regular = (await (await upload(cookie, pixelFont("Pair"), { weight: "400" })).json()) as { id: string };
      const bold = (await (await upload(cookie, pixelFont("Pair", { hollow: true }), { weight: "700" })).json()) as { id: string };
      // The regular face fills its boxes, the bold one draws frames: less ink.
      const regularInk = await inkOfSample(cookie, regular.id);
      const boldInk = await inkOfSample(cookie, bold.id);
      expect(regularInk).toBeGreaterThan(boldInk * 1.2);
    });

    test("another account's font: no sample, no delete, not listed", async () => {
      const owner = await signIn();
      const other = await signIn();
      const font = (await (await upload(owner.cookie, pixelFont("Private Dash"))).json()) as { id: string };
      expect((await dash(`/fonts/${font.id}/sample`, other.cookie)).status).toBe(404);
      expect((await dash(`/fonts/${font.id}`, other.cookie, { method: "DELETE" })).status).toBe(404);
      const list = (await (await dash("/fonts", other.cookie)).json()) as { data: { source: string }[] };
      expect(list.data.filter((f) => f.source === "account")).toEqual([]);
      expect((await dash(`/fonts/${font.id}/sample`, owner.cookie)).status).toBe(200);
    });

    test("errors as the API words them: 400 naming file, 413 over 5 MiB, 409 past 20 fonts", async () => {
      const { cookie, apiKey } = await signIn();
      const notFont = new TextEncoder().encode("<html>not a font</html>");
      const viaDash = (await (await upload(cookie, notFont)).json()) as { code: string; message: string; details: { field: string; message: string }[] };
      const viaApi = (await (await s.api("/api/fonts", { key: apiKey, method: "POST", body: form(notFont) })).json()) as typeof viaDash;
      expect(viaDash.code).toBe("VALIDATION_ERROR");
      expect(viaDash.details[0]?.field).toBe("file");
      expect(viaDash).toEqual(viaApi);

      const big = new Uint8Array(5 * 1024 * 1024 + 1);
      big.set(pixelFont("Big"));
      const tooBig = await upload(cookie, big);
      expect(tooBig.status).toBe(413);
      expect(((await tooBig.json()) as { message: string }).message).toContain("at most 5 MiB");

      for (let i = 0; i < 20; i++) expect((await s.api("/api/fonts", { key: apiKey, method: "POST", body: form(pixelFont(`Many ${i}`)) })).status).toBe(201);
      const full = await upload(cookie, pixelFont("Many 20"));
      expect(full.status).toBe(409);
      expect(((await full.json()) as { message: string }).message).toContain("at most 20 fonts");
    });
  });
});
