/** The error envelope as a TypeBox schema, for the OpenAPI document of every route. */
import { t } from "elysia";
import { errorStatus, type ErrorCode } from "../errors.ts";

export const ErrorBody = t.Object(
  {
    error: t.Literal(true),
    message: t.String(),
    code: t.String({ description: "Machine-readable code; see the README's error table." }),
    details: t.Optional(
      t.Array(
        t.Object({
          field: t.String(),
          message: t.String(),
          reason: t.Optional(t.String()),
        }),
      ),
    ),
  },
  { title: "Error" },
);

/** `response` entries for the given codes, grouped by status, with the codes named in the description. */
export function errorResponses(...codes: ErrorCode[]) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of [...codes, "INTERNAL_ERROR" as const]) {
    const status = errorStatus[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<number, typeof ErrorBody> = {};
  for (const [status, list] of byStatus) {
    out[status] = t.Object(ErrorBody.properties, { title: "Error", description: `Error: ${[...new Set(list)].join(", ")}` }) as typeof ErrorBody;
  }
  return out;
}

/** The codes every authenticated /api route can answer before its own work starts. */
export const API_AUTH_ERRORS: ErrorCode[] = [
  "MISSING_API_KEY",
  "INVALID_API_KEY",
  "SUBSCRIPTION_CANCELED",
  "PAYMENT_PAST_DUE",
  "RATE_LIMIT_EXCEEDED",
  // The key is looked up in the store, which may be unable to answer (disk, lock, network).
  "SERVICE_UNAVAILABLE",
];
