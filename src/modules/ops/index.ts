/** /healthz (process up), /readyz (the store takes writes), /metrics (Prometheus text). */
import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import type { Metrics } from "../../http/metrics.ts";

export function opsModule(services: Pick<Services, "store" | "logger">, metrics: Metrics) {
  return new Elysia({ name: "module.ops" })
    .get("/healthz", () => ({ status: "ok" }), { detail: { summary: "Liveness", tags: ["Operations"] } })
    .get(
      "/readyz",
      async ({ set }) => {
        try {
          // A real write: a full disk or a lock held elsewhere is "not ready", not only a lost file.
          await services.store.probe();
          return { status: "ready" };
        } catch (error) {
          services.logger.warn("readiness probe failed", { error: (error as Error).message });
          set.status = 503;
          set.headers["retry-after"] = "1";
          return { status: "store unavailable" };
        }
      },
      { detail: { summary: "Readiness: the store takes writes", tags: ["Operations"] } },
    )
    .get("/metrics", async () => new Response(await metrics.render(), { headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8" } }), {
      detail: { summary: "Prometheus metrics", tags: ["Operations"] },
    });
}
