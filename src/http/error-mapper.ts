/**
 * The one place errors become responses (the envelope of docs/api.md): our ApiError as is (its facts named as headers here),
 * the framework's errors mapped onto our codes, a store that cannot take the work a 503, anything
 * else a 500 whose body says nothing and whose log says all.
 */
import { ApiError, type FieldProblem } from "../errors.ts";
import { describeError, type Logger } from "../logger.ts";
import { QuotaExceededError } from "../metering/quota.ts";
import type { StoreUnavailableError } from "../store/errors.ts";

export type HeaderBag = Record<string, string | number | undefined>;

export function jsonError(error: ApiError, headers: HeaderBag = {}): Response {
  const out = new Headers();
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) out.set(name, String(value));
  for (const [name, value] of Object.entries(error.headers ?? {})) out.set(name, value);
  if (error.retryAfterSeconds !== undefined) out.set("Retry-After", String(error.retryAfterSeconds));
  if (error instanceof QuotaExceededError) {
    out.set("X-Quota-Limit", String(error.quota));
    out.set("X-Quota-Remaining", "0");
  }
  out.set("content-type", "application/json; charset=utf-8");
  out.set("cache-control", "no-store");
  return new Response(JSON.stringify(error.toBody()), { status: error.status, headers: out });
}

/** `/events/1` → `events.1`; the property named in an additional-property error. */
function fieldOf(issue: { path: string; message: string; schema?: unknown; value?: unknown }): string {
  const path = issue.path.replace(/^\//, "").replace(/\//g, ".");
  return path || "body";
}

/** Elysia's (TypeBox's) validation issues → one problem per field, every bad field listed. */
export function validationProblems(
  issues: {
    path: string;
    message: string;
    type?: number;
    value?: unknown;
    schema?: { additionalProperties?: unknown; properties?: Record<string, unknown>; error?: unknown };
  }[],
  value: unknown,
): FieldProblem[] {
  const problems = new Map<string, string>();
  for (const issue of issues) {
    const field = fieldOf(issue);
    let message = issue.message;
    // Additional properties are reported on the parent object: name each unknown field instead.
    if (issue.schema && issue.schema.additionalProperties === false && typeof issue.value === "object" && issue.value !== null) {
      const allowed = new Set(Object.keys(issue.schema.properties ?? {}));
      const unknown = Object.keys(issue.value as object).filter((key) => !allowed.has(key));
      if (unknown.length > 0) {
        for (const name of unknown) problems.set(field === "body" ? name : `${field}.${name}`, "is not a known field");
        continue;
      }
    }
    if (/required property/i.test(message)) message = "is required";
    else if (/unexpected property/i.test(message)) message = "is not a known field";
    else if (issue.schema?.error) message = String(issue.schema.error);
    else message = lowerFirst(message);
    if (!problems.has(field)) problems.set(field, message);
  }
  if (problems.size === 0) problems.set("body", typeof value === "object" ? "is invalid" : "must be a JSON object");
  return [...problems].map(([field, message]) => ({ field, message }));
}

const lowerFirst = (text: string) => text.charAt(0).toLowerCase() + text.slice(1);

/**
 * The store cannot take the work now: 503, nothing changed. Overloaded (`busy`: locked past the
 * bound, too many connections, a timeout while the server still accepts connections) is
 * SERVER_BUSY, like a full render queue; an outage (unreachable, disk full, I/O error) is
 * SERVICE_UNAVAILABLE. Both say Retry-After.
 */
export function unavailableError(error: StoreUnavailableError, logger: Logger, requestId: string | undefined): ApiError {
  logger.warn("store unavailable", { request_id: requestId, reason: error.reason, error: error.message });
  if (error.reason === "busy") {
    return new ApiError("SERVER_BUSY", "The service is too busy to take this request right now. Nothing was changed; retry shortly.").retryAfter(
      error.retryAfterSeconds,
    );
  }
  return new ApiError("SERVICE_UNAVAILABLE", "The service cannot take this request right now. Nothing was changed; retry shortly.").retryAfter(
    error.retryAfterSeconds,
  );
}

export function unexpectedError(error: unknown, logger: Logger, requestId: string | undefined): ApiError {
  logger.error("unhandled error", { request_id: requestId, ...describeError(error) });
  return new ApiError("INTERNAL_ERROR", "Internal server error. The request id identifies it in the server log.");
}
