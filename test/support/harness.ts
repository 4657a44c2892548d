/**
 * End-to-end harness: the real service (startService) on port 0 with a real SQLite file in a
 * temp dir, the test clock on, and helpers that seed accounts through the real admin API.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config.ts";
import { silentLogger } from "../../src/logger.ts";
import { startService, type RunningService } from "../../src/serve.ts";

export const ADMIN_TOKEN = "test-admin-token-0123456789";

export interface TestService {
  url: string;
  dir: string;
  service: RunningService;
  /** fetch against the service with an optional API key and JSON body. */
  api(path: string, init?: { method?: string; key?: string; json?: unknown; headers?: Record<string, string>; body?: BodyInit }): Promise<Response>;
  admin(path: string, init?: { method?: string; json?: unknown }): Promise<Response>;
  createAccount(input?: { plan?: string; status?: string; quota?: number; requests_per_second?: number; email?: string }): Promise<{ accountId: string; apiKey: string }>;
  /** Advances the test clock through the admin API (runs due jobs before answering). */
  advance(seconds: number): Promise<void>;
  now(): number;
  stop(): Promise<void>;
}

export async function startTestService(env: Record<string, string> = {}): Promise<TestService> {
  const dir = mkdtempSync(join(tmpdir(), "ogsmith-test-"));
  const config = loadConfig({
    OG_DB_PATH: join(dir, "ogsmith.db"),
    PORT: "0",
    HOST: "127.0.0.1",
    OG_TEST_CLOCK: "1",
    OG_ADMIN_TOKEN: ADMIN_TOKEN,
    OG_BOOTSTRAP: "false",
    OG_LOG_LEVEL: "silent",
    OG_RENDER_WORKERS: "2",
    ...env,
  });
  const service = await startService(config, { logger: silentLogger, print: () => {} });
  const url = service.url;

  const api: TestService["api"] = (path, init = {}) => {
    const headers: Record<string, string> = { ...init.headers };
    if (init.key !== undefined) headers["x-api-key"] = init.key;
    let body = init.body;
    if (init.json !== undefined) {
      headers["content-type"] ??= "application/json";
      body = JSON.stringify(init.json);
    }
    return fetch(url + path, { method: init.method ?? (body !== undefined ? "POST" : "GET"), headers, body });
  };
  const admin: TestService["admin"] = (path, init = {}) =>
    api(path, { method: init.method, json: init.json, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });

  return {
    url,
    dir,
    service,
    api,
    admin,
    async createAccount(input = {}) {
      const res = await admin("/admin/accounts", { json: { email: input.email ?? "user@example.com", plan: input.plan ?? "free", ...input } });
      if (res.status !== 201) throw new Error(`createAccount failed: ${res.status} ${await res.text()}`);
      const body = (await res.json()) as { account_id: string; api_key: string };
      return { accountId: body.account_id, apiKey: body.api_key };
    },
    async advance(seconds) {
      const res = await admin("/admin/clock/advance", { json: { seconds } });
      if (res.status !== 200) throw new Error(`advance failed: ${res.status} ${await res.text()}`);
    },
    now: () => service.services.clock.now(),
    async stop() {
      await service.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A valid event body. */
export const eventBody = (overrides: Record<string, unknown> = {}) => ({ title: "Bun Meetup Berlin", ...overrides });
