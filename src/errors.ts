/**
 * The closed set of error codes (listed in docs/api.md) and the one error type every face throws.
 * HTTP maps it to the envelope `{error: true, message, code, details?}`; the CLI prints the message.
 */
export const errorStatus = {
  MISSING_API_KEY: 401,
  INVALID_API_KEY: 401,
  UNAUTHORIZED: 401,
  INVALID_SIGNATURE: 401,
  SUBSCRIPTION_CANCELED: 403,
  PAYMENT_PAST_DUE: 403,
  FORBIDDEN: 403,
  RATE_LIMIT_EXCEEDED: 429,
  QUOTA_EXCEEDED: 429,
  INVALID_JSON: 400,
  VALIDATION_ERROR: 400,
  UNKNOWN_TEMPLATE: 400,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  IMAGE_FETCH_FAILED: 422,
  RENDER_FAILED: 422,
  NOT_FOUND: 404,
  WEBHOOK_NOT_FOUND: 404,
  TEMPLATE_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  URL_EXPIRED: 410,
  URI_TOO_LONG: 414,
  MISDIRECTED_REQUEST: 421,
  SERVER_BUSY: 503,
  SERVICE_UNAVAILABLE: 503,
  INTERNAL_ERROR: 500,
} as const;

export type ErrorCode = keyof typeof errorStatus;

/** One problem with one input field; `field` is a dotted path such as `events.1`. */
export interface FieldProblem {
  field: string;
  message: string;
  /** For IMAGE_FETCH_FAILED: timeout | too_large | not_an_image | unsupported_format | blocked_address | http_error | network_error | too_many_redirects */
  reason?: string;
  /** For a problem in a template's source: where it is, 1-based. */
  line?: number;
  column?: number;
}

export class ApiError extends Error {
  readonly status: number;
  /** Seconds after which a retry may succeed; the HTTP layer sends it as Retry-After. */
  retryAfterSeconds?: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: FieldProblem[],
    /** Extra response headers (HTTP-layer errors only; core errors carry facts such as retryAfterSeconds). */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = "ApiError";
    this.status = errorStatus[code];
  }

  retryAfter(seconds: number): this {
    this.retryAfterSeconds = seconds;
    return this;
  }

  toBody(): ErrorBody {
    return this.details
      ? { error: true, message: this.message, code: this.code, details: this.details }
      : { error: true, message: this.message, code: this.code };
  }
}

export interface ErrorBody {
  error: true;
  message: string;
  code: ErrorCode;
  details?: FieldProblem[];
}

export const validationError = (details: FieldProblem[]): ApiError =>
  new ApiError(
    "VALIDATION_ERROR",
    details.length === 1
      ? `Invalid field ${details[0]!.field}: ${details[0]!.message}`
      : `${details.length} fields are invalid: ${details.map((d) => d.field).join(", ")}`,
    details,
  );

/**
 * An error as it crosses to another thread, where structured cloning keeps no class: an ApiError
 * keeps its code, details and retry hint (a SERVER_BUSY must still say Retry-After), anything
 * else its message and stack.
 */
export interface PlainError {
  code?: ErrorCode;
  message: string;
  details?: FieldProblem[];
  retryAfterSeconds?: number;
  stack?: string;
}

export function toPlainError(error: unknown): PlainError {
  if (error instanceof ApiError) return { code: error.code, message: error.message, details: error.details, retryAfterSeconds: error.retryAfterSeconds };
  return error instanceof Error ? { message: error.message, stack: error.stack } : { message: String(error) };
}

/** The ApiError again, or undefined for an error that was not ours (callers word that one). */
export function apiErrorFrom(plain: PlainError): ApiError | undefined {
  if (!plain.code) return undefined;
  const error = new ApiError(plain.code, plain.message, plain.details);
  return plain.retryAfterSeconds === undefined ? error : error.retryAfter(plain.retryAfterSeconds);
}
