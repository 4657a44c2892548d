/** /healthz (process up), /readyz (database reachable), /metrics (Prometheus text). */
import { Elysia, t } from "elysia";
import { mediaBody } from "../../http/error-schema.ts";
import type { Services } from "../../services.ts";
import type { Metrics } from "../../http/metrics.ts";

const Health = t.Object({ status: t.Literal("ok") }, { title: "Health" });
const Readiness = t.Object({ status: t.Union([t.Literal("ready"), t.Literal("database unreachable")]) }, { title: "Readiness" });
const MetricsText = mediaBody(t.String({ maxLength: 10_000_000, description: "Prometheus text exposition format." }), ["text/plain"]);

export function opsModule(services: Pick<Services, "db">, metrics: Metrics) {
  return new Elysia({ name: "module.ops" })
    .get("/healthz", () => ({ status: "ok" as const }), {
      response: { 200: Health },
      detail: { summary: "Liveness", description: "Answers while the process is up.", tags: ["Operations"] },
    })
    .get(
      "/readyz",
      ({ set }) => {
        try {
          services.db.$client.query("SELECT 1").get();
          return { status: "ready" as const };
        } catch {
          set.status = 503;
          return { status: "database unreachable" as const };
        }
      },
      {
        response: { 200: Readiness, 503: Readiness },
        detail: { summary: "Readiness", description: "200 while the database answers, 503 otherwise.", tags: ["Operations"] },
      },
    )
    .get("/metrics", async () => new Response(await metrics.render(), { headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8" } }), {
      response: { 200: MetricsText },
      detail: { summary: "Prometheus metrics", description: "Request counts and durations, the render pool, pending jobs and process metrics.", tags: ["Operations"] },
    });
}
