/** The error envelope and the small schema building blocks every route's OpenAPI entry uses. */
import { t, type TSchema } from "elysia";
import type { SchemaOptions, TLiteral, TUnion } from "@sinclair/typebox";
import type { OpenAPIV3 } from "openapi-types";
import { errorStatus, type ErrorCode } from "../errors.ts";
import { MEDIA_TYPES } from "./openapi.ts";

const ERROR_CODES = Object.keys(errorStatus) as ErrorCode[];

/** One of a fixed list of strings, typed as that union (documented as an `enum`). */
export const OneOf = <const T extends readonly string[]>(values: T, options: SchemaOptions = {}) =>
  t.Union(
    values.map((value) => t.Literal(value)),
    options,
  ) as unknown as TUnion<[TLiteral<T[number]>]>;

/** An ISO 8601 timestamp as the API writes it (`2027-05-01T00:00:00.000Z`). */
export const Timestamp = (description?: string) => t.String({ format: "date-time", maxLength: 32, ...(description ? { description } : {}) });
/** A resource id: a short prefix, `_`, and random letters and digits. */
export const ResourceId = (prefix: string, description?: string) =>
  t.String({ maxLength: 64, pattern: `^${prefix}_[A-Za-z0-9]+$`, description: description ?? `\`${prefix}_…\`` });
/** A non-negative whole number up to `max` (counts, quotas, durations). */
export const Count = (max: number, description?: string) => t.Integer({ minimum: 0, maximum: max, ...(description ? { description } : {}) });
/** Free text the server writes (messages, reasons). */
export const Text = (maxLength: number, description?: string) => t.String({ maxLength, ...(description ? { description } : {}) });

export const ErrorDetail = t.Object(
  {
    field: t.String({ maxLength: 256, description: "The field at fault, as a dotted path (`events.1`)." }),
    message: t.String({ maxLength: 1024 }),
    reason: t.Optional(t.String({ maxLength: 64, description: "For IMAGE_FETCH_FAILED: why the image failed." })),
    line: t.Optional(t.Integer({ minimum: 1, maximum: 1_048_576, description: "For a problem in a template's `html`: the line, 1-based." })),
    column: t.Optional(t.Integer({ minimum: 1, maximum: 1_048_576, description: "For a problem in a template's `html`: the column, 1-based." })),
  },
  { title: "ErrorDetail" },
);

export const ErrorBody = t.Object(
  {
    error: t.Literal(true),
    message: t.String({ maxLength: 4096 }),
    code: t.Union(
      ERROR_CODES.map((code) => t.Literal(code)),
      { description: "Machine-readable code; docs/api.md lists every code with its status." },
    ),
    details: t.Optional(t.Array(ErrorDetail, { maxItems: 1000, description: "Every bad field, when fields are at fault." })),
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

/** A response schema for a binary or text body, with the media types it may have. */
export const mediaBody = <T extends TSchema>(schema: T, mediaTypes: readonly string[]): T => Object.assign(schema, { [MEDIA_TYPES]: [...mediaTypes] });

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

/**
 * `detail.requestBody` of a route that checks its body itself (so one answer lists every bad
 * field, a URL's DNS lookup included) and only documents the schema; the OpenAPI builder
 * (openapi.ts) converts it like any route's `body`.
 */
export function documentedBody(schema: TSchema): OpenAPIV3.RequestBodyObject {
  // A TypeBox schema is JSON Schema; the OpenAPI type only lacks TypeBox's own marker keys.
  return { required: true, content: { "application/json": { schema: schema as unknown as OpenAPIV3.SchemaObject } } };
}
