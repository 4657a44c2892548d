/**
 * /api/webhooks in process (test/support/in-process.ts): the routes, and deliveries to a real
 * receiver (test/support/receiver.ts) made by the background worker on the test clock.
 */
import { describe, test, expect, afterAll, beforeAll, beforeEach } from "bun:test";
import { envelope } from "../support/envelope.ts";
import { customAccount, useInProcessApp, startInProcessApp, type InProcessApp, useAppWithReceiver } from "../support/in-process.ts";
import { verify as verifyOctokit } from "@octokit/webhooks-methods";
import { Webhook, Webhook as StandardWebhook } from "standardwebhooks";
import { eventBody, execStoreSql } from "../support/harness.ts";
import { waitFor } from "../support/wait.ts";
import { createHmac, randomBytes } from "node:crypto";
import { Webhook as SvixWebhook } from "svix";
import { startReceiver, type TestReceiver, type Behaviour } from "../support/receiver.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startSmtpServer, type TestSmtpServer } from "../support/smtp.ts";

const s = useInProcessApp();

describe("routes that do not exist", () => {
  test("another account's webhook is 404 WEBHOOK_NOT_FOUND, like one that never existed", async () => {
    const { key } = await customAccount(s);
    await envelope(await s.api("/api/webhooks/wh_doesnotexist/deliveries", { key }), 404, "WEBHOOK_NOT_FOUND");
  });
});

/**
 * Webhooks (docs/api.md, docs/events.md): the app in process, real
 * receivers on 127.0.0.1 (OG_ALLOW_PRIVATE_NETWORKS=1 so loopback is allowed), the test clock.
 */
