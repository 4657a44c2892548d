/**
 * Public signed image URLs through the real service on port 0 (SQLite file, disk cache in a temp
 * directory, test clock): a restart in the middle, and the request log never holding a secret.
 * The routes themselves are test/http/images.test.ts and test/http/signing-keys.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config.ts";
import { createLogger } from "../../src/logger.ts";
import { startService, type RunningService } from "../../src/serve.ts";
import { buildSignedUrl } from "../../src/signing/index.ts";
import { ADMIN_TOKEN, storeEnv } from "../support/harness.ts";
import { startReceiver, type TestReceiver } from "../support/receiver.ts";

let dir: string;
let service: RunningService;
/** Every account subscribes a webhook here to `image.generated`, so each counted image stores its event. */
let receiver: TestReceiver;
const logLines: string[] = [];

async function start(): Promise<RunningService> {
  const config = loadConfig({
    // SQLite by default; OG_TEST_STORE=postgres runs the same tests on PostgreSQL.
    ...(await storeEnv(join(dir, "ogsmith.db"))),
    OG_CACHE_DIR: join(dir, "cache"),
    PORT: "0",
    HOST: "127.0.0.1",
    OG_TEST_CLOCK: "1",
    OG_ADMIN_TOKEN: ADMIN_TOKEN,
    OG_BOOTSTRAP: "false",
    OG_LOG_LEVEL: "info",
    OG_RENDER_WORKERS: "2",
    OG_ALLOW_PRIVATE_NETWORKS: "1",
  });
  return startService(config, { logger: createLogger("info", (line) => logLines.push(line)), print: () => {}, renderer: { pool: { warmUp: false } } });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ogsmith-signed-"));
  receiver = await startReceiver();
  service = await start();
});
afterAll(async () => {
  await service?.stop();
  await receiver?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const api = (path: string, key: string, init: { method?: string; json?: unknown } = {}) =>
  fetch(service.url + path, {
    method: init.method ?? (init.json !== undefined ? "POST" : "GET"),
    headers: { "x-api-key": key, ...(init.json !== undefined ? { "content-type": "application/json" } : {}) },
    body: init.json !== undefined ? JSON.stringify(init.json) : undefined,
  });

const admin = (path: string, json: unknown, method = "POST") =>
  fetch(service.url + path, { method, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" }, body: JSON.stringify(json) });

async function account(input: Record<string, unknown> = {}): Promise<{ id: string; key: string }> {
  const res = await admin("/admin/accounts", { email: "u@example.com", plan: "custom", quota: 1000, requests_per_second: 1000, ...input });
  expect(res.status).toBe(201);
  const body = (await res.json()) as { account_id: string; api_key: string };
  return { id: body.account_id, key: body.api_key };
}

async function signingKey(apiKey: string): Promise<{ id: string; secret: string }> {
  const res = await api("/api/signing-keys", apiKey, { method: "POST" });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string; secret: string };
}

const urlFor = (key: { id: string; secret: string }, params: Record<string, string>, template = "event", ext: "png" | "jpg" | "webp" = "png") =>
  buildSignedUrl({ baseUrl: service.url, keyId: key.id, secret: key.secret, template, ext, params });

/** Confirmed images this month, read from the store (an API read would use the rate-limit window). */
const used = async (accountId: string) => (await service.services.store.usage(accountId, service.services.metering.currentPeriod()))?.used ?? 0;

describe("restart and logs", () => {
  test("a URL fetched before a restart is a disk-cache hit after it and not a second count; no secret in the log", async () => {
    const a = await account();
    const key = await signingKey(a.key);
    const url = urlFor(key, { title: "Across a restart", width: "300", height: "200" });
    const first = await fetch(url);
    expect(first.status).toBe(200);
    const bytes = new Uint8Array(await first.arrayBuffer());
    expect(await used(a.id)).toBe(1);
    await service.stop();
    service = await start();
    const path = new URL(url).pathname + new URL(url).search;
    const again = await fetch(service.url + path);
    expect(again.status).toBe(200);
    expect(new Uint8Array(await again.arrayBuffer())).toEqual(bytes);
    expect(service.renderer.pool.stats.rendered).toBe(0);
    expect(await used(a.id)).toBe(1);

    const log = logLines.join("\n");
    expect(log).toContain(`/i/${key.id}/`);
    expect(log).not.toContain(key.secret);
    expect(log).not.toContain(key.secret.slice(5));
  });
});
