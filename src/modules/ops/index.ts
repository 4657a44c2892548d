/** /healthz (process up), /readyz (database reachable), /metrics (Prometheus text). */
import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import type { Metrics } from "../../http/metrics.ts";

export function opsModule(services: Pick<Services, "db">, metrics: Metrics) {
  return new Elysia({ name: "module.ops" })
    .get("/healthz", () => ({ status: "ok" }), { detail: { summary: "Liveness", tags: ["Operations"] } })
    .get(
      "/readyz",
      ({ set }) => {
        try {
          services.db.$client.query("SELECT 1").get();
          return { status: "ready" };
        } catch {
          set.status = 503;
          return { status: "database unreachable" };
        }
      },
      { detail: { summary: "Readiness: the database answers", tags: ["Operations"] } },
    )
    .get("/metrics", async () => new Response(await metrics.render(), { headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8" } }), {
      detail: { summary: "Prometheus metrics", tags: ["Operations"] },
    });
}
