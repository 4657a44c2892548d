/**
 * Public signed image URLs (GET /i/…) and POST /api/image-urls in process
 * (test/support/in-process.ts; a SQLite file or PostgreSQL, the disk cache in a temp directory,
 * the test clock): the check order and its codes, the cache headers, 304, HEAD, exp, 414,
 * once-a-month counting under concurrency, deleted keys and blocked accounts. A restart in the
 * middle and the request log are the server's: test/e2e/signed-urls.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildSignedUrl } from "../../src/signing/index.ts";
import { ADMIN_TOKEN } from "../support/harness.ts";
import { customAccount, type InProcessApp, startInProcessApp } from "../support/in-process.ts";
import { decodePng } from "../support/png.ts";
import { startReceiver, type TestReceiver } from "../support/receiver.ts";

let dir: string;
let s: InProcessApp;
/** Every account subscribes a webhook here to `image.generated`, so each counted image stores its event. */
let receiver: TestReceiver;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ogsmith-signed-"));
  receiver = await startReceiver();
  s = await startInProcessApp(
    { OG_CACHE_DIR: join(dir, "cache"), OG_RENDER_WORKERS: "2", OG_ALLOW_PRIVATE_NETWORKS: "1" },
    { renderer: { pool: { warmUp: false } } },
  );
});
afterAll(async () => {
  await s?.stop();
  await receiver?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const api = (path: string, key: string, init: { method?: string; json?: unknown } = {}) => s.api(path, { key, ...init });

const admin = (path: string, json: unknown, method = "POST") => s.admin(path, { method, json });

const account = (input: Record<string, unknown> = {}) => customAccount(s, { quota: 1000, requests_per_second: 1000, ...input });

/**
 * Subscribes a webhook to `image.generated`: events are stored only when a webhook takes them,
 * so the tests that count events through the store subscribe first.
 */
async function subscribe(apiKey: string): Promise<void> {
  const res = await api("/api/webhooks", apiKey, {
    json: { url: receiver.url("/signed"), events: ["image.generated"], secret: "whsec-signed-urls-test-0123456789" },
  });
  expect(res.status).toBe(201);
}

async function signingKey(apiKey: string): Promise<{ id: string; secret: string }> {
  const res = await api("/api/signing-keys", apiKey, { method: "POST" });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string; secret: string };
}

const urlFor = (key: { id: string; secret: string }, params: Record<string, string>, template = "event", ext: "png" | "jpg" | "webp" = "png") =>
  buildSignedUrl({ baseUrl: s.url, keyId: key.id, secret: key.secret, template, ext, params });

const advance = (seconds: number) =>
  s.fetch(`/admin/clock/advance`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ seconds }),
  });

/** Confirmed images this month, read from the store (an API read would use the rate-limit window). */
const used = async (accountId: string) => (await s.service.services.store.usage(accountId, s.service.services.metering.currentPeriod()))?.used ?? 0;

const rendered = () => s.service.renderer.pool.stats.rendered;

/** A count straight from the store's tables (no Store method lists events). */
async function countRows(text: string, accountId: string): Promise<number> {
  const store = s.service.services.store as any;
  if (store.kind === "sqlite") return (store.db.$client.query(text).get(accountId) as { n: number }).n;
  return Number((await store.sql.unsafe(text.replace("?", "$1"), [accountId]))[0].n);
}

const imageEvents = (accountId: string) => countRows("SELECT count(*) AS n FROM events WHERE account_id = ? AND type = 'image.generated'", accountId);

const rows = (accountId: string) => countRows("SELECT count(*) AS n FROM counted_images WHERE account_id = ?", accountId);

async function expectError(res: Response, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get("cache-control")).toBe("no-store");
  const body = (await res.json()) as { error: boolean; code: string };
  expect(body.error).toBe(true);
  expect(body.code).toBe(code);
}

