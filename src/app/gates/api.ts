/**
 * The /api gate, in the order of docs/api.md: key present → key known and active → subscription
 * → rate limit. It runs in the request hook (`index.ts`), before the body is read, so a client
 * with a bad key or over its rate learns that first and costs no parsing. Validation and quota
 * come later.
 */
import { API_KEY_PATTERN } from "../../accounts/keys.ts";
import { subscriptionBlock } from "../../accounts/access.ts";
import { ApiError } from "../../errors.ts";
import type { Services } from "../../services.ts";
import { enforceRateLimit } from "../../http/rate-limit.ts";
import { requestState } from "../../http/request-context.ts";

export const isApiPath = (pathname: string) => pathname === "/api" || pathname.startsWith("/api/");

/** Accepts or refuses a request under /api; `headers` receives the RateLimit-* fields. */
export function apiGate(services: Pick<Services, "accounts" | "limiter">) {
  return async (request: Request, headers: Record<string, unknown>): Promise<void> => {
    const key = request.headers.get("x-api-key")?.trim();
    if (!key) throw new ApiError("MISSING_API_KEY", "Missing API key. Send it in the X-API-Key header.");
    const found = API_KEY_PATTERN.test(key) ? await services.accounts.admitKey(key) : undefined;
    if (!found) throw new ApiError("INVALID_API_KEY", "Invalid API key.");
    const blocked = subscriptionBlock(found.account);
    if (blocked) throw blocked;
    await enforceRateLimit(services.limiter, found.keyId, found.account, headers, found.decision);
    requestState(request).auth = found;
  };
}
