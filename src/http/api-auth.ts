/**
 * The /api gate, in the order of DESIGN §3: key present → key known and active → subscription
 * → rate limit. It runs in `onRequest`, before the body is read, so a client with a bad key or
 * over its rate learns that first and costs no parsing. Validation and quota come later.
 */
import { Elysia } from "elysia";
import { API_KEY_PATTERN } from "../accounts/keys.ts";
import { limitsOf } from "../accounts/plans.ts";
import { ApiError } from "../errors.ts";
import type { Services } from "../services.ts";
import { requestState } from "./request-context.ts";

export const isApiPath = (pathname: string) => pathname === "/api" || pathname.startsWith("/api/");

export function apiAuth(services: Pick<Services, "accounts" | "limiter">) {
  return new Elysia({ name: "api-auth" }).onRequest(({ request, set }) => {
    const pathname = new URL(request.url).pathname;
    if (!isApiPath(pathname)) return;
    const key = request.headers.get("x-api-key")?.trim();
    if (!key) throw new ApiError("MISSING_API_KEY", "Missing API key. Send it in the X-API-Key header.");
    const found = API_KEY_PATTERN.test(key) ? services.accounts.findByKey(key) : undefined;
    if (!found) throw new ApiError("INVALID_API_KEY", "Invalid API key.");
    const { account } = found;
    if (account.status === "canceled") throw new ApiError("SUBSCRIPTION_CANCELED", "The subscription of this account is inactive.");
    if (account.status === "past_due") throw new ApiError("PAYMENT_PAST_DUE", "The last payment of this account failed. Update the payment method to continue.");

    const limit = limitsOf(account).requestsPerSecond;
    const decision = services.limiter.check(found.keyId, limit);
    set.headers["ratelimit-limit"] = String(decision.limit);
    set.headers["ratelimit-remaining"] = String(decision.remaining);
    set.headers["ratelimit-reset"] = String(decision.resetSeconds);
    if (!decision.allowed) {
      throw new ApiError("RATE_LIMIT_EXCEEDED", `Rate limit exceeded: ${limit} requests per second. Retry after ${decision.resetSeconds} s.`, undefined, {
        "Retry-After": String(decision.resetSeconds),
      });
    }
    requestState(request).auth = found;
  });
}