describe("GET /i/…", () => {
  let owner: { id: string; key: string };
  let key: { id: string; secret: string };
  beforeAll(async () => {
    owner = await account();
    await subscribe(owner.key);
    key = await signingKey(owner.key);
  });

  test("a signed URL answers the image with its cache headers; repeat, HEAD and 304 are free", async () => {
    const url = urlFor(key, { title: "Signed hello", width: "600", height: "315" });
    const before = rendered();
    const res = await s.fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/png");
    expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    const etag = res.headers.get("etag")!;
    expect(etag).toMatch(/^"[0-9a-f]{64}"$/);
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(Number(res.headers.get("content-length"))).toBe(bytes.byteLength);
    const png = decodePng(bytes);
    expect([png.width, png.height]).toEqual([600, 315]);
    expect(rendered()).toBe(before + 1);
    expect(await used(owner.id)).toBe(1);

    const again = await s.fetch(url);
    expect(again.status).toBe(200);
    expect(new Uint8Array(await again.arrayBuffer())).toEqual(bytes);
    const head = await s.fetch(url, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("etag")).toBe(etag);
    expect(head.headers.get("content-length")).toBe(String(bytes.byteLength));
    expect((await head.arrayBuffer()).byteLength).toBe(0);
    const notModified = await s.fetch(url, { headers: { "if-none-match": etag } });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get("etag")).toBe(etag);
    expect(rendered()).toBe(before + 1);
    expect(await used(owner.id)).toBe(1);
    expect(await imageEvents(owner.id)).toBe(1);

    // The query's order and encoding do not matter: the server re-canonicalizes.
    const u = new URL(url);
    const reordered = `${u.origin}${u.pathname}?width=600&title=Signed+hello&height=315`.replace("Signed+hello", "Signed%20hello");
    expect((await s.fetch(reordered)).status).toBe(200);
    expect(await used(owner.id)).toBe(1);
  });

  test("check order: key → signature → exp → validation, each with its code and no-store", async () => {
    const good = new URL(urlFor(key, { title: "Order" }));
    const [, , keyId, signature, file] = good.pathname.split("/");
    await expectError(await s.fetch(`/i/sk_unknownunknownunkno/${signature}/${file}${good.search}`), 401, "INVALID_SIGNATURE");
    await expectError(await s.fetch(`/i/not-a-key/${signature}/${file}${good.search}`), 401, "INVALID_SIGNATURE");
    await expectError(await s.fetch(`/i/${keyId}/${"A".repeat(43)}/${file}${good.search}`), 401, "INVALID_SIGNATURE");
    await expectError(await s.fetch(`/i/${keyId}/not*base64/${file}${good.search}`), 401, "INVALID_SIGNATURE");
    await expectError(await s.fetch(`/i/${keyId}/${signature}/${file}?title=Other`), 401, "INVALID_SIGNATURE");
    await expectError(await s.fetch(`/i/${keyId}/${signature}/blog.png${good.search}`), 401, "INVALID_SIGNATURE");

    // A bad value that is correctly signed: 400 exactly as POST, naming the field.
    const invalid = await s.fetch(urlFor(key, { title: "x", width: "5000", speaker_name: "y".repeat(301) }));
    await expectError(invalid.clone(), 400, "VALIDATION_ERROR");
    const details = ((await invalid.json()) as { details: { field: string }[] }).details.map((d) => d.field).sort();
    expect(details).toEqual(["speaker_name", "width"]);
    await expectError(await s.fetch(urlFor(key, { title: "x", author_name: "a" })), 400, "VALIDATION_ERROR");
    await expectError(await s.fetch(urlFor(key, { title: "x" }, "nope")), 400, "UNKNOWN_TEMPLATE");

    // exp: expired is 410 (before validation), valid sets max-age to the seconds left.
    const now = Math.floor(s.service.services.clock.now() / 1000);
    await expectError(await s.fetch(urlFor(key, { title: "x", width: "5000", exp: String(now - 1) })), 410, "URL_EXPIRED");
    const fresh = await s.fetch(urlFor(key, { title: "Expiring", exp: String(now + 600) }));
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get("cache-control")).toBe("public, max-age=600, immutable");
    await fresh.arrayBuffer();
    await s.fetch(`/admin/clock/advance`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ seconds: 601 }),
    });
    await expectError(await s.fetch(urlFor(key, { title: "Expiring", exp: String(now + 600) })), 410, "URL_EXPIRED");
  });

  test("a URL over 8 KiB is 414 in the envelope", async () => {
    const res = await s.fetch(`/i/${key.id}/${"A".repeat(43)}/event.png?title=${"a".repeat(8300)}`);
    await expectError(res, 414, "URI_TOO_LONG");
  });

  test("JPEG and WebP URLs answer their content types", async () => {
    for (const [ext, type] of [
      ["jpg", "image/jpeg"],
      ["webp", "image/webp"],
    ] as const) {
      const res = await s.fetch(urlFor(key, { title: `Format ${ext}`, quality: "70", width: "400", height: "210" }, "event", ext));
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe(type);
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(100);
    }
  });
});

