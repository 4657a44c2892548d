/**
 * The real service (startService on port 0, temp SQLite file) with renderer knobs that are not
 * configuration — queue length, fetch timeout, an injected loopback-only transport — for the
 * end-to-end tests of the render path. Otherwise like harness.ts.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config.ts";
import { silentLogger } from "../../src/logger.ts";
import type { ServiceRenderer, ServiceRendererOptions } from "../../src/render/renderer.ts";
import { startService, type RunningService } from "../../src/serve.ts";
import { ADMIN_TOKEN } from "./harness.ts";

export interface RenderTestService {
  url: string;
  service: RunningService;
  renderer: ServiceRenderer;
  /** A custom-plan account with room to spare. */
  key: string;
  generate(body: Record<string, unknown>): Promise<Response>;
  used(): Promise<number>;
  stop(): Promise<void>;
}

export async function startRenderService(
  env: Record<string, string> = {},
  renderer: Pick<ServiceRendererOptions, "pool" | "pngCacheBytes" | "fetch"> = {},
): Promise<RenderTestService> {
  const dir = mkdtempSync(join(tmpdir(), "ogsmith-render-test-"));
  const config = loadConfig({
    OG_DB_PATH: join(dir, "ogsmith.db"),
    PORT: "0",
    HOST: "127.0.0.1",
    OG_ADMIN_TOKEN: ADMIN_TOKEN,
    OG_BOOTSTRAP: "false",
    OG_LOG_LEVEL: "silent",
    OG_RENDER_WORKERS: "2",
    ...env,
  });
  const service = await startService(config, { logger: silentLogger, print: () => {}, renderer: { pool: { warmUp: false }, ...renderer } });
  const url = service.url;
  const res = await fetch(`${url}/admin/accounts`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ email: "render@example.com", plan: "custom", quota: 1_000_000, requests_per_second: 10_000 }),
  });
  if (res.status !== 201) throw new Error(`account: ${res.status} ${await res.text()}`);
  const key = ((await res.json()) as { api_key: string }).api_key;

  return {
    url,
    service,
    renderer: service.renderer,
    key,
    generate: (body) => fetch(`${url}/api/generate`, { method: "POST", headers: { "x-api-key": key, "content-type": "application/json" }, body: JSON.stringify(body) }),
    async used() {
      const usage = await fetch(`${url}/api/user/usage`, { headers: { "x-api-key": key } });
      return ((await usage.json()) as { used: number }).used;
    },
    async stop() {
      await service.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
