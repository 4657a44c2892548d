/**
 * The operator CLI speaks in flags: a validation problem the core names by its API field
 * (`requests_per_second`) is reported under the flag the operator typed (`--rps`).
 */
import { ApiError } from "../errors.ts";

const ACCOUNT_FLAGS: Record<string, string> = {
  email: "--email",
  plan: "--plan",
  status: "--status",
  quota: "--quota",
  requests_per_second: "--rps",
};

export function inFlagTerms(error: unknown): unknown {
  if (!(error instanceof ApiError) || !error.details?.length) return error;
  const details = error.details.map((d) => ({ ...d, field: ACCOUNT_FLAGS[d.field] ?? d.field }));
  const message = details.length === 1 ? `invalid ${details[0]!.field}: ${details[0]!.message}` : `invalid ${details.map((d) => d.field).join(", ")}`;
  return new ApiError(error.code, message, details, error.headers);
}
