/**
 * The one failure type of outbound requests. Callers map `reason` to their own face:
 * fetchImage to 422 IMAGE_FETCH_FAILED details, webhook delivery to the attempt's `error`.
 * Messages are safe to show to the user who supplied the URL: they name the blocked range,
 * never the internal address it resolved to (that goes to `address`, for logs).
 */
export type OutboundReason = "invalid_url" | "blocked_address" | "network_error" | "timeout" | "too_large" | "too_many_redirects";

export class OutboundError extends Error {
  constructor(
    readonly reason: OutboundReason,
    message: string,
    /** The address involved, for logs only. */
    readonly address?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "OutboundError";
  }
}
