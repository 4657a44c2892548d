/**
 * The request gates, one per protected prefix: /api (API key, `api.ts`), /admin (operator token,
 * `admin.ts`) and /dashboard (session, `dashboard.ts`). They run in a single `onRequest` hook, before any body is read, and the
 * path picks at most one of them. (They were one framework hook each: every awaited hook costs
 * a promise and a turn on every request, gated or not; measured A/B on an authenticated GET.)
 */
import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { pathnameOf } from "../../http/request-context.ts";
import { adminGate, isAdminPath } from "./admin.ts";
import { apiGate, isApiPath } from "./api.ts";
import { dashboardGate, isDashboardPath } from "./dashboard.ts";

export { metricsGate } from "./metrics.ts";

export function requestGates(services: Pick<Services, "accounts" | "limiter" | "sessions" | "config">) {
  const api = apiGate(services);
  const admin = adminGate(services.config.adminToken);
  const dashboard = dashboardGate({ config: services.config, sessions: services.sessions, limiter: services.limiter });
  return new Elysia({ name: "request-gates" }).onRequest(async ({ request, set }) => {
    const pathname = pathnameOf(request);
    if (isApiPath(pathname)) await api(request, set.headers);
    else if (isAdminPath(pathname)) admin(request);
    else if (isDashboardPath(pathname)) await dashboard(request, set.headers);
  });
}
