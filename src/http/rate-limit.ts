/**
 * Applies a key's per-second rate to one request: sets the RateLimit-* headers and refuses with
 * 429 RATE_LIMIT_EXCEEDED + Retry-After when the window is full. The API gate and the dashboard
 * share the key's one window, so together they never exceed the plan's rate.
 */
import { limitsOf } from "../accounts/plans.ts";
import type { AccountRecord as AccountRow } from "../store/types.ts";
import { ApiError } from "../errors.ts";
import type { RateDecision, RateLimiter } from "../metering/rate-limit.ts";

export async function enforceRateLimit(
  limiter: RateLimiter,
  keyId: string,
  account: Pick<AccountRow, "plan" | "customQuota" | "customRequestsPerSecond">,
  headers: Record<string, unknown>,
  /** The decision when it was already taken for this request (by the key cache's round trip). */
  taken?: RateDecision,
): Promise<void> {
  const limit = limitsOf(account).requestsPerSecond;
  const decision = taken ?? (await limiter.admit(keyId, limit));
  headers["ratelimit-limit"] = String(decision.limit);
  headers["ratelimit-remaining"] = String(decision.remaining);
  headers["ratelimit-reset"] = String(decision.resetSeconds);
  if (!decision.allowed) {
    throw new ApiError(
      "RATE_LIMIT_EXCEEDED",
      `Rate limit exceeded: ${limit} ${limit === 1 ? "request" : "requests"} per second. Retry after ${decision.resetSeconds} s.`,
      undefined,
      {
        "Retry-After": String(decision.resetSeconds),
      },
    );
  }
}
