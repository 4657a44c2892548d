/**
 * The one error a store throws for operational faults: the database cannot take the work right
 * now (disk full, I/O error, a lock held past a short bound, the server unreachable), but a
 * retry later may succeed. The HTTP layer answers it with 503 SERVICE_UNAVAILABLE and
 * Retry-After; nothing the request would have changed is changed. Every other error a store
 * throws is a bug.
 */
export class StoreUnavailableError extends Error {
  override name = "StoreUnavailableError";
  constructor(
    /** What failed, for the log (never shown to clients). */
    message: string,
    /** A short machine-readable reason: `disk_full`, `io_error`, `locked`, `unreachable`, … */
    readonly reason: string,
    /** Seconds a client should wait before retrying. */
    readonly retryAfterSeconds = 1,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export const isStoreUnavailable = (error: unknown): error is StoreUnavailableError => error instanceof StoreUnavailableError;

/** The driver's error code (`SQLITE_BUSY`, `40P01`, `ECONNREFUSED`, …), or "" when there is none. */
export const driverErrorCode = (error: unknown): string =>
  typeof error === "object" && error !== null ? String((error as { code?: unknown }).code ?? "") : "";
