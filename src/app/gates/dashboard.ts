/**
 * The dashboard's gate, run in the request hook like the /api gate (`index.ts`, so a
 * bad session is reported before a body is read). In order:
 *   1. every state-changing request under /dashboard carries an Origin equal to this server's
 *      own origin (403 FORBIDDEN otherwise, also when it is missing): the cookie is
 *      SameSite=Strict already, and this closes what SameSite leaves open (sibling subdomains,
 *      older browsers, sign-in CSRF);
 *   2. /dashboard/api/* needs a live session (401 UNAUTHORIZED), except signing in;
 *   3. API-like actions (anything state-changing but signing out) are refused for canceled and
 *      past-due accounts with the API's codes, then pass the account's shared rate limit.
 */
import type { Config } from "../../config.ts";
import { subscriptionBlock } from "../../accounts/access.ts";
import { enforceRateLimit } from "../../http/rate-limit.ts";
import type { SessionService } from "../../sessions/sessions.ts";
import { ApiError } from "../../errors.ts";
import type { RateLimiter } from "../../metering/rate-limit.ts";
import { pathnameOf, requestState } from "../../http/request-context.ts";
import { readCookie, SESSION_COOKIE } from "../../http/session-cookie.ts";

const SIGN_IN_PATH = "/dashboard/api/session";
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export const isDashboardPath = (pathname: string) => pathname === "/dashboard" || pathname.startsWith("/dashboard/");

/**
 * The origins this server answers as. With OG_BASE_URL set, that origin alone (the Host check
 * refused any other Host already): a page on another name that resolves here — DNS rebinding —
 * is not this server. Without it, the origin the request was addressed to (its Host).
 */
export function ownOrigins(request: Request, config: Pick<Config, "publicOrigin">): Set<string> {
  return new Set([config.publicOrigin ?? new URL(request.url).origin]);
}

/** Accepts or refuses a request under /dashboard; `headers` receives the RateLimit-* fields. */
export function dashboardGate(deps: { config: Pick<Config, "publicOrigin">; sessions: SessionService; limiter: RateLimiter }) {
  return async (request: Request, headers: Record<string, unknown>): Promise<void> => {
    const pathname = pathnameOf(request);
    const unsafe = !SAFE_METHODS.has(request.method);
    if (unsafe) {
      const origin = request.headers.get("origin");
      if (!origin) throw new ApiError("FORBIDDEN", "State-changing dashboard requests must carry an Origin header.");
      if (!ownOrigins(request, deps.config).has(origin))
        throw new ApiError("FORBIDDEN", `Cross-origin request refused: ${origin.slice(0, 200)} is not this server.`);
    }
    if (!pathname.startsWith("/dashboard/api/")) return;
    if (pathname === SIGN_IN_PATH && request.method === "POST") return;

    const session = await deps.sessions.resolve(readCookie(request, SESSION_COOKIE));
    if (!session) throw new ApiError("UNAUTHORIZED", "Not signed in, or the session expired. Sign in with your API key.");
    // Read by the dashboard's routes (sessionOf) and the access log.
    requestState(request).session = session;

    if (!unsafe || pathname === SIGN_IN_PATH) return;
    const blocked = subscriptionBlock(session.account);
    if (blocked) throw blocked;
    // The key's own window: previews and API calls together never exceed the plan's rate.
    await enforceRateLimit(deps.limiter, session.keyId, session.account, headers);
  };
}
