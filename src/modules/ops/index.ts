/** /healthz (process up), /readyz (the store takes writes; Redis answers when configured), /metrics (Prometheus text). */
import { Elysia, t } from "elysia";
import { mediaBody } from "../../http/error-schema.ts";
import type { Services } from "../../services.ts";
import type { Metrics } from "../../http/metrics.ts";

const Health = t.Object({ status: t.Literal("ok") }, { title: "Health" });
const Dependency = t.Union([t.Literal("ok"), t.Literal("unavailable")]);
const Readiness = t.Object(
  {
    status: t.Union([t.Literal("ready"), t.Literal("store unavailable"), t.Literal("redis unavailable")]),
    store: t.Optional(Dependency),
    store_kind: t.Optional(t.Union([t.Literal("sqlite"), t.Literal("postgres")])),
    redis: t.Optional(Dependency),
  },
  { title: "Readiness", description: "With OG_REDIS_URL set, each dependency is named; otherwise the status alone." },
);
const MetricsText = mediaBody(t.String({ maxLength: 10_000_000, description: "Prometheus text exposition format." }), ["text/plain"]);

export function opsModule(services: Pick<Services, "store" | "logger" | "limiter">, metrics: Metrics) {
  return new Elysia({ name: "module.ops" })
    .get("/healthz", () => ({ status: "ok" as const }), {
      response: { 200: Health },
      detail: { summary: "Liveness", description: "Answers while the process is up.", tags: ["Operations"] },
    })
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
        return { status, store: store ? "ok" : "unavailable", store_kind: services.store.kind, redis: redis ? "ok" : "unavailable" };
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
