/** /healthz (process up), /readyz (the store takes writes; Redis answers when configured), /metrics (Prometheus text, behind a token unless made public). */
import { Elysia, t } from "elysia";
import { mediaBody } from "../../http/error-schema.ts";
import type { Services } from "../../services.ts";
import type { Metrics } from "../../http/metrics.ts";
import { errorResponses } from "../../http/error-schema.ts";

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
/** How often /readyz checks the store and Redis again; answers in between share the last check. */
export const READINESS_REFRESH_MS = 1_000;

const MetricsText = mediaBody(t.String({ maxLength: 10_000_000, description: "Prometheus text exposition format." }), ["text/plain"]);

/**
 * `mayReadMetrics` is the app's metrics gate (src/app/gates/metrics.ts), handed in so that a route
 * imports nothing of the app assembled above it.
 */
export function opsModule(services: Pick<Services, "store" | "logger" | "limiter" | "config">, metrics: Metrics, mayReadMetrics: (request: Request) => void) {
  /** One real check of the store (a write) and of Redis. */
  const check = async () => {
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
    const status = ready ? ("ready" as const) : store ? ("redis unavailable" as const) : ("store unavailable" as const);
    // Without Redis the status alone says it all; with it, name each dependency.
    const body =
      redis === undefined
        ? { status }
        : {
            status,
            store: store ? ("ok" as const) : ("unavailable" as const),
            store_kind: services.store.kind,
            redis: redis ? ("ok" as const) : ("unavailable" as const),
          };
    return { ready, body };
  };
  // Anyone may ask /readyz: at most one check starts per second (real time, like the other
  // bounds that protect the process), and every caller meanwhile shares its answer, so a flood of
  // anonymous probes costs the store one write a second.
  let last: { startedAt: number; answer: ReturnType<typeof check> } | undefined;
  const readiness = () => {
    const now = performance.now();
    if (!last || now - last.startedAt >= READINESS_REFRESH_MS) last = { startedAt: now, answer: check() };
    return last.answer;
  };

  return new Elysia({ name: "module.ops" })
    .get("/healthz", () => ({ status: "ok" as const }), {
      response: { 200: Health },
      detail: { summary: "Liveness", description: "Answers while the process is up.", tags: ["Operations"] },
    })
    .get(
      "/readyz",
      async ({ set }) => {
        const { ready, body } = await readiness();
        if (!ready) {
          set.status = 503;
          set.headers["retry-after"] = "1";
        }
        return body;
      },
      {
        response: { 200: Readiness, 503: Readiness },
        detail: {
          summary: "Readiness",
          description:
            "200 while the store takes writes (a real write is probed), 503 otherwise. Checked at most once a second; answers in between share the last check.",
          tags: ["Operations"],
        },
      },
    )
    .get("/metrics", async () => new Response(await metrics.render(), { headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8" } }), {
      beforeHandle: ({ request }) => mayReadMetrics(request),
      response: { 200: MetricsText, ...errorResponses("UNAUTHORIZED") },
      detail: {
        summary: "Prometheus metrics",
        description:
          "Request counts and durations, the render pool, pending jobs and process metrics. Needs `Authorization: Bearer` with OG_METRICS_TOKEN or OG_ADMIN_TOKEN unless OG_METRICS_PUBLIC is true.",
        tags: ["Operations"],
      },
    });
}