describe("counting", () => {
  test("50 simultaneous GETs of one new URL count 1, render once, fire image.generated once", async () => {
    const a = await account({ requests_per_second: 1 });
    await subscribe(a.key);
    await advance(2); // the subscription used this second's one request
    const key = await signingKey(a.key);
    const url = urlFor(key, { title: "Fifty at once", width: "400", height: "210" });
    await advance(2); // the key's creation used this second's one request
    const before = rendered();
    const answers = await Promise.all(Array.from({ length: 50 }, () => s.fetch(url)));
    expect(answers.map((r) => r.status)).toEqual(Array(50).fill(200));
    const etags = new Set(answers.map((r) => r.headers.get("etag")));
    expect(etags.size).toBe(1);
    await Promise.all(answers.map((r) => r.arrayBuffer()));
    expect(rendered()).toBe(before + 1);
    expect(await used(a.id)).toBe(1);
    expect(await imageEvents(a.id)).toBe(1);
  });

  test("50 distinct new URLs against 10 remaining units count exactly 10", async () => {
    const a = await account({ quota: 10 });
    await subscribe(a.key);
    const key = await signingKey(a.key);
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => s.fetch(urlFor(key, { title: `Distinct ${i}`, width: "200", height: "200" }))));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 200).length).toBe(10);
    for (const r of answers.filter((r) => r.status !== 200)) await expectError(r, 429, "QUOTA_EXCEEDED");
    await Promise.all(answers.filter((r) => r.status === 200).map((r) => r.arrayBuffer()));
    expect(await used(a.id)).toBe(10);
    expect(await imageEvents(a.id)).toBe(10);
    // A counted image still answers once the quota is used up; a new one does not.
    const counted = answers.findIndex((r) => r.status === 200);
    expect((await s.fetch(urlFor(key, { title: `Distinct ${counted}`, width: "200", height: "200" }))).status).toBe(200);
  });

  test("POST /api/generate still counts every success", async () => {
    const a = await account();
    for (let i = 0; i < 2; i++) expect((await api("/api/generate", a.key, { json: { title: "Posted twice", width: 200, height: 200 } })).status).toBe(200);
    expect(await used(a.id)).toBe(2);
  });

  test("a counted image is not rate limited; a new one is", async () => {
    const a = await account({ requests_per_second: 1 });
    const key = await signingKey(a.key);
    const url = urlFor(key, { title: "Rate one", width: "200", height: "200" });
    await advance(2); // the key's creation used this second's one request
    expect((await s.fetch(url)).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await s.fetch(url)).status).toBe(200);
    await expectError(await s.fetch(urlFor(key, { title: "Rate two", width: "200", height: "200" })), 429, "RATE_LIMIT_EXCEEDED");
  });
});

describe("keys and accounts", () => {
  test("a deleted key's URL is 401 at once, even though the image is cached", async () => {
    const a = await account();
    const key = await signingKey(a.key);
    const url = urlFor(key, { title: "Soon deleted", width: "200", height: "200" });
    expect((await s.fetch(url)).status).toBe(200);
    expect((await api(`/api/signing-keys/${key.id}`, a.key, { method: "DELETE" })).status).toBe(200);
    await expectError(await s.fetch(url), 401, "INVALID_SIGNATURE");
  });

  test("canceled and past-due accounts' URLs are 403 with the subscription codes", async () => {
    const a = await account();
    const key = await signingKey(a.key);
    const url = urlFor(key, { title: "Blocked", width: "200", height: "200" });
    expect((await admin(`/admin/accounts/${a.id}`, { status: "canceled" }, "PATCH")).status).toBe(200);
    await expectError(await s.fetch(url), 403, "SUBSCRIPTION_CANCELED");
    expect((await admin(`/admin/accounts/${a.id}`, { status: "past_due" }, "PATCH")).status).toBe(200);
    await expectError(await s.fetch(url), 403, "PAYMENT_PAST_DUE");
    expect(await rows(a.id)).toBe(0);
  });

  test("last_used_at is set once a URL is accepted", async () => {
    const a = await account();
    const key = await signingKey(a.key);
    expect((await s.fetch(urlFor(key, { title: "Touch", width: "200", height: "200" }))).status).toBe(200);
    const list = (await (await api("/api/signing-keys", a.key)).json()) as { data: { last_used_at: string | null }[] };
    expect(list.data[0]!.last_used_at).not.toBeNull();
  });
});

describe("POST /api/image-urls", () => {
  test("signs a generate body on the server; the URL answers; bad input is 400 naming fields; another account's key is 404", async () => {
    const a = await account();
    const b = await account();
    const key = await signingKey(a.key);
    const res = await api("/api/image-urls", a.key, {
      json: { signing_key_id: key.id, title: "Server signed", format: "webp", width: 300, height: 200, expires_in: 3600 },
    });
    expect(res.status).toBe(200);
    const { url } = (await res.json()) as { url: string };
    expect(url.startsWith(`${s.service.services.config.baseUrl}/i/${key.id}/`)).toBe(true);
    expect(url).toContain(".webp?");
    expect(url).toContain("exp=");
    const fetched = await s.fetch(new URL(url).pathname + new URL(url).search);
    expect(fetched.status).toBe(200);
    expect(fetched.headers.get("content-type")).toBe("image/webp");
    expect(Number(fetched.headers.get("cache-control")!.match(/max-age=(\d+)/)![1])).toBeLessThanOrEqual(3600);

    const bad = await api("/api/image-urls", a.key, { json: { title: "", expires_in: -1 } });
    await expectError(bad.clone(), 400, "VALIDATION_ERROR");
    expect(((await bad.json()) as { details: { field: string }[] }).details.map((d) => d.field).sort()).toEqual(["expires_in", "signing_key_id", "title"]);
    await expectError(await api("/api/image-urls", b.key, { json: { signing_key_id: key.id, title: "x" } }), 404, "NOT_FOUND");
  });
});
