/**
 * The end-to-end harness (harness.ts) set up for the render-path tests: one custom-plan account
 * with room to spare, a `generate` call with its key, and its usage count. The render knobs that
 * are not configuration (queue length, fetch timeout, an injected loopback-only transport) go
 * through `startTestService`'s `renderer` option; warm-up is off so a test's first render is its own.
 * `startInProcessRenderService` gives the same over the in-process app.
 */
import type { ServiceRenderer, ServiceRendererOptions } from "../../src/render/renderer.ts";
import { testEngine } from "./engines.ts";
import { startTestService } from "./harness.ts";
import { type InProcessApp, startInProcessApp } from "./in-process.ts";

export interface RenderTestService {
  url: string;
  /** What the service runs on (its services, renderer and app); the server itself only when started by `startRenderService`. */
  service: InProcessApp["service"];
  renderer: ServiceRenderer;
  /** A custom-plan account with room to spare. */
  key: string;
  generate(body: Record<string, unknown>): Promise<Response>;
  used(): Promise<number>;
  stop(): Promise<void>;
}

type RenderKnobs = Pick<ServiceRendererOptions, "pool" | "pngCacheBytes" | "fetch">;

/** The real service on port 0 (for tests of the socket: raw requests, connections, the image fetcher's transport). */
export async function startRenderService(env: Record<string, string> = {}, renderer: RenderKnobs = {}): Promise<RenderTestService> {
  return withRenderAccount(await startTestService(renderEnv(env), { renderer: renderOptions(renderer) }));
}

/** The same, in process (test/support/in-process.ts): no socket, the same render processes. */
export async function startInProcessRenderService(env: Record<string, string> = {}, renderer: RenderKnobs = {}): Promise<RenderTestService> {
  return withRenderAccount(await startInProcessApp(renderEnv(env), { renderer: renderOptions(renderer) }));
}

// The real clock: nothing here waits on scheduled jobs, and rendering is timed on the wall clock anyway.
// OG_TEST_ENGINE=takumi runs the render-path tests on takumi (see engines.ts).
const renderEnv = (env: Record<string, string>) => ({ OG_TEST_CLOCK: "0", OG_RENDER_ENGINE: testEngine(), ...env });
const renderOptions = (renderer: RenderKnobs): RenderKnobs => ({ pool: { warmUp: false }, ...renderer });

async function withRenderAccount(s: Pick<InProcessApp, "url" | "service" | "api" | "createAccount" | "stop">): Promise<RenderTestService> {
  const { apiKey: key } = await s.createAccount({ email: "render@example.com", plan: "custom", quota: 1_000_000, requests_per_second: 10_000 });
  return {
    url: s.url,
    service: s.service,
    renderer: s.service.renderer,
    key,
    generate: (body) => s.api("/api/generate", { key, json: body }),
    async used() {
      const usage = await s.api("/api/user/usage", { key });
      return ((await usage.json()) as { used: number }).used;
    },
    stop: () => s.stop(),
  };
}
