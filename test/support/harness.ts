/**
 * End-to-end harness: the real service (startService) on port 0 with a real store, the test
 * clock on, and helpers that seed accounts through the real admin API.
 *
 * The store comes from the environment, so one suite runs against either:
 * - default: a SQLite file in a temp dir;
 * - `OG_TEST_STORE=postgres`: a fresh database on a throwaway PostgreSQL server, from
 *   test/support/postgres.ts (`testDatabaseUrl(): Promise<string>` and
 *   `execSql(url, text, params): Promise<void>` with `$1…` placeholders).
 * A test that restarts the service names its store by a file path (`OG_DB_PATH`); the same
 * path gives the same store in either mode (`storeEnv`).
 */
import { afterAll, beforeAll, expect } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config.ts";
import { type Logger, silentLogger } from "../../src/logger.ts";
import type { ServiceRendererOptions } from "../../src/render/renderer.ts";
import { startService, type RunningService } from "../../src/serve.ts";
import { startReceiver, type TestReceiver } from "./receiver.ts";

export const ADMIN_TOKEN = "test-admin-token-0123456789";

export type TestStoreKind = "sqlite" | "postgres";
export const TEST_STORE: TestStoreKind = process.env.OG_TEST_STORE === "postgres" ? "postgres" : "sqlite";

interface PostgresSupport {
  testDatabaseUrl(): Promise<string>;
  execSql(url: string, text: string, params: unknown[]): Promise<void>;
}
// Imported by a computed path: the module exists only where PostgreSQL support is built.
const POSTGRES_SUPPORT = "./postgres.ts";
const postgresSupport = (): Promise<PostgresSupport> => import(POSTGRES_SUPPORT);

const databases = new Map<string, Promise<string>>();

/**
 * The environment that points a service, a child process or the CLI at the store named by
 * `dbPath`: the SQLite file itself, or (PostgreSQL) one database per distinct path, so a
 * restarted service finds what the previous one left.
 */
export async function storeEnv(dbPath: string): Promise<Record<string, string>> {
  if (TEST_STORE === "sqlite") return { OG_DB_PATH: dbPath };
  let url = databases.get(dbPath);
  if (!url) {
    url = postgresSupport().then((m) => m.testDatabaseUrl());
    databases.set(dbPath, url);
  }
  return { OG_DB_PATH: dbPath, OG_DATABASE_URL: await url };
}

/**
 * Runs one SQL statement on the store named by `dbPath`, for tests that set up a state no API
 * reaches (e.g. a month that ended while the service was down). Placeholders are `?`; the
 * statement must read the same in SQLite and PostgreSQL.
 */
export async function execStoreSql(dbPath: string, text: string, params: (string | number | null)[]): Promise<void> {
  if (TEST_STORE === "sqlite") {
    const sqlite = new Database(dbPath);
    try {
      sqlite.run(text, params);
    } finally {
      sqlite.close();
    }
    return;
  }
  let n = 0;
  const { OG_DATABASE_URL } = await storeEnv(dbPath);
  await (await postgresSupport()).execSql(
    OG_DATABASE_URL!,
    text.replace(/\?/g, () => `$${++n}`),
    params,
  );
}

export interface ApiInit {
  method?: string;
  key?: string;
  json?: unknown;
  headers?: Record<string, string>;
  body?: BodyInit;
}

/** A request as a client sends it: the key in `x-api-key`, a JSON body with its content type, POST when there is a body. */
export function apiRequest(url: string, init: ApiInit = {}): Request {
  const headers: Record<string, string> = { ...init.headers };
  if (init.key !== undefined) headers["x-api-key"] = init.key;
  let body = init.body;
  if (init.json !== undefined) {
    headers["content-type"] ??= "application/json";
    body = JSON.stringify(init.json);
  }
  return new Request(url, { method: init.method ?? (body !== undefined ? "POST" : "GET"), headers, body });
}

/** The operator's calls both harnesses offer, over their own `admin` request: an account with its key, and the test clock moved. */
export function operatorCalls(admin: TestService["admin"]): Pick<TestService, "createAccount" | "advance"> {
  return {
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
  };
}

export interface TestService {
  url: string;
  dir: string;
  /** The environment that points another process (the CLI, a restarted server) at this service's store. */
  storeEnv: Record<string, string>;
  service: RunningService;
  /** fetch against the service with an optional API key and JSON body. */
  api(path: string, init?: ApiInit): Promise<Response>;
  admin(path: string, init?: { method?: string; json?: unknown }): Promise<Response>;
  createAccount(input?: {
    plan?: string;
    status?: string;
    quota?: number;
    requests_per_second?: number;
    email?: string;
  }): Promise<{ accountId: string; apiKey: string }>;
  /** Advances the test clock through the admin API (runs due jobs before answering). */
  advance(seconds: number): Promise<void>;
  now(): number;
  stop(): Promise<void>;
}