describe("webhooks", () => {
  const fx = useAppWithReceiver();

  const SECRET = "whsec-test-secret-0123456789";
  const ALL_EVENTS = ["image.generated", "usage.warning", "usage.limit_reached", "usage.reset"];

  async function createWebhook(key: string, body: Record<string, unknown>) {
    const res = await fx.s.api("/api/webhooks", { key, json: body });
    const json = (await res.json()) as any;
    if (res.status !== 201) throw new Error(`create webhook: ${res.status} ${JSON.stringify(json)}`);
    return json as { id: string; url: string; events: string[]; status: string; disabled_reason: string | null; created_at: string; updated_at: string };
  }

  async function generate(key: string) {
    const res = await fx.s.api("/api/generate", { key, json: eventBody() });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    return res.headers.get("x-request-id")!;
  }

  const fastAccount = () => fx.s.createAccount({ plan: "custom", quota: 1000, requests_per_second: 1000 });

  describe("signatures", () => {
    test("X-OG-Signature verifies with @octokit/webhooks-methods and the standard headers with standardwebhooks", async () => {
      const { apiKey } = await fastAccount();
      await createWebhook(apiKey, { url: fx.r.url("/sig"), events: ["image.generated"], secret: SECRET });
      await generate(apiKey);
      // First attempt at once: no clock advance, no tick needed.
      const [delivery] = await fx.r.waitForCount(1, "/sig");
      const { headers, body } = delivery!;

      expect(headers["x-og-signature"]).toMatch(/^sha256=[0-9a-f]{64}$/);
      expect(await verifyOctokit(SECRET, body, headers["x-og-signature"]!)).toBe(true);
      expect(await verifyOctokit(SECRET, body.replace("event", "evenT"), headers["x-og-signature"]!)).toBe(false);
      expect(await verifyOctokit("another-secret-0123456789", body, headers["x-og-signature"]!)).toBe(false);

      const standard = new Webhook(Buffer.from(SECRET, "utf8").toString("base64"));
      const verified = standard.verify(body, {
        "webhook-id": headers["webhook-id"]!,
        "webhook-timestamp": headers["webhook-timestamp"]!,
        "webhook-signature": headers["webhook-signature"]!,
      }) as any;
      expect(verified.event).toBe("image.generated");
      expect(() =>
        standard.verify(body + " ", {
          "webhook-id": headers["webhook-id"]!,
          "webhook-timestamp": headers["webhook-timestamp"]!,
          "webhook-signature": headers["webhook-signature"]!,
        }),
      ).toThrow();

      const envelope = JSON.parse(body);
      expect(headers["content-type"]).toBe("application/json");
      expect(headers["user-agent"]).toMatch(/^ogsmith-webhooks\/\d+\.\d+\.\d+/);
      expect(headers["x-og-event"]).toBe("image.generated");
      expect(headers["x-og-event-id"]).toBe(envelope.id);
      expect(headers["webhook-id"]).toBe(envelope.id);
      expect(headers["x-og-delivery"]).toMatch(/^dlv_/);
      expect(Number(headers["webhook-timestamp"])).toBe(Math.floor(fx.s.now() / 1000));
      expect(headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(delivery!.method).toBe("POST");
    });
  });

  describe("events and payloads", () => {
    test("image.generated: envelope {id, event, timestamp, data} with the documented data fields and types", async () => {
      const { apiKey } = await fastAccount();
      await createWebhook(apiKey, { url: fx.r.url("/payload"), events: ["image.generated"], secret: SECRET });
      const requestId = await generate(apiKey);
      const [event] = (await fx.r.waitForCount(1, "/payload")).map((d) => JSON.parse(d.body));
      expect(Object.keys(event).sort()).toEqual(["data", "event", "id", "timestamp"]);
      expect(event.id).toMatch(/^evt_[A-Za-z0-9]{20}$/);
      expect(event.event).toBe("image.generated");
      expect(event.timestamp).toBe(new Date(fx.s.now()).toISOString());
      expect(event.data).toEqual({
        request_id: requestId,
        template: "event",
        dimensions: { width: 1200, height: 630 },
        generation_time_ms: expect.any(Number),
      });
      expect(Number.isInteger(event.data.generation_time_ms)).toBe(true);
    });

    test("a webhook receives only the events it subscribed to", async () => {
      const { apiKey } = await fx.s.createAccount({ plan: "custom", quota: 5, requests_per_second: 1000 });
      await createWebhook(apiKey, { url: fx.r.url("/only-images"), events: ["image.generated"], secret: SECRET });
      await createWebhook(apiKey, { url: fx.r.url("/only-warnings"), events: ["usage.warning"], secret: SECRET });
      await createWebhook(apiKey, { url: fx.r.url("/only-reset"), events: ["usage.reset"], secret: SECRET });
      for (let i = 0; i < 4; i++) await generate(apiKey); // 4 of 5 = 80 %
      await fx.r.waitForCount(4, "/only-images");
      await fx.r.waitForCount(1, "/only-warnings");
      await fx.s.advance(3600); // anything else would have been delivered by now
      expect(fx.r.events("/only-images").map((e) => e.event)).toEqual(["image.generated", "image.generated", "image.generated", "image.generated"]);
      expect(fx.r.events("/only-warnings").map((e) => [e.event, e.data.percentage])).toEqual([["usage.warning", 80]]);
      expect(fx.r.at("/only-reset")).toHaveLength(0);
    });

    test("accounts are isolated: one account's events never reach another's webhooks", async () => {
      const a = await fastAccount();
      const b = await fastAccount();
      await createWebhook(a.apiKey, { url: fx.r.url("/iso-a"), events: ALL_EVENTS, secret: SECRET });
      await createWebhook(b.apiKey, { url: fx.r.url("/iso-b"), events: ALL_EVENTS, secret: SECRET });
      const ra = await generate(a.apiKey);
      await generate(a.apiKey);
      const rb = await generate(b.apiKey);
      await fx.r.waitForCount(2, "/iso-a");
      await fx.r.waitForCount(1, "/iso-b");
      await fx.s.advance(60);
      expect(fx.r.events("/iso-a").map((e) => e.data.request_id)).toContain(ra);
      expect(fx.r.events("/iso-a").map((e) => e.data.request_id)).not.toContain(rb);
      expect(fx.r.events("/iso-b").map((e) => e.data.request_id)).toEqual([rb]);
    });
  });

  describe("CRUD", () => {
    test("create → 201 record without the secret; list; show; update; rotate; delete", async () => {
      const { apiKey } = await fastAccount();
      const res = await fx.s.api("/api/webhooks", {
        key: apiKey,
        json: { url: fx.r.url("/crud"), events: ["image.generated", "usage.reset"], secret: SECRET },
      });
      expect(res.status).toBe(201);
      const text = await res.text();
      expect(text).not.toContain(SECRET);
      const created = JSON.parse(text);
      expect(created).toEqual({
        id: expect.stringMatching(/^wh_/),
        url: fx.r.url("/crud"),
        events: ["image.generated", "usage.reset"],
        status: "enabled",
        disabled_reason: null,
        created_at: new Date(fx.s.now()).toISOString(),
        updated_at: new Date(fx.s.now()).toISOString(),
      });

      const list = await fx.s.api("/api/webhooks", { key: apiKey });
      expect(list.status).toBe(200);
      const listText = await list.text();
      expect(listText).not.toContain(SECRET);
      expect(JSON.parse(listText)).toEqual({ data: [created] });
      expect(await (await fx.s.api(`/api/webhooks/${created.id}`, { key: apiKey })).json()).toEqual(created);

      await fx.s.advance(10);
      const NEW_SECRET = "rotated-secret-abcdefghijklmnop";
      const put = await fx.s.api(`/api/webhooks/${created.id}`, {
        key: apiKey,
        method: "PUT",
        json: { url: fx.r.url("/crud2"), events: ["image.generated"], secret: NEW_SECRET },
      });
      expect(put.status).toBe(200);
      const updated = await put.json();
      expect(updated).toMatchObject({
        id: created.id,
        url: fx.r.url("/crud2"),
        events: ["image.generated"],
        status: "enabled",
        created_at: created.created_at,
      });
      expect(updated.updated_at).toBe(new Date(fx.s.now()).toISOString());
      expect(JSON.stringify(updated)).not.toContain(NEW_SECRET);

      // The rotated secret signs the next delivery.
      await generate(apiKey);
      const [d] = await fx.r.waitForCount(1, "/crud2");
      expect(await verifyOctokit(NEW_SECRET, d!.body, d!.headers["x-og-signature"]!)).toBe(true);
      expect(await verifyOctokit(SECRET, d!.body, d!.headers["x-og-signature"]!)).toBe(false);

      const del = await fx.s.api(`/api/webhooks/${created.id}`, { key: apiKey, method: "DELETE" });
      expect(del.status).toBe(200);
      expect(await del.json()).toEqual({ id: created.id, deleted: true });
      const gone = await fx.s.api(`/api/webhooks/${created.id}`, { key: apiKey });
      expect(gone.status).toBe(404);
      expect((await gone.json()).code).toBe("WEBHOOK_NOT_FOUND");
      expect(await (await fx.s.api("/api/webhooks", { key: apiKey })).json()).toEqual({ data: [] });
    });

    test("validation names every bad field", async () => {
      const { apiKey } = await fastAccount();
      const bad = async (json: unknown, method = "POST", path = "/api/webhooks") => {
        const res = await fx.s.api(path, { key: apiKey, method, json });
        expect(res.status).toBe(400);
        const body = await res.json();
        expect(body.code).toBe("VALIDATION_ERROR");
        return (body.details as { field: string }[]).map((d) => d.field).sort();
      };
      expect(await bad({ url: "ftp://example.com/x", events: ["image.generated"], secret: SECRET })).toEqual(["url"]);
      expect(await bad({ url: "not a url", events: ["image.generated"], secret: SECRET })).toEqual(["url"]);
      expect(await bad({ url: "https://example.com/" + "a".repeat(2048), events: ["image.generated"], secret: SECRET })).toEqual(["url"]);
      expect(await bad({ url: fx.r.url("/v"), events: [], secret: SECRET })).toEqual(["events"]);
      expect((await bad({ url: fx.r.url("/v"), events: ["image.generated", "nope"], secret: SECRET }))[0]).toStartWith("events");
      expect((await bad({ url: fx.r.url("/v"), events: ["usage.reset", "usage.reset"], secret: SECRET }))[0]).toStartWith("events");
      expect(await bad({ url: fx.r.url("/v"), events: ["usage.reset"], secret: "short" })).toEqual(["secret"]);
      expect(await bad({ url: fx.r.url("/v"), events: ["usage.reset"], secret: "x".repeat(257) })).toEqual(["secret"]);
      expect(await bad({ url: fx.r.url("/v"), events: ["usage.reset"] })).toEqual(["secret"]);
      expect(await bad({ url: fx.r.url("/v"), events: ["usage.reset"], secret: SECRET, colour: "red" })).toEqual(["colour"]);
      expect(await bad({ events: "usage.reset", secret: 5 })).toEqual(["events", "secret", "url"]);

      const wh = await createWebhook(apiKey, { url: fx.r.url("/v"), events: ["usage.reset"], secret: SECRET });
      expect(await bad({ events: ["usage.reset"] }, "PUT", `/api/webhooks/${wh.id}`)).toEqual(["url"]);
      expect(await bad({ url: fx.r.url("/v") }, "PUT", `/api/webhooks/${wh.id}`)).toEqual(["events"]);
      expect(await bad({ url: fx.r.url("/v"), events: ["usage.reset"], enabled: "yes" }, "PUT", `/api/webhooks/${wh.id}`)).toEqual(["enabled"]);
      expect(await bad({ webhook_id: wh.id, extra: 1 }, "POST", "/api/webhooks/test")).toEqual(["extra"]);
    });

    test("at most 20 webhooks per account", async () => {
      const { apiKey } = await fastAccount();
      for (let i = 0; i < 20; i++) await createWebhook(apiKey, { url: fx.r.url(`/max/${i}`), events: ["usage.reset"], secret: SECRET });
      const res = await fx.s.api("/api/webhooks", { key: apiKey, json: { url: fx.r.url("/max/20"), events: ["usage.reset"], secret: SECRET } });
      expect(res.status).toBe(409);
      expect((await res.json()).code).toBe("CONFLICT");
      expect(((await (await fx.s.api("/api/webhooks", { key: apiKey })).json()) as any).data).toHaveLength(20);
    });

    test("another account's webhook answers 404 WEBHOOK_NOT_FOUND everywhere and is left untouched", async () => {
      const owner = await fastAccount();
      const other = await fastAccount();
      const wh = await createWebhook(owner.apiKey, { url: fx.r.url("/owned"), events: ["usage.reset"], secret: SECRET });
      const calls: [string, string, unknown?][] = [
        ["GET", `/api/webhooks/${wh.id}`],
        ["PUT", `/api/webhooks/${wh.id}`, { url: fx.r.url("/stolen"), events: ["image.generated"] }],
        ["DELETE", `/api/webhooks/${wh.id}`],
        ["GET", `/api/webhooks/${wh.id}/deliveries`],
        ["POST", "/api/webhooks/test", { webhook_id: wh.id }],
        ["GET", "/api/webhooks/wh_doesnotexist"],
      ];
      for (const [method, path, json] of calls) {
        const res = await fx.s.api(path, { key: other.apiKey, method, json });
        expect(res.status).toBe(404);
        expect((await res.json()).code).toBe("WEBHOOK_NOT_FOUND");
      }
      expect(await (await fx.s.api("/api/webhooks", { key: other.apiKey })).json()).toEqual({ data: [] });
      expect(await (await fx.s.api(`/api/webhooks/${wh.id}`, { key: owner.apiKey })).json()).toEqual(wh);
      expect(fx.r.at("/owned")).toHaveLength(0);
    });

    test("deleting a webhook drops its pending deliveries", async () => {
      const { apiKey } = await fastAccount();
      fx.r.respond({ status: 500 }, "/deleted");
      const wh = await createWebhook(apiKey, { url: fx.r.url("/deleted"), events: ["image.generated"], secret: SECRET });
      await generate(apiKey);
      await fx.r.waitForCount(1, "/deleted");
      expect((await fx.s.api(`/api/webhooks/${wh.id}`, { key: apiKey, method: "DELETE" })).status).toBe(200);
      fx.r.respond({ status: 200 }, "/deleted");
      await fx.s.advance(86400 * 3);
      expect(fx.r.at("/deleted")).toHaveLength(1);
    });
  });

  describe("POST /api/webhooks/test and the delivery log", () => {
    test("one synchronous attempt per enabled webhook, logged, never retried, never disabling", async () => {
      const { apiKey } = await fastAccount();
      fx.r.respond({ status: 204 }, "/t-ok");
      fx.r.respond({ status: 500 }, "/t-fail");
      const ok = await createWebhook(apiKey, { url: fx.r.url("/t-ok"), events: ["usage.reset"], secret: SECRET });
      const fail = await createWebhook(apiKey, { url: fx.r.url("/t-fail"), events: ["image.generated"], secret: SECRET });

      const res = await fx.s.api("/api/webhooks/test", { key: apiKey, method: "POST" });
      expect(res.status).toBe(200);
      const { results } = (await res.json()) as { results: any[] };
      expect(results).toHaveLength(2);
      const byId = Object.fromEntries(results.map((x) => [x.webhook_id, x]));
      expect(byId[ok.id]).toEqual({ webhook_id: ok.id, delivered: true, status_code: 204, error: null, duration_ms: expect.any(Number) });
      expect(byId[fail.id]).toEqual({ webhook_id: fail.id, delivered: false, status_code: 500, error: "HTTP 500", duration_ms: expect.any(Number) });

      const [sent] = fx.r.at("/t-ok");
      const envelope = JSON.parse(sent!.body);
      expect(envelope).toEqual({
        id: expect.stringMatching(/^evt_/),
        event: "webhook.test",
        timestamp: new Date(fx.s.now()).toISOString(),
        data: { webhook_id: ok.id, message: expect.any(String) },
      });
      expect(sent!.headers["x-og-event"]).toBe("webhook.test");
      expect(await verifyOctokit(SECRET, sent!.body, sent!.headers["x-og-signature"]!)).toBe(true);

      // Only the one named.
      const one = await (await fx.s.api("/api/webhooks/test", { key: apiKey, json: { webhook_id: ok.id } })).json();
      expect(one.results.map((x: any) => x.webhook_id)).toEqual([ok.id]);

      // Failing tests are neither retried nor counted toward disabling.
      for (let i = 0; i < 6; i++) await fx.s.api("/api/webhooks/test", { key: apiKey, json: { webhook_id: fail.id } });
      expect(fx.r.at("/t-fail")).toHaveLength(7);
      await fx.s.advance(86400 * 2);
      expect(fx.r.at("/t-fail")).toHaveLength(7);
      expect((await (await fx.s.api(`/api/webhooks/${fail.id}`, { key: apiKey })).json()).status).toBe("enabled");

      const log = (await (await fx.s.api(`/api/webhooks/${fail.id}/deliveries`, { key: apiKey })).json()) as { data: any[] };
      expect(log.data).toHaveLength(7);
      expect(log.data[0]).toEqual({
        id: expect.stringMatching(/^dlv_/),
        event_id: expect.stringMatching(/^evt_/),
        event_type: "webhook.test",
        attempt: 1,
        delivered: false,
        status_code: 500,
        error: "HTTP 500",
        duration_ms: expect.any(Number),
        next_attempt_at: null,
        created_at: expect.any(String),
      });
      expect(new Set(log.data.map((d) => d.id)).size).toBe(7);
    });

    test("the log shows event id and type, attempt number, status or error, duration and next_attempt_at", async () => {
      const { apiKey } = await fastAccount();
      fx.r.respond({ status: 503 }, "/log");
      const wh = await createWebhook(apiKey, { url: fx.r.url("/log"), events: ["image.generated"], secret: SECRET });
      await generate(apiKey);
      const [first] = await fx.r.waitForCount(1, "/log");
      const t0 = fx.s.now();
      const eventId = JSON.parse(first!.body).id;

      // The receiver sees the request before the sender has read the answer and logged the attempt.
      const deliveries = async () => (await (await fx.s.api(`/api/webhooks/${wh.id}/deliveries`, { key: apiKey })).json()).data as unknown[];
      let log = await deliveries();
      await waitFor(async () => (log = await deliveries()).length === 1, "the first attempt to be logged");
      expect(log).toEqual([
        {
          id: first!.headers["x-og-delivery"],
          event_id: eventId,
          event_type: "image.generated",
          attempt: 1,
          delivered: false,
          status_code: 503,
          error: "HTTP 503",
          duration_ms: expect.any(Number),
          next_attempt_at: new Date(t0 + 60_000).toISOString(),
          created_at: new Date(t0).toISOString(),
        },
      ]);

      fx.r.respond({ status: 200 }, "/log");
      await fx.s.advance(60);
      await fx.r.waitForCount(2, "/log");
      await waitFor(async () => (log = await deliveries()).length === 2, "the second attempt to be logged");
      expect(log[0]).toMatchObject({ event_id: eventId, attempt: 2, delivered: true, status_code: 200, error: null, next_attempt_at: null });

      // No response at all: the error says why, the status code is null.
      const refused = await createWebhook(apiKey, { url: "http://127.0.0.1:1/refused", events: ["image.generated"], secret: SECRET });
      await generate(apiKey);
      await fx.s.advance(0);
      const refusedLog = (await (await fx.s.api(`/api/webhooks/${refused.id}/deliveries`, { key: apiKey })).json()).data;
      expect(refusedLog[0]).toMatchObject({ attempt: 1, delivered: false, status_code: null, error: expect.stringContaining("network_error") });
    });

    test("the log keeps the last 100 attempts", async () => {
      const { apiKey } = await fastAccount();
      const wh = await createWebhook(apiKey, { url: fx.r.url("/many"), events: ["usage.reset"], secret: SECRET });
      const ids: string[] = [];
      for (let i = 0; i < 130; i++) {
        await fx.s.api("/api/webhooks/test", { key: apiKey, json: { webhook_id: wh.id } });
        ids.push(fx.r.at("/many")[i]!.headers["x-og-delivery"]!);
      }
      const log = (await (await fx.s.api(`/api/webhooks/${wh.id}/deliveries`, { key: apiKey })).json()).data as any[];
      expect(log).toHaveLength(100);
      expect(log.map((d) => d.id)).toEqual(ids.slice(-100).reverse());
    });

    test("a redirect is a failure, not followed", async () => {
      const { apiKey } = await fastAccount();
      fx.r.respond({ status: 302, headers: { location: fx.r.url("/redirect-target") } }, "/redirect");
      const wh = await createWebhook(apiKey, { url: fx.r.url("/redirect"), events: ["image.generated"], secret: SECRET });
      await generate(apiKey);
      await fx.r.waitForCount(1, "/redirect");
      await fx.s.advance(0);
      const log = (await (await fx.s.api(`/api/webhooks/${wh.id}/deliveries`, { key: apiKey })).json()).data;
      expect(log[0]).toMatchObject({ delivered: false, status_code: 302, error: expect.stringContaining("redirect") });
      expect(fx.r.at("/redirect-target")).toHaveLength(0);
    });
  });

  describe("address guard (blocked ranges unless OG_ALLOW_PRIVATE_NETWORKS)", () => {
    test("private, loopback, link-local, CGNAT and metadata URLs are refused when the flag is off", async () => {
      const strict = await startInProcessApp();
      try {
        const { apiKey } = await strict.createAccount({ plan: "custom", quota: 1000, requests_per_second: 1000 });
        const urls = [
          fx.r.url("/never"),
          "http://localhost:8080/hook",
          "http://10.1.2.3/hook",
          "http://172.16.0.1/hook",
          "http://192.168.1.1/hook",
          "http://169.254.169.254/latest/meta-data",
          "http://100.64.0.1/hook",
          "http://[::1]/hook",
          "http://[fd00::1]/hook",
          "http://[::ffff:127.0.0.1]/hook",
          "http://0.0.0.0/hook",
        ];
        for (const url of urls) {
          const res = await strict.api("/api/webhooks", { key: apiKey, json: { url, events: ["usage.reset"], secret: SECRET } });
          expect({ url, status: res.status }).toEqual({ url, status: 400 });
          const body = await res.json();
          expect(body.code).toBe("VALIDATION_ERROR");
          expect(body.details.map((d: any) => d.field)).toEqual(["url"]);
        }
        // The same URL is fine with the flag on (this suite's main service).
        const { apiKey: key2 } = await fastAccount();
        await createWebhook(key2, { url: fx.r.url("/allowed"), events: ["usage.reset"], secret: SECRET });
        expect(fx.r.at("/never")).toHaveLength(0);

        // A blocked address is reported together with every other bad field, in one answer.
        const res = await strict.api("/api/webhooks", { key: apiKey, json: { url: "http://10.0.0.1/hook", events: ["nope"], secret: "short", colour: "red" } });
        expect(res.status).toBe(400);
        expect(((await res.json()).details as { field: string }[]).map((d) => d.field).sort()).toEqual(["colour", "events.0", "secret", "url"]);
      } finally {
        await strict.stop();
      }
    });
  });
});

/**
 * Webhook secrets work with the ecosystem's verifiers as the user holds them: a `whsec_<base64>`
 * secret (what the dashboard generates) verifies with `standardwebhooks` and `svix` passed the
 * secret exactly as typed; any other secret keys the Standard Webhooks signature with its raw
 * bytes; X-OG-Signature is always the hex HMAC keyed with the whole secret string.
 */
describe("webhook secrets", () => {
  let s: InProcessApp;
  let r: TestReceiver;
  let apiKey: string;
  beforeAll(async () => {
    s = await startInProcessApp({ OG_ALLOW_PRIVATE_NETWORKS: "1" });
    r = await startReceiver();
    ({ apiKey } = await s.createAccount({ plan: "pro" }));
  });
  afterAll(async () => {
    await s.stop();
    await r.stop();
  });

  /** Registers a webhook with `secret`, sends the test event, returns the delivery as received. */
  async function deliverWith(secret: string, path: string) {
    const created = await s.api("/api/webhooks", { key: apiKey, json: { url: r.url(path), events: ["usage.warning"], secret } });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const sent = await s.api("/api/webhooks/test", { key: apiKey, json: { webhook_id: id } });
    expect(sent.status).toBe(200);
    const [delivery] = await r.waitForCount(1, path);
    return delivery!;
  }

  const ogSignature = (secret: string, body: string) => "sha256=" + createHmac("sha256", secret).update(body).digest("hex");

  test("a whsec_ secret as generated by the dashboard verifies with standardwebhooks and svix as typed", async () => {
    for (const size of [24, 32]) {
      const secret = "whsec_" + randomBytes(size).toString("base64");
      const delivery = await deliverWith(secret, `/whsec-${size}`);
      expect(new StandardWebhook(secret).verify(delivery.body, delivery.headers)).toMatchObject({ event: "webhook.test" });
      // svix verifies by not throwing (it returns nothing).
      expect(() => new SvixWebhook(secret).verify(delivery.body, delivery.headers)).not.toThrow();
      expect(() => new SvixWebhook("whsec_" + randomBytes(size).toString("base64")).verify(delivery.body, delivery.headers)).toThrow();
      // The spec's own header is keyed with the whole string, prefix included.
      expect(delivery.headers["x-og-signature"]).toBe(ogSignature(secret, delivery.body));
      // A different secret does not verify: the check is real.
      expect(() => new StandardWebhook("whsec_" + randomBytes(size).toString("base64")).verify(delivery.body, delivery.headers)).toThrow();
    }
  });

  test("any other secret keys the Standard Webhooks signature with its raw bytes (libraries take it base64-encoded)", async () => {
    for (const [secret, path] of [
      ["plain-secret-0123456789", "/plain"],
      // Looks like the convention but is not base64 after the prefix: an ordinary secret.
      ["whsec_not*base64*at-all-0123", "/not-base64"],
    ] as const) {
      const delivery = await deliverWith(secret, path);
      const encoded = Buffer.from(secret, "utf8").toString("base64");
      expect(new StandardWebhook(encoded).verify(delivery.body, delivery.headers)).toMatchObject({ event: "webhook.test" });
      expect(() => new SvixWebhook(encoded).verify(delivery.body, delivery.headers)).not.toThrow();
      expect(delivery.headers["x-og-signature"]).toBe(ogSignature(secret, delivery.body));
    }
  });
});

/**
 * The retry policy on the test clock (docs/events.md, Retry schedule): jitter of ±20 % around
 * the nominal delays, and a receiver's Retry-After honoured as a floor of at most 24 h, never
 * adding retries. The jitter's random source is pinned per test (0 = the earliest edge of the
 * band, 1 = the latest, 0.5 = exactly nominal), so every retry time is asserted to the second:
 * nothing a second early, the retry on the dot.
 */
describe("the retry policy", () => {
  let s: InProcessApp;
  let r: TestReceiver;
  /** What the service's jitter source returns right now. */
  let draw = 0.5;
  beforeAll(async () => {
    s = await startInProcessApp({ OG_ALLOW_PRIVATE_NETWORKS: "1" }, { retryRandom: () => draw });
    r = await startReceiver();
  });
  beforeEach(() => {
    draw = 0.5;
  });
  afterAll(async () => {
    await s.stop();
    await r.stop();
  });

  const SECRET = "retry-policy-secret-0123456789";
  const iso = (ms: number) => new Date(ms).toISOString();

  /**
   * A webhook on `path` whose receiver answers `behaviour`, and one event: resolves once the
   * first attempt has arrived, with the clock time of that attempt (the test clock stands still).
   */
  async function failingDelivery(path: string, behaviour: Behaviour) {
    const { apiKey } = await s.createAccount({ plan: "custom", quota: 1000, requests_per_second: 1000 });
    r.respond(behaviour, path);
    const created = await s.api("/api/webhooks", { key: apiKey, json: { url: r.url(path), events: ["image.generated"], secret: SECRET } });
    expect(created.status).toBe(201);
    const webhookId = ((await created.json()) as { id: string }).id;
    const t0 = s.now();
    const res = await s.api("/api/generate", { key: apiKey, json: eventBody() });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    await r.waitForCount(1, path);
    return { apiKey, webhookId, t0 };
  }

  /** The delivery log, oldest attempt first. */
  async function log(apiKey: string, webhookId: string) {
    const res = await s.api(`/api/webhooks/${webhookId}/deliveries`, { key: apiKey });
    expect(res.status).toBe(200);
    return ((await res.json()) as { data: { attempt: number; status_code: number | null; next_attempt_at: string | null }[] }).data.reverse();
  }

  /**
   * The next attempt to `path` comes `seconds` after the previous one: nothing at `seconds − 1`,
   * there by `seconds`. `before` is how many attempts `path` has had so far.
   */
  async function expectRetryAfter(path: string, seconds: number, before: number) {
    await s.advance(seconds - 1);
    expect({ path, second: seconds - 1, attempts: r.at(path).length }).toEqual({ path, second: seconds - 1, attempts: before });
    await s.advance(1);
    await r.waitForCount(before + 1, path);
    expect({ path, second: seconds, attempts: r.at(path).length }).toEqual({ path, second: seconds, attempts: before + 1 });
  }

  /** Runs the remaining schedule `delays` (seconds between attempts) and checks the webhook is then disabled for good. */
  async function expectScheduleThenDisabled(path: string, delays: number[], d: { apiKey: string; webhookId: string; t0: number }) {
    for (const [i, delay] of delays.entries()) await expectRetryAfter(path, delay, i + 1);
    const webhook = (await (await s.api(`/api/webhooks/${d.webhookId}`, { key: d.apiKey })).json()) as { status: string; disabled_reason: string };
    expect(webhook.status).toBe("disabled");
    expect(webhook.disabled_reason).toContain("6 failed attempts");
    await s.advance(86400 * 3);
    expect(r.at(path)).toHaveLength(6);
    // The log names each next attempt at the time it then happened.
    const expected: (string | null)[] = [];
    let at = d.t0;
    for (const delay of delays) {
      at += delay * 1000;
      expected.push(iso(at));
    }
    expected.push(null);
    expect((await log(d.apiKey, d.webhookId)).map((a) => a.next_attempt_at)).toEqual(expected);
  }

  test("jitter at its lower edge (random 0): every retry at 80 % of its nominal delay — the first not at 47 s, at 48 s", async () => {
    draw = 0;
    const d = await failingDelivery("/early", { status: 500 });
    await expectScheduleThenDisabled("/early", [48, 240, 1440, 5760, 69120], d);
  });

  test("jitter at its upper edge (random 1): every retry at 120 % — the first not at 71 s, at 72 s", async () => {
    draw = 1;
    const d = await failingDelivery("/late", { status: 500 });
    await expectScheduleThenDisabled("/late", [72, 360, 2160, 8640, 103680], d);
  });

  test("503 with Retry-After: 600 → no retry at 60 s, the retry at 600 s; it holds for the next one too", async () => {
    const d = await failingDelivery("/busy", { status: 503, headers: { "retry-after": "600" } });
    await s.advance(60);
    expect(r.at("/busy")).toHaveLength(1);
    await expectRetryAfter("/busy", 600 - 60, 1);
    // The 2nd retry: nominal 5 min, but the receiver still asks for 10.
    r.respond({ status: 200 }, "/busy");
    await expectRetryAfter("/busy", 600, 2);
    await s.advance(86400 * 3); // delivered: the chain ends
    expect(r.at("/busy")).toHaveLength(3);
    expect((await log(d.apiKey, d.webhookId)).map((a) => [a.attempt, a.status_code, a.next_attempt_at])).toEqual([
      [1, 503, iso(d.t0 + 600_000)],
      [2, 503, iso(d.t0 + 1_200_000)],
      [3, 200, null],
    ]);
  });

  test("Retry-After as an HTTP date: the retry lands on that date; a date already past is ignored", async () => {
    const dueAt = Date.parse(new Date(s.now() + 15 * 60_000).toUTCString()); // HTTP dates have whole seconds
    const d = await failingDelivery("/dated", { status: 429, headers: { "retry-after": new Date(dueAt).toUTCString() } });
    await expectRetryAfter("/dated", (dueAt - d.t0) / 1000, 1);
    // The same date again is now in the past: the 2nd retry keeps its nominal 5 min.
    await expectRetryAfter("/dated", 300, 2);
    r.respond({ status: 204 }, "/dated");
    await expectRetryAfter("/dated", 1800, 3);
    expect((await log(d.apiKey, d.webhookId)).map((a) => a.next_attempt_at)).toEqual([iso(dueAt), iso(dueAt + 300_000), iso(dueAt + 2_100_000), null]);
  });

  test("a Retry-After of 3 days counts for 24 h at most", async () => {
    const d = await failingDelivery("/parked", { status: 503, headers: { "retry-after": String(3 * 86400) } });
    r.respond({ status: 200 }, "/parked");
    await expectRetryAfter("/parked", 86400, 1);
    expect((await log(d.apiKey, d.webhookId))[0]!.next_attempt_at).toBe(iso(d.t0 + 86_400_000));
  });

  test("a Retry-After shorter than the schedule, zero or malformed brings no retry forward", async () => {
    const d = await failingDelivery("/eager", { status: 503, headers: { "retry-after": "1" } });
    await expectRetryAfter("/eager", 60, 1);
    r.respond({ status: 503, headers: { "retry-after": "0" } }, "/eager");
    await expectRetryAfter("/eager", 300, 2);
    r.respond({ status: 503, headers: { "retry-after": "soon" } }, "/eager");
    await expectRetryAfter("/eager", 1800, 3);
    r.respond({ status: 200 }, "/eager");
    await expectRetryAfter("/eager", 7200, 4);
    expect((await log(d.apiKey, d.webhookId)).map((a) => a.status_code)).toEqual([503, 503, 503, 503, 200]);
  });

  test("with Retry-After on every answer the schedule keeps its length: 5 retries, then disabled", async () => {
    const d = await failingDelivery("/throttled", { status: 429, headers: { "retry-after": "3600" } });
    // max(nominal, 1 h): 1 h, 1 h, 1 h, then 2 h and 24 h as scheduled.
    await expectScheduleThenDisabled("/throttled", [3600, 3600, 3600, 7200, 86400], d);
  });
});

/**
 * A webhook deleted while its test send is in flight: the call still answers 200 with every
 * webhook's result (the deleted one's attempt is simply not logged — its log went with it),
 * through the API with and without `webhook_id` and through the dashboard's send-test.
 * The receiver holds its answer until the DELETE has been answered, so no timing is involved.
 */
describe("test sends", () => {
  const fx = useAppWithReceiver();

  const SECRET = "test-send-secret-0123456789";

  async function createWebhook(key: string, path: string): Promise<{ id: string }> {
    const res = await fx.s.api("/api/webhooks", { key, json: { url: fx.r.url(path), events: ["image.generated"], secret: SECRET } });
    expect(res.status).toBe(201);
    return (await res.json()) as { id: string };
  }

  async function deleteWhileHung(key: string, id: string, path: string, sent: number) {
    await fx.r.waitForCount(sent, path); // the test attempt is at the receiver, waiting for its answer
    expect(fx.r.pending).toBeGreaterThan(0);
    const deleted = await fx.s.api(`/api/webhooks/${id}`, { key, method: "DELETE" });
    expect(deleted.status).toBe(200);
    fx.r.releaseHung();
  }

  test("deleting one webhook mid-send: 200 with every result, the others' attempts logged", async () => {
    const { apiKey } = await fx.s.createAccount({ plan: "pro" });
    fx.r.respond({ hang: true }, "/slow");
    fx.r.respond({ status: 204 }, "/fast");
    const slow = await createWebhook(apiKey, "/slow");
    const fast = await createWebhook(apiKey, "/fast");

    const call = fx.s.api("/api/webhooks/test", { key: apiKey, json: {} });
    await deleteWhileHung(apiKey, slow.id, "/slow", 1);
    const res = await call;
    expect(res.status).toBe(200);
    const { results } = (await res.json()) as { results: { webhook_id: string; delivered: boolean; status_code: number | null }[] };
    expect(results.map((x) => [x.webhook_id, x.delivered, x.status_code])).toEqual([
      [slow.id, true, 200],
      [fast.id, true, 204],
    ]);

    const log = (await (await fx.s.api(`/api/webhooks/${fast.id}/deliveries`, { key: apiKey })).json()) as { data: { event_type: string }[] };
    expect(log.data.map((d) => d.event_type)).toEqual(["webhook.test"]);
    expect((await fx.s.api(`/api/webhooks/${slow.id}/deliveries`, { key: apiKey })).status).toBe(404);
  });

  test("deleting the named webhook mid-send: 200 with its result", async () => {
    const { apiKey } = await fx.s.createAccount({ plan: "pro" });
    fx.r.respond({ hang: true }, "/named");
    const webhook = await createWebhook(apiKey, "/named");
    const call = fx.s.api("/api/webhooks/test", { key: apiKey, json: { webhook_id: webhook.id } });
    await deleteWhileHung(apiKey, webhook.id, "/named", 1);
    const res = await call;
    expect(res.status).toBe(200);
    expect(((await res.json()) as { results: { webhook_id: string }[] }).results.map((x) => x.webhook_id)).toEqual([webhook.id]);
  });

  test("the dashboard's send-test: 200 with the result when the webhook is deleted meanwhile", async () => {
    const { apiKey } = await fx.s.createAccount({ plan: "pro" });
    fx.r.respond({ hang: true }, "/dash");
    const webhook = await createWebhook(apiKey, "/dash");
    const origin = new URL(fx.s.url).origin;
    const signIn = await fx.s.fetch(`${fx.s.url}/dashboard/api/session`, {
      method: "POST",
      headers: { "content-type": "application/json", origin },
      body: JSON.stringify({ api_key: apiKey }),
    });
    expect(signIn.status).toBe(200);
    const cookie = signIn.headers.get("set-cookie")!.split(";")[0]!;
    const call = fx.s.fetch(`${fx.s.url}/dashboard/api/webhooks/${webhook.id}/test`, { method: "POST", headers: { origin, cookie } });
    await deleteWhileHung(apiKey, webhook.id, "/dash", 1);
    const res = await call;
    expect(res.status).toBe(200);
    expect((await res.json()) as { webhook_id: string; delivered: boolean }).toMatchObject({ webhook_id: webhook.id, delivered: true });
  });
});

/**
 * Retries and disabling (docs/events.md): the whole schedule on the test clock —
 * nothing a second early, the retry on the dot — then disabled, then silent, then re-enabled.
 */
describe("retries", () => {
  const fx = useAppWithReceiver();

  const SECRET = "retry-secret-0123456789abcdef";
  const SCHEDULE = [60, 300, 1800, 7200, 86400];

  async function generate(key: string) {
    const res = await fx.s.api("/api/generate", { key, json: eventBody() });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    return res.headers.get("x-request-id")!;
  }

  test("1 min, 5 min, 30 min, 2 h, 24 h; the 5th retry failing disables; re-enabling starts fresh", async () => {
    const { apiKey } = await fx.s.createAccount({ plan: "custom", quota: 1000, requests_per_second: 1000 });
    fx.r.respond({ status: 500 }, "/down");
    const create = await fx.s.api("/api/webhooks", { key: apiKey, json: { url: fx.r.url("/down"), events: ["image.generated"], secret: SECRET } });
    const wh = await create.json();
    const other = await (
      await fx.s.api("/api/webhooks", { key: apiKey, json: { url: fx.r.url("/healthy"), events: ["image.generated"], secret: SECRET } })
    ).json();

    const requestId = await generate(apiKey);
    await fx.r.waitForCount(1, "/down"); // the first attempt, at once
    const t0 = fx.s.now();

    for (const [i, delay] of SCHEDULE.entries()) {
      await fx.s.advance(delay - 1);
      expect({ retry: i + 1, attempts: fx.r.at("/down").length }).toEqual({ retry: i + 1, attempts: i + 1 });
      await fx.s.advance(1);
      await fx.r.waitForCount(i + 2, "/down");
      expect(fx.r.at("/down")).toHaveLength(i + 2);
    }

    // Six attempts of one event: identical body and event id, a new delivery id each time.
    const attempts = fx.r.at("/down");
    expect(new Set(attempts.map((a) => a.body)).size).toBe(1);
    expect(new Set(attempts.map((a) => a.headers["webhook-id"])).size).toBe(1);
    expect(new Set(attempts.map((a) => a.headers["x-og-delivery"])).size).toBe(6);
    expect(JSON.parse(attempts[0]!.body).data.request_id).toBe(requestId);

    const disabled = await (await fx.s.api(`/api/webhooks/${wh.id}`, { key: apiKey })).json();
    expect(disabled.status).toBe("disabled");
    expect(disabled.disabled_reason).toContain("6 failed attempts");
    expect(disabled.disabled_reason).toContain("HTTP 500");
    // The other webhook of the account is unaffected.
    expect((await (await fx.s.api(`/api/webhooks/${other.id}`, { key: apiKey })).json()).status).toBe("enabled");

    // The log: attempts 6..1, each with the time of the next one.
    const log = (await (await fx.s.api(`/api/webhooks/${wh.id}/deliveries`, { key: apiKey })).json()).data as any[];
    expect(log.map((d) => d.attempt)).toEqual([6, 5, 4, 3, 2, 1]);
    let due = t0;
    const expectedNext = SCHEDULE.map((delay) => (due += delay * 1000));
    expect(log.map((d) => d.next_attempt_at).reverse()).toEqual([...expectedNext.map((ms) => new Date(ms).toISOString()), null]);
    expect(log.every((d) => d.status_code === 500 && d.delivered === false)).toBe(true);

    // Disabled: new events are not queued for it, and nothing more arrives however long we wait.
    fx.r.respond({ status: 200 }, "/down");
    await generate(apiKey);
    await fx.r.waitForCount(2, "/healthy");
    await fx.s.advance(86400 * 3);
    expect(fx.r.at("/down")).toHaveLength(6);

    // Re-enable: fresh start — the dropped event stays dropped, new events are delivered at once.
    const put = await fx.s.api(`/api/webhooks/${wh.id}`, {
      key: apiKey,
      method: "PUT",
      json: { url: fx.r.url("/down"), events: ["image.generated"], enabled: true },
    });
    expect(put.status).toBe(200);
    expect(await put.json()).toMatchObject({ status: "enabled", disabled_reason: null });
    const fresh = await generate(apiKey);
    await fx.r.waitForCount(7, "/down");
    expect(JSON.parse(fx.r.at("/down")[6]!.body).data.request_id).toBe(fresh);
    await fx.s.advance(86400);
    expect(fx.r.at("/down")).toHaveLength(7);
  });

  test("a success on a retry ends the chain; slow (>5 s) answers count as failures", async () => {
    const { apiKey } = await fx.s.createAccount({ plan: "custom", quota: 1000, requests_per_second: 1000 });
    // No answer at all: past the 5 s whatever the load (an answer due at 5.5 s could still beat a
    // delivery process that the machine left waiting).
    fx.r.respond({ hang: true }, "/slow");
    const wh = await (await fx.s.api("/api/webhooks", { key: apiKey, json: { url: fx.r.url("/slow"), events: ["image.generated"], secret: SECRET } })).json();
    await generate(apiKey);
    await fx.r.waitForCount(1, "/slow");
    await fx.s.advance(0); // waits for the attempt in flight to time out
    const log = (await (await fx.s.api(`/api/webhooks/${wh.id}/deliveries`, { key: apiKey })).json()).data as any[];
    expect(log[0]).toMatchObject({ attempt: 1, delivered: false, status_code: null, error: expect.stringContaining("timeout") });
    expect(log[0].duration_ms).toBeGreaterThanOrEqual(4_900);

    fx.r.releaseHung(); // the answer comes at last, to a delivery that gave up on it
    fx.r.respond({ status: 200 }, "/slow");
    await fx.s.advance(60);
    await fx.r.waitForCount(2, "/slow");
    await fx.s.advance(86400 * 2);
    expect(fx.r.at("/slow")).toHaveLength(2);
    const after = (await (await fx.s.api(`/api/webhooks/${wh.id}/deliveries`, { key: apiKey })).json()).data as any[];
    expect(after[0]).toMatchObject({ attempt: 2, delivered: true, status_code: 200, next_attempt_at: null });
  }, 20_000);

  test("one slow receiver does not hold back deliveries to the others", async () => {
    const { apiKey } = await fx.s.createAccount({ plan: "custom", quota: 1000, requests_per_second: 1000 });
    fx.r.respond({ hang: true }, "/stuck");
    await fx.s.api("/api/webhooks", { key: apiKey, json: { url: fx.r.url("/stuck"), events: ["image.generated"], secret: SECRET } });
    await fx.s.api("/api/webhooks", { key: apiKey, json: { url: fx.r.url("/quick"), events: ["image.generated"], secret: SECRET } });
    for (let i = 0; i < 20; i++) await generate(apiKey);
    // All 20 reach the quick receiver while the stuck one holds its (bounded) share of slots.
    // The stuck receiver never answers until released: held back, these would never arrive, so the
    // deadline only needs to be generous.
    await fx.r.waitForCount(20, "/quick");
    expect(fx.r.at("/stuck").length).toBeLessThanOrEqual(8);
    fx.r.releaseHung();
    fx.r.respond({ status: 200 }, "/stuck");
    await fx.r.waitForCount(20, "/stuck");
  });
});

/**
 * Usage events over webhooks (docs/events.md): the free plan's thresholds, the
 * monthly `usage.reset` at the boundary, and its catch-up after a restart — each exactly once.
 */
describe("usage events", () => {
  const SECRET = "usage-secret-0123456789abcdef";
  const USAGE_EVENTS = ["usage.warning", "usage.limit_reached", "usage.reset"];

  let r: TestReceiver;
  beforeAll(async () => {
    r = await startReceiver();
  });
  afterAll(() => r.stop());

  async function clockTo(s: InProcessApp, iso: string) {
    const delta = (Date.parse(iso) - s.now()) / 1000;
    if (delta < 0) throw new Error(`clock is already past ${iso}`);
    await s.advance(delta);
  }

  async function webhook(s: InProcessApp, key: string, path: string, events = USAGE_EVENTS) {
    const res = await s.api("/api/webhooks", { key, json: { url: r.url(path), events, secret: SECRET } });
    expect(res.status).toBe(201);
    return (await res.json()).id as string;
  }

  const year = new Date().getUTCFullYear() + 1;

  describe("thresholds on the free plan (25 images, 1 request per second)", () => {
    let s: InProcessApp;
    beforeAll(async () => {
      s = await startInProcessApp({ OG_ALLOW_PRIVATE_NETWORKS: "1" });
    });
    afterAll(() => s.stop());

    test("20th image → 80 %, 23rd → 90 %, 24th → 95 %, 25th → limit_reached; exactly one event each", async () => {
      await clockTo(s, `${year}-03-10T12:00:00.000Z`);
      const { apiKey } = await s.createAccount({ plan: "free" });
      await webhook(s, apiKey, "/free");
      const expected: Record<number, [string, number | null]> = {
        20: ["usage.warning", 80],
        23: ["usage.warning", 90],
        24: ["usage.warning", 95],
        25: ["usage.limit_reached", null],
      };
      const seen: [string, number | null][] = [];

      for (let n = 1; n <= 25; n++) {
        await s.advance(1); // stay under 1 request per second
        const res = await s.api("/api/generate", { key: apiKey, json: eventBody() });
        expect(res.status).toBe(200);
        await res.arrayBuffer();
        if (expected[n]) {
          seen.push(expected[n]!);
          await r.waitForCount(seen.length, "/free");
        }
        await s.advance(0); // anything else owed would be delivered by now
        expect({ image: n, events: r.events("/free").map((e) => [e.event, e.data.percentage ?? null]) }).toEqual({ image: n, events: seen });
      }

      await s.advance(1);
      const over = await s.api("/api/generate", { key: apiKey, json: eventBody() });
      expect(over.status).toBe(429);
      expect((await over.json()).code).toBe("QUOTA_EXCEEDED");
      await s.advance(3600);
      const events = r.events("/free");
      expect(events).toHaveLength(4);

      for (const [i, percentage] of [80, 90, 95].entries()) {
        expect(events[i]!.data).toEqual({ current_usage: [20, 23, 24][i], quota: 25, percentage, plan: "free" });
      }
      expect(events[3]!.data).toEqual({ current_usage: 25, quota: 25, plan: "free", resets_at: `${year}-04-01T00:00:00.000Z` });
      for (const e of events) {
        expect(e.id).toMatch(/^evt_/);
        expect(Number.isNaN(Date.parse(e.timestamp))).toBe(false);
        expect(Object.values(e.data).every((v) => typeof v === "string" || Number.isInteger(v))).toBe(true);
      }
    });
  });

  describe("usage.reset at the month boundary", () => {
    let s: InProcessApp;
    beforeAll(async () => {
      s = await startInProcessApp({ OG_ALLOW_PRIVATE_NETWORKS: "1" });
    });
    afterAll(() => s.stop());

    test("at 00:00 UTC on the 1st, once per account, with previous_usage, new_quota and plan", async () => {
      await clockTo(s, `${year}-05-20T08:00:00.000Z`);
      const a = await s.createAccount({ plan: "custom", quota: 10, requests_per_second: 100 });
      const b = await s.createAccount({ plan: "starter" });
      await webhook(s, a.apiKey, "/reset-a", ["usage.reset"]);
      await webhook(s, b.apiKey, "/reset-b", ["usage.reset", "image.generated"]);
      for (let i = 0; i < 3; i++) expect((await s.api("/api/generate", { key: a.apiKey, json: eventBody() })).status).toBe(200);

      await clockTo(s, `${year}-05-31T23:59:59.000Z`);
      expect(r.at("/reset-a")).toHaveLength(0);
      await s.advance(1);
      const [resetA] = await r.waitForCount(1, "/reset-a");
      const [resetB] = await r.waitForCount(1, "/reset-b");
      const eA = JSON.parse(resetA!.body);
      expect(eA).toMatchObject({ event: "usage.reset", timestamp: `${year}-06-01T00:00:00.000Z`, data: { previous_usage: 3, new_quota: 10, plan: "custom" } });
      expect(Object.keys(eA.data).sort()).toEqual(["new_quota", "plan", "previous_usage"]);
      expect(JSON.parse(resetB!.body).data).toEqual({ previous_usage: 0, new_quota: 500, plan: "starter" });

      // Never twice for one month, however the clock moves on.
      await s.advance(1);
      await s.advance(86400 * 10);
      expect(r.at("/reset-a")).toHaveLength(1);
      expect(r.at("/reset-b")).toHaveLength(1);
      expect((await (await s.api("/api/user/usage", { key: a.apiKey })).json()).used).toBe(0);

      // The next month has its own.
      await clockTo(s, `${year}-07-01T00:00:00.000Z`);
      await r.waitForCount(2, "/reset-a");
      expect(JSON.parse(r.at("/reset-a")[1]!.body).data).toEqual({ previous_usage: 0, new_quota: 10, plan: "custom" });
    });

    test("an account created during the month gets no reset for it", async () => {
      await clockTo(s, `${year}-07-15T00:00:00.000Z`);
      const c = await s.createAccount({ plan: "pro" });
      await webhook(s, c.apiKey, "/reset-new", ["usage.reset"]);
      await s.advance(86400);
      expect(r.at("/reset-new")).toHaveLength(0);
      await clockTo(s, `${year}-08-01T00:00:00.000Z`);
      await r.waitForCount(1, "/reset-new");
    });
  });

  describe("usage.reset after a restart across the boundary", () => {
    test("caught up at start-up, exactly once, also after a second restart", async () => {
      const dir = mkdtempSync(join(tmpdir(), "ogsmith-reset-"));
      const dbPath = join(dir, "ogsmith.db");
      try {
        const env = { OG_DB_PATH: dbPath, OG_ALLOW_PRIVATE_NETWORKS: "1" };
        const s1 = await startInProcessApp(env);
        const { accountId, apiKey } = await s1.createAccount({ plan: "custom", quota: 10, requests_per_second: 100 });
        await webhook(s1, apiKey, "/restart", ["usage.reset"]);
        for (let i = 0; i < 4; i++) expect((await s1.api("/api/generate", { key: apiKey, json: eventBody() })).status).toBe(200);
        await s1.stop();

        // While the process is down, the month turns: the test clock of a new process starts at
        // the real time, so the month that just ended is simulated by moving the stored usage and
        // the account's creation one month back.
        const now = new Date();
        const thisMonth = now.toISOString().slice(0, 7);
        const lastMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1)).toISOString().slice(0, 7);
        await execStoreSql(dbPath, "UPDATE usage_periods SET period = ? WHERE account_id = ? AND period = ?", [lastMonth, accountId, thisMonth]);
        await execStoreSql(dbPath, "UPDATE accounts SET created_at = created_at - ? WHERE id = ?", [40 * 86_400_000, accountId]);
        expect(r.at("/restart")).toHaveLength(0);

        const s2 = await startInProcessApp(env);
        const [reset] = await r.waitForCount(1, "/restart");
        expect(JSON.parse(reset!.body)).toMatchObject({ event: "usage.reset", data: { previous_usage: 4, new_quota: 10, plan: "custom" } });
        await s2.advance(5);
        await s2.stop();

        const s3 = await startInProcessApp(env);
        await s3.advance(60);
        expect(r.at("/restart")).toHaveLength(1);
        await s3.stop();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});

/** A newcomer's paper cut: a refusal names the setting that would allow it. */
describe("messages that say how to proceed", () => {
  let s: InProcessApp;
  let apiKey: string;
  beforeAll(async () => {
    s = await startInProcessApp();
    ({ apiKey } = await s.createAccount({ plan: "pro" }));
  });
  afterAll(() => s.stop());

  test("a localhost or private URL is refused with a message that names OG_ALLOW_PRIVATE_NETWORKS", async () => {
    const hook = await s.api("/api/webhooks", {
      key: apiKey,
      json: { url: "http://localhost:8080/hook", events: ["usage.reset"], secret: "0123456789abcdef" },
    });
    expect(hook.status).toBe(400);
    const hookBody = (await hook.json()) as { details: { field: string; message: string }[] };
    expect(hookBody.details).toHaveLength(1);
    expect(hookBody.details[0]!.field).toBe("url");
    expect(hookBody.details[0]!.message).toContain("OG_ALLOW_PRIVATE_NETWORKS=true");

    const image = await s.api("/api/generate", { key: apiKey, json: { title: "x", logo_url: "http://192.168.1.1/logo.png" } });
    expect(image.status).toBe(422);
    const imageBody = (await image.json()) as { details: { field: string; message: string; reason: string }[] };
    expect(imageBody.details[0]).toMatchObject({ field: "logo_url", reason: "blocked_address" });
    expect(imageBody.details[0]!.message).toContain("OG_ALLOW_PRIVATE_NETWORKS=true");

    // The metadata address stays blocked even with the flag: no hint that would not work.
    const metadata = await s.api("/api/webhooks", {
      key: apiKey,
      json: { url: "http://169.254.169.254/latest", events: ["usage.reset"], secret: "0123456789abcdef" },
    });
    expect(metadata.status).toBe(400);
    expect(JSON.stringify(await metadata.json())).not.toContain("OG_ALLOW_PRIVATE_NETWORKS");
  });
});

/**
 * A webhook disabled after its retry schedule (docs/events.md) emails its owner: which
 * endpoint, why, and how to re-enable it — and nothing secret.
 */
describe("the email when a webhook is disabled", () => {
  const BASE_URL = "https://og.example.test";
  const SECRET = "never-in-an-email-0123456789";

  let s: InProcessApp;
  let r: TestReceiver;
  let smtp: TestSmtpServer;
  beforeAll(async () => {
    smtp = await startSmtpServer();
    r = await startReceiver();
    s = await startInProcessApp({ SMTP_URL: smtp.url, OG_BASE_URL: BASE_URL, OG_ALLOW_PRIVATE_NETWORKS: "1" });
  });
  afterAll(async () => {
    await s.stop();
    await r.stop();
    await smtp.stop();
  });

  test("the owner is told which endpoint was disabled, why, and how to re-enable it", async () => {
    const email = "hook-owner@example.com";
    const { accountId, apiKey } = await s.createAccount({ plan: "custom", quota: 1000, requests_per_second: 1000, email });
    r.respond({ status: 503 }, "/always-fails");
    const url = r.url("/always-fails") + "?token=query-token-xyz";
    const created = await s.api("/api/webhooks", { key: apiKey, json: { url, events: ["image.generated"], secret: SECRET } });
    expect(created.status).toBe(201);
    const webhook = (await created.json()) as { id: string };

    const res = await s.api("/api/generate", { key: apiKey, json: eventBody() });
    await res.arrayBuffer();
    await r.waitForCount(1, "/always-fails");
    for (const [i, delay] of [60, 300, 1800, 7200, 86400].entries()) {
      expect(smtp.to(email)).toHaveLength(0); // still enabled: no email yet
      await s.advance(delay);
      await r.waitForCount(i + 2, "/always-fails");
    }

    const [mail] = await smtp.waitForCount(1, email);
    const state = (await (await s.api(`/api/webhooks/${webhook.id}`, { key: apiKey })).json()) as { status: string };
    expect(state.status).toBe("disabled");

    expect(mail!.to).toEqual([email]);
    // The subject (logged, and kept in the email log) names the webhook by id, never by URL.
    expect(mail!.subject).toContain(`webhook ${webhook.id} disabled`);
    expect(mail!.subject).not.toContain("/always-fails");
    expect(mail!.subject).not.toContain(String(new URL(r.url("/")).port));
    for (const part of [mail!.text, mail!.html]) {
      expect(part).toContain(webhook.id);
      expect(part).toContain("HTTP 503"); // why: the last error
      expect(part).toContain(`PUT /api/webhooks/${webhook.id}`);
      expect(part).toContain(`${BASE_URL}/dashboard`);
      expect(part).not.toContain(SECRET);
      expect(part).not.toContain("query-token-xyz");
      expect(part).not.toContain(apiKey);
    }
    expect(mail!.text).toContain(`Endpoint:   ${r.url("/always-fails")}?…`);
    expect(mail!.text).toContain('"enabled": true');
    expect(mail!.html).toContain("&quot;enabled&quot;: true"); // escaped, not raw markup

    const alerts = await s.service.services.email.recent(accountId);
    expect(alerts.map((a) => [a.kind, a.state, a.attempts])).toEqual([["webhook_disabled", "sent", 1]]);

    // One email per disabling: nothing more while it stays disabled…
    await s.advance(3600);
    expect(smtp.to(email)).toHaveLength(1);

    // …but re-enabled and failing through the schedule again is a new incident, and a new email.
    const put = await s.api(`/api/webhooks/${webhook.id}`, { key: apiKey, method: "PUT", json: { url, events: ["image.generated"], enabled: true } });
    expect(put.status).toBe(200);
    const again = await s.api("/api/generate", { key: apiKey, json: eventBody() });
    await again.arrayBuffer();
    await r.waitForCount(7, "/always-fails");
    for (const [i, delay] of [60, 300, 1800, 7200, 86400].entries()) {
      await s.advance(delay);
      await r.waitForCount(i + 8, "/always-fails");
    }
    await smtp.waitForCount(2, email);
    expect((await s.service.services.email.recent(accountId)).map((a) => [a.kind, a.state])).toEqual([
      ["webhook_disabled", "sent"],
      ["webhook_disabled", "sent"],
    ]);
  }, 30_000);
});
