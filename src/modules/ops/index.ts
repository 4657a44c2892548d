/** /healthz (process up), /readyz (the store takes writes; Redis answers when configured), /metrics (Prometheus text). */
import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import type { Metrics } from "../../http/metrics.ts";

export function opsModule(services: Pick<Services, "store" | "logger" | "limiter">, metrics: Metrics) {
  return new Elysia({ name: "module.ops" })
    .get("/healthz", () => ({ status: "ok" }), { detail: { summary: "Liveness", tags: ["Operations"] } })
    .get(
      "/readyz",
      async ({ set }) => {
        let store = true;
        try {
          // A real write: a full disk or a lock held elsewhere is "not ready", not only a lost file.
          await services.store.probe();
        } catch (error) {
          services.logger.warn("readiness probe failed", { error: (error as Error).message });
          store = false;
        }
        // Redis (OG_REDIS_URL) carries the shared rate limit: without it no API request is served.
        const redis = services.limiter.ready ? await services.limiter.ready() : undefined;
        const ready = store && redis !== false;
        if (!ready) {
          set.status = 503;
          set.headers["retry-after"] = "1";
        }
        const status = ready ? "ready" : store ? "redis unavailable" : "store unavailable";
        // Without Redis the status alone says it all; with it, name each dependency.
        if (redis === undefined) return { status };
        return { status, store: store ? "ok" : "unavailable", store_kind: services.store.kind, redis: redis === undefined ? "not configured" : redis ? "ok" : "unavailable" };
      },
      { detail: { summary: "Readiness: the store takes writes", tags: ["Operations"] } },
    )
    .get("/metrics", async () => new Response(await metrics.render(), { headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8" } }), {
      detail: { summary: "Prometheus metrics", tags: ["Operations"] },
    });
}
