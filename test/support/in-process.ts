/**
 * The in-process route-test harness: the app `ogsmith serve` assembles (`createApp` over the real
 * services, a real store, the real render service and the background worker), driven through
 * `app.handle(new Request("http://localhost/…"))` — no listening socket, no server process.
 *
 * It answers to the same calls as the end-to-end harness (`api`, `admin`, `createAccount`,
 * `advance`, `now`, `service.services`), so a route-level test reads the same in either tier.
 * The store is the one `OG_TEST_STORE` names (a SQLite file in a temp dir by default), so a file
 * of this tier also runs in CI's PostgreSQL pass. The render processes start on the first render,
 * so a file that renders nothing starts none.
 *
 * What stays end-to-end: what needs a real process or socket (kill -9 and restarts of a process,
 * the CLI and the binary, the cluster, raw HTTP on the wire, process trees, Chromium) and what
 * the listening server adds around the app (src/app/server.ts: the access log, the request
 * metrics, requests with a missing or malformed Host).
 */
import { afterAll, beforeAll, expect } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../../src/app/app.ts";
import { BatchDrawer } from "../../src/batches/drawer.ts";
import { loadConfig } from "../../src/config.ts";
import { silentLogger } from "../../src/logger.ts";
import { createServiceRenderer } from "../../src/render/renderer.ts";
import { prepareRendering } from "../../src/render/setup.ts";
import type { RunningService } from "../../src/serve.ts";
import { createServices } from "../../src/services.ts";
import { JobWorker } from "../../src/worker/index.ts";
import type { TestReceiver } from "./receiver.ts";
import { ADMIN_TOKEN, apiRequest, storeEnv, type ApiInit, type TestService, type TestServiceOptions, operatorCalls, useWithReceiver } from "./harness.ts";

/** Requests resolve against this origin; the app never sees a socket. */
export const IN_PROCESS_ORIGIN = "http://localhost";

export interface InProcessApp extends Pick<TestService, "dir" | "storeEnv" | "api" | "admin" | "createAccount" | "advance" | "now"> {
  /** `IN_PROCESS_ORIGIN`: where a test that builds its own URLs points them. */
  url: string;
  /** What `startService` would return, less the listening server. */
  service: Pick<RunningService, "app" | "services" | "renderer" | "worker" | "drawer">;
  /**
   * `fetch` against the app: a path (or a URL on any origin) and fetch's init. The answer is
   * never decoded on the way (as `fetch` with `decompress: false`).
   */
  fetch(input: string | Request, init?: BunFetchRequestInit): Promise<Response>;
  stop(): Promise<void>;
}

/**
 * The app of `ogsmith serve` with the same defaults as `startTestService` (the test clock, the
 * admin token, no bootstrap, no logs): `env` adds or overrides configuration.
 */
