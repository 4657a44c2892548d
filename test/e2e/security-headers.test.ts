/**
 * What a security review asked of the running service: /metrics behind a token unless made
 * public, /readyz answered from a check run at most once a second, only OG_BASE_URL's Host
 * answered when it is set (421 otherwise), no cache keeping an answer that carries a secret,
 * /docs never framed nor leaking its address, and sign-in attempts limited over HTTP.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ADMIN_TOKEN, startTestService, type TestService } from "../support/harness.ts";
import { waitFor } from "../support/wait.ts";

async function expectError(res: Response, status: number, code: string): Promise<{ message: string }> {
  expect(res.status).toBe(status);
  expect(res.headers.get("cache-control")).toBe("no-store");
  const body = (await res.json()) as { error: boolean; code: string; message: string };
  expect(body).toMatchObject({ error: true, code });
  return body;
}

const METRICS_TOKEN = "metrics-token-0123456789";

describe("one service with an admin token and a metrics token", () => {
  let s: TestService;
  beforeAll(async () => {
    s = await startTestService({ OG_METRICS_TOKEN: METRICS_TOKEN });
  });
  afterAll(() => s.stop());

  test("/metrics needs the metrics token or the admin token", async () => {
    const refused = await expectError(await s.api("/metrics"), 401, "UNAUTHORIZED");
    expect(refused.message).toContain("OG_METRICS_TOKEN");
    await expectError(await s.api("/metrics", { headers: { authorization: "Bearer not-the-token-at-all" } }), 401, "UNAUTHORIZED");
    for (const token of [METRICS_TOKEN, ADMIN_TOKEN]) {
      const res = await s.api("/metrics", { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(200);
      expect(await res.text()).toContain("ogsmith_http_requests_total");
    }
  });

  test("/readyz answers every caller from a check started at most once a second", async () => {
    const store = s.service.services.store;
    const probe = store.probe.bind(store);
    let probes = 0;
    store.probe = () => {
      probes++;
      return probe();
    };
    try {
      const started = performance.now();
      const answers = await Promise.all(Array.from({ length: 50 }, () => s.api("/readyz")));
      for (let i = 0; i < 50; i++) answers.push(await s.api("/readyz"));
      const seconds = (performance.now() - started) / 1000;
      for (const res of answers) {
        expect(res.status).toBe(200);
        expect(await res.json()).toEqual({ status: "ready" });
      }
      // One store write per second begun at most, however many anonymous callers ask.
      expect(probes).toBeGreaterThanOrEqual(1);
      expect(probes).toBeLessThanOrEqual(1 + Math.ceil(seconds));
    } finally {
      store.probe = probe;
    }
  });

  test("answers that carry a secret (and every other API answer) are no-store", async () => {
    const created = await s.admin("/admin/accounts", { json: { email: "secrets@example.com", plan: "pro" } });
    expect(created.status).toBe(201);
    expect(created.headers.get("cache-control")).toBe("no-store");
    const { account_id: accountId, api_key: apiKey } = (await created.json()) as { account_id: string; api_key: string };

    const replaced = await s.admin(`/admin/accounts/${accountId}/keys`, { method: "POST" });
    expect(replaced.status).toBe(201);
    expect(replaced.headers.get("cache-control")).toBe("no-store");
    const { api_key: key } = (await replaced.json()) as { api_key: string };
    expect(key).not.toBe(apiKey);

    const signingKey = await s.api("/api/signing-keys", { key, method: "POST" });
    expect(signingKey.status).toBe(201);
    expect(signingKey.headers.get("cache-control")).toBe("no-store");
    expect(((await signingKey.json()) as { secret: string }).secret).toStartWith("ogsk_");

    for (const path of ["/api/signing-keys", "/api/user/usage", "/api/webhooks"]) {
      const res = await s.api(path, { key });
      expect(res.status).toBe(200);
      expect(res.headers.get("cache-control")).toBe("no-store");
      await res.arrayBuffer();
    }
  });

  test("/docs is never framed and sends no referrer", async () => {
    const docs = await s.api("/docs");
    expect(docs.status).toBe(200);
    expect(docs.headers.get("x-frame-options")).toBe("DENY");
    expect(docs.headers.get("referrer-policy")).toBe("no-referrer");
    expect(docs.headers.get("content-security-policy")).toContain("default-src");
  });

  test("sign-in: 10 failed attempts from one client, then 429 with Retry-After, even with the right key", async () => {
    const { apiKey } = await s.createAccount();
    const origin = new URL(s.url).origin;
    const signIn = (key: string) => s.api("/dashboard/api/session", { json: { api_key: key }, headers: { origin } });
    for (let i = 0; i < 10; i++) await expectError(await signIn(`og_${"z".repeat(30)}${String(i).padStart(2, "0")}`), 401, "INVALID_API_KEY");
    const limited = await signIn(apiKey);
    await expectError(limited, 429, "RATE_LIMIT_EXCEEDED");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    await s.advance(60);
    const ok = await signIn(apiKey);
    expect(ok.status).toBe(200);
    expect(ok.headers.get("cache-control")).toBe("no-store");
  });
});

describe("OG_BASE_URL set", () => {
  let s: TestService;
  beforeAll(async () => {
    s = await startTestService({ OG_BASE_URL: "https://og.example.com" });
  });
  afterAll(() => s.stop());

  test("any other Host is refused with 421; health checks and a scrape with its token answer on any Host", async () => {
    const { apiKey } = await s.createAccount({ plan: "custom", quota: 100, requests_per_second: 100 });
    expect((await s.api("/api/user/usage", { key: apiKey })).status).toBe(200); // the harness sends og.example.com
    for (const host of ["rebind.attacker.example", "127.0.0.1", "og.example.com.attacker.example", "og.example.com:8443"]) {
      const refused = await expectError(await s.api("/api/user/usage", { key: apiKey, headers: { host } }), 421, "MISDIRECTED_REQUEST");
      expect(refused.message).toContain("og.example.com");
      await expectError(await s.api("/openapi.json", { headers: { host } }), 421, "MISDIRECTED_REQUEST");
      await expectError(await s.api("/metrics", { headers: { host } }), 401, "UNAUTHORIZED");
      expect((await s.api("/healthz", { headers: { host } })).status).toBe(200);
      expect((await s.api("/readyz", { headers: { host } })).status).toBe(200);
      expect((await s.api("/metrics", { headers: { host, authorization: `Bearer ${ADMIN_TOKEN}` } })).status).toBe(200);
    }
    // The default port of the scheme may be spelled out.
    expect((await s.api("/api/user/usage", { key: apiKey, headers: { host: "OG.example.com:443" } })).status).toBe(200);
  });
});

test("OG_METRICS_PUBLIC=true: /metrics answers anyone; with OG_BASE_URL only on its Host", async () => {
  const s = await startTestService({ OG_METRICS_PUBLIC: "true", OG_BASE_URL: "https://og.example.com" });
  try {
    expect((await s.api("/metrics")).status).toBe(200);
    await expectError(await s.api("/metrics", { headers: { host: "rebind.attacker.example" } }), 421, "MISDIRECTED_REQUEST");
  } finally {
    await s.stop();
  }
});

test("logs name a webhook by its id, never by its URL (a Slack-style path is a credential): deliveries that give up, the disabled email's line", async () => {
  const { createLogger } = await import("../../src/logger.ts");
  const { startReceiver } = await import("../support/receiver.ts");
  const lines: string[] = [];
  const receiver = await startReceiver();
  // No SMTP_URL: the webhook-disabled email is logged as not sent, with its subject.
  const s = await startTestService({ OG_ALLOW_PRIVATE_NETWORKS: "1" }, { logger: createLogger("info", (line) => lines.push(line)) });
  try {
    const { apiKey } = await s.createAccount({ plan: "custom", quota: 100, requests_per_second: 100, email: "owner@example.com" });
    const path = "/services/T0001/B0001/SecretPathToken123";
    receiver.respond({ status: 500 }, path);
    const created = await s.api("/api/webhooks", { key: apiKey, json: { url: receiver.url(path), events: ["image.generated"], secret: "s".repeat(20) } });
    const webhook = (await created.json()) as { id: string };
    await (await s.api("/api/generate", { key: apiKey, json: { title: "A delivery that fails" } })).arrayBuffer();
    await receiver.waitForCount(1, path);
    for (const [i, delay] of [60, 300, 1800, 7200, 86400].entries()) {
      await s.advance(delay * 1.2);
      await receiver.waitForCount(i + 2, path);
    }
    await waitFor(() => lines.some((line) => line.includes("email alert not sent")), "the disabled email's log line");
    const gaveUp = lines.find((line) => line.includes('"job gave up"'));
    expect(gaveUp).toContain(`"webhook_id":"${webhook.id}"`);
    expect(lines.find((line) => line.includes("email alert not sent"))).toContain(webhook.id);
    for (const line of lines) expect(line).not.toContain("SecretPathToken123");
  } finally {
    await s.stop();
    await receiver.stop();
  }
}, 60_000);