export interface TestServiceOptions {
  /**
   * The webhook retry jitter's random source. Default `() => 0.5`: every retry exactly on its
   * nominal delay, so tests can assert "nothing a second early, the retry on the dot".
   */
  retryRandom?: () => number;
  /** Renderer knobs that are not configuration (queue length, cache size, the image fetcher's transport). */
  renderer?: Pick<ServiceRendererOptions, "pool" | "pngCacheBytes" | "fetch">;
  /** Where the service logs (default: nowhere). */
  logger?: Logger;
  /** How long a store call waits for a database locked by another connection (default: the product's 3 s). */
  lockWaitMs?: number;
}

export async function startTestService(env: Record<string, string> = {}, options: TestServiceOptions = {}): Promise<TestService> {
  const dir = mkdtempSync(join(tmpdir(), "ogsmith-test-"));
  const store = env.OG_DATABASE_URL ? { OG_DATABASE_URL: env.OG_DATABASE_URL } : await storeEnv(env.OG_DB_PATH ?? join(dir, "ogsmith.db"));
  const config = loadConfig({
    PORT: "0",
    HOST: "127.0.0.1",
    OG_TEST_CLOCK: "1",
    OG_ADMIN_TOKEN: ADMIN_TOKEN,
    OG_BOOTSTRAP: "false",
    OG_LOG_LEVEL: "silent",
    OG_RENDER_WORKERS: "2",
    ...env,
    ...store,
  });
  const service = await startService(config, {
    logger: options.logger ?? silentLogger,
    print: () => {},
    retryRandom: options.retryRandom ?? (() => 0.5),
    renderer: options.renderer,
    lockWaitMs: options.lockWaitMs,
  });
  const url = service.url;

  // With OG_BASE_URL the server answers only that Host: the requests say it, as a proxy in front would.
  const host = env.OG_BASE_URL ? new URL(env.OG_BASE_URL).host : undefined;
  const api: TestService["api"] = (path, init = {}) => fetch(apiRequest(url + path, host ? { ...init, headers: { host, ...init.headers } } : init));
  const admin: TestService["admin"] = (path, init = {}) =>
    api(path, { method: init.method, json: init.json, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });

  return {
    url,
    dir,
    storeEnv: store,
    service,
    api,
    admin,
    ...operatorCalls(admin),
    now: () => service.services.clock.now(),
    async stop() {
      await service.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A valid event body. */
export const eventBody = (overrides: Record<string, unknown> = {}) => ({ title: "Bun Meetup Berlin", ...overrides });

/**
 * Generates one card after another, `attempts` times, each answered 200 or 429 (quota used up):
 * how many were 200. After a fault, exactly the quota left must be usable, and not one more.
 */
export async function useUp(s: Pick<TestService, "api">, key: string, attempts: number): Promise<number> {
  let ok = 0;
  for (let i = 0; i < attempts; i++) {
    const res = await s.api("/api/generate", { key, json: eventBody({ title: `after ${i}` }) });
    await res.arrayBuffer();
    if (res.status === 200) ok++;
    else expect(res.status).toBe(429);
  }
  return ok;
}

export interface ServiceWithReceiver {
  s: TestService;
  r: TestReceiver;
}

/**
 * A server `start` starts and a receiver for it to call, started before and stopped after the
 * tests of the enclosing scope (the file or a `describe`). The fields are set once that scope's
 * beforeAll has run, so read them inside tests.
 */
export function useWithReceiver<S extends { stop(): Promise<void> }>(start: () => Promise<S>): { s: S; r: TestReceiver } {
  const fixture = {} as { s: S; r: TestReceiver };
  beforeAll(async () => {
    fixture.s = await start();
    fixture.r = await startReceiver();
  });
  afterAll(async () => {
    await fixture.s?.stop();
    await fixture.r?.stop();
  });
  return fixture;
}

/** A service that may call loopback (OG_ALLOW_PRIVATE_NETWORKS=1) and a receiver for it to call (useWithReceiver). */
export function useServiceWithReceiver(): ServiceWithReceiver {
  return useWithReceiver(() => startTestService({ OG_ALLOW_PRIVATE_NETWORKS: "1" }));
}
