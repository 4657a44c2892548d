/**
 * Who may read /metrics: anyone with OG_METRICS_PUBLIC; otherwise `Authorization: Bearer` with
 * OG_METRICS_TOKEN or the admin token. (The figures name routes, accounts' traffic and the
 * deployment's shape: not for every page a browser on the same network happens to load.)
 *
 * Not run in the request hook like the other gates: the /metrics route applies it itself
 * (src/modules/ops, which is handed it), so a worker-role instance's bare ops server, which has
 * no request hook, checks it too, and a method /metrics does not serve stays a 405.
 */
import { ApiError } from "../../errors.ts";
import { bearerToken, sameSecret } from "./bearer.ts";

export function metricsGate(config: { metricsToken: string | undefined; adminToken: string | undefined; metricsPublic: boolean }) {
  const tokens = [config.metricsToken, config.adminToken].filter((token): token is string => token !== undefined);
  return (request: Request): void => {
    if (config.metricsPublic) return;
    const token = bearerToken(request);
    if (token && tokens.some((secret) => sameSecret(token, secret))) return;
    const how = tokens.length > 0 ? "Authorization: Bearer <OG_METRICS_TOKEN or OG_ADMIN_TOKEN>" : "OG_METRICS_TOKEN (or OG_METRICS_PUBLIC=true) to be set";
    throw new ApiError("UNAUTHORIZED", `Metrics need ${how}.`, undefined, { "WWW-Authenticate": "Bearer" });
  };
}