export async function startInProcessApp(env: Record<string, string> = {}, options: TestServiceOptions = {}): Promise<InProcessApp> {
  const dir = mkdtempSync(join(tmpdir(), "ogsmith-app-"));
  const store = env.OG_DATABASE_URL ? { OG_DATABASE_URL: env.OG_DATABASE_URL } : await storeEnv(env.OG_DB_PATH ?? join(dir, "ogsmith.db"));
  const config = loadConfig({
    OG_TEST_CLOCK: "1",
    OG_ADMIN_TOKEN: ADMIN_TOKEN,
    OG_BOOTSTRAP: "false",
    OG_LOG_LEVEL: "silent",
    OG_RENDER_WORKERS: "2",
    ...env,
    ...store,
  });
  const logger = options.logger ?? silentLogger;
  // The same steps as startService (src/serve.ts) before it listens.
  const services = await createServices(config, { logger, retryRandom: options.retryRandom ?? (() => 0.5), lockWaitMs: options.lockWaitMs });
  await services.metering.clearStaleReservations();
  services.metering.startReclaiming();
  services.testClock?.onAdvance(() => services.metering.reclaimUnheld().then(() => undefined));
  const { templates } = await prepareRendering({ templatesDir: config.templatesDir, fontsDir: config.fontsDir, logger });
  // Not started here: the render processes start at the first render.
  const renderer = createServiceRenderer({
    config,
    logger,
    fontBytes: (digests) => services.accountFonts.bytes(digests),
    ...options.renderer,
  });
  const app = createApp({ services, renderer, templates });
  const worker = new JobWorker(services, services.store.kind === "postgres" ? { leaseMs: 30_000 } : {});
  const drawer = new BatchDrawer({ ...services, renderer, templates, baseUrl: config.baseUrl }, { concurrency: renderer.pool.backgroundSize });
  await worker.start();
  await drawer.start();

  // With OG_BASE_URL the app answers only that Host: the requests say it, as a proxy in front would.
  const host = env.OG_BASE_URL ? new URL(env.OG_BASE_URL).host : undefined;
  const handle = (request: Request) => app.handle(asServed(request));
  const api: InProcessApp["api"] = (path, init: ApiInit = {}) =>
    handle(apiRequest(IN_PROCESS_ORIGIN + path, host ? { ...init, headers: { host, ...init.headers } } : init));
  const admin: InProcessApp["admin"] = (path, init = {}) =>
    api(path, { method: init.method, json: init.json, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });

  let stopping: Promise<void> | undefined;
  return {
    url: IN_PROCESS_ORIGIN,
    dir,
    storeEnv: store,
    service: { app, services, renderer, worker, drawer },
    api,
    admin,
    fetch: (input, init) => handle(typeof input === "string" ? new Request(new URL(input, IN_PROCESS_ORIGIN), init) : input),
    ...operatorCalls(admin),
    now: () => services.clock.now(),
    stop: () =>
      (stopping ??= (async () => {
        await drawer.stop();
        await worker.stop();
        await renderer.close();
        await services.close();
        rmSync(dir, { recursive: true, force: true });
      })()),
  };
}

/**
 * The request as the server would hand it to the app: Bun builds `request.url` from the Host
 * header, so a request that names another host (a proxy's, a rebinding page's) is addressed there.
 */
function asServed(request: Request): Request {
  const host = request.headers.get("host");
  if (!host) return request;
  const url = new URL(request.url);
  if (url.host === host.toLowerCase()) return request;
  url.host = host;
  const hasBody = request.method !== "GET" && request.method !== "HEAD";
  return new Request(url, { method: request.method, headers: request.headers, body: hasBody ? request.body : undefined, duplex: "half" } as RequestInit);
}

let accounts = 0;

/**
 * A custom-plan account with room to spare (quota 100, 100 requests a second) unless `input`
 * says otherwise, each with an address of its own.
 */
export async function customAccount(
  s: Pick<InProcessApp, "admin">,
  input: { plan?: string; status?: string; quota?: number; requests_per_second?: number } = {},
): Promise<{ id: string; key: string }> {
  const res = await s.admin("/admin/accounts", {
    json: { email: `routes-${++accounts}@example.com`, plan: "custom", quota: 100, requests_per_second: 100, ...input },
  });
  expect(res.status).toBe(201);
  const body = (await res.json()) as { account_id: string; api_key: string };
  return { id: body.account_id, key: body.api_key };
}

/**
 * An app started before and stopped after the tests of the enclosing scope (the file or a
 * `describe`). What it returns reads through to that app, so use it inside tests (the app exists
 * once the scope's beforeAll has run).
 */
export function useInProcessApp(env: Record<string, string> = {}, options: TestServiceOptions = {}): InProcessApp {
  const fixture = {} as { s: InProcessApp };
  beforeAll(async () => {
    fixture.s = await startInProcessApp(env, options);
  });
  afterAll(() => fixture.s?.stop());
  return new Proxy({} as InProcessApp, { get: (_, key) => Reflect.get(fixture.s, key) });
}

export interface AppWithReceiver {
  s: InProcessApp;
  r: TestReceiver;
}

/**
 * An app that may call loopback (OG_ALLOW_PRIVATE_NETWORKS=1) and a receiver for it to call
 * (a real HTTP server: webhook deliveries leave through real sockets), as useWithReceiver.
 */
export function useAppWithReceiver(): AppWithReceiver {
  return useWithReceiver(() => startInProcessApp({ OG_ALLOW_PRIVATE_NETWORKS: "1" }));
}
