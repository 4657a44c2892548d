/** /admin/* is off (404) unless OG_ADMIN_TOKEN is set; then it takes `Authorization: Bearer <token>`. */
import { timingSafeEqual, createHash } from "node:crypto";
import { ApiError } from "../errors.ts";

export const isAdminPath = (pathname: string) => pathname === "/admin" || pathname.startsWith("/admin/");

/** Compares digests so neither the length nor the content of the token leaks through timing. */
const sameSecret = (a: string, b: string) => timingSafeEqual(createHash("sha256").update(a).digest(), createHash("sha256").update(b).digest());

/** Accepts or refuses a request under /admin. */
export function adminGate(adminToken: string | undefined) {
  return (request: Request): void => {
    if (!adminToken) throw new ApiError("NOT_FOUND", "Not found.");
    const header = request.headers.get("authorization") ?? "";
    const token = header.startsWith("Bearer ") ? header.slice(7).trim() : "";
    if (!token || !sameSecret(token, adminToken)) {
      throw new ApiError("UNAUTHORIZED", "Admin API needs Authorization: Bearer <OG_ADMIN_TOKEN>.", undefined, { "WWW-Authenticate": "Bearer" });
    }
  };
}

/**
 * Who may read /metrics: anyone with OG_METRICS_PUBLIC; otherwise `Authorization: Bearer` with
 * OG_METRICS_TOKEN or the admin token. (The figures name routes, accounts' traffic and the
 * deployment's shape: not for every page a browser on the same network happens to load.)
 */
export function metricsGate(config: { metricsToken: string | undefined; adminToken: string | undefined; metricsPublic: boolean }) {
  const tokens = [config.metricsToken, config.adminToken].filter((token): token is string => token !== undefined);
  return (request: Request): void => {
    if (config.metricsPublic) return;
    const header = request.headers.get("authorization") ?? "";
    const token = header.startsWith("Bearer ") ? header.slice(7).trim() : "";
    if (token && tokens.some((secret) => sameSecret(token, secret))) return;
    const how = tokens.length > 0 ? "Authorization: Bearer <OG_METRICS_TOKEN or OG_ADMIN_TOKEN>" : "OG_METRICS_TOKEN (or OG_METRICS_PUBLIC=true) to be set";
    throw new ApiError("UNAUTHORIZED", `Metrics need ${how}.`, undefined, { "WWW-Authenticate": "Bearer" });
  };
}
