/**
 * The dashboard's session and JSON endpoints over plain HTTP against the real service (no
 * browser): cookie attributes, Origin checks, expiry on the service clock, key replacement,
 * blocked accounts, previews that are rate limited but never counted.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestService, type TestService } from "../support/harness.ts";

let s: TestService;
beforeAll(async () => {
  s = await startTestService();
});
afterAll(() => s.stop());

const origin = () => new URL(s.url).origin;

/** A dashboard request as the dashboard's own page would send it (same Origin, the cookie). */
function dash(path: string, init: { method?: string; cookie?: string; json?: unknown; origin?: string | null; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...init.headers };
  if (init.cookie) headers.cookie = init.cookie;
  if (init.origin !== null) headers.origin = init.origin ?? origin();
  if (init.json !== undefined) headers["content-type"] = "application/json";
  return fetch(s.url + path, {
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
    const behindProxy = await startTestService({ OG_BASE_URL: "https://og.example.com" });
    try {
      const { apiKey } = await behindProxy.createAccount();
      const signIn = (origin: string, host = "og.example.com") =>
        fetch(behindProxy.url + "/dashboard/api/session", {
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
    const page = await fetch(s.url + "/dashboard");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(page.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    const html = await page.text();
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!).filter((u) => u.startsWith("/dashboard/assets/"));
    expect(assets).toHaveLength(2);
    for (const asset of assets) {
      const res = await fetch(s.url + asset);
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
