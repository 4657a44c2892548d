/** /healthz (process up), /readyz (the store takes writes), /metrics (Prometheus text). */
import { Elysia, t } from "elysia";
import { mediaBody } from "../../http/error-schema.ts";
import type { Services } from "../../services.ts";
import type { Metrics } from "../../http/metrics.ts";

const Health = t.Object({ status: t.Literal("ok") }, { title: "Health" });
const Readiness = t.Object({ status: t.Union([t.Literal("ready"), t.Literal("store unavailable")]) }, { title: "Readiness" });
const MetricsText = mediaBody(t.String({ maxLength: 10_000_000, description: "Prometheus text exposition format." }), ["text/plain"]);

export function opsModule(services: Pick<Services, "store" | "logger">, metrics: Metrics) {
  return new Elysia({ name: "module.ops" })
    .get("/healthz", () => ({ status: "ok" as const }), {
      response: { 200: Health },
      detail: { summary: "Liveness", description: "Answers while the process is up.", tags: ["Operations"] },
    })
    .get(
      "/readyz",
      async ({ set }) => {
        try {
          // A real write: a full disk or a lock held elsewhere is "not ready", not only a lost file.
          await services.store.probe();
          return { status: "ready" as const };
        } catch (error) {
          services.logger.warn("readiness probe failed", { error: (error as Error).message });
          set.status = 503;
          set.headers["retry-after"] = "1";
          return { status: "store unavailable" as const };
        }
      },
      {
        response: { 200: Readiness, 503: Readiness },
        detail: { summary: "Readiness", description: "200 while the store takes writes (a real write is probed), 503 otherwise.", tags: ["Operations"] },
      },
    )
    .get("/metrics", async () => new Response(await metrics.render(), { headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8" } }), {
      response: { 200: MetricsText },
      detail: { summary: "Prometheus metrics", description: "Request counts and durations, the render pool, pending jobs and process metrics.", tags: ["Operations"] },
    });
}
