/**
 * The one error a store throws for operational faults: the database cannot take the work right
 * now (disk full, I/O error, a lock held past a short bound, the server unreachable), but a
 * retry later may succeed. The HTTP layer answers it with 503 and Retry-After: SERVER_BUSY when
 * the reason is `busy` (the store is there but could not take the work in time: a lock held past
 * its bound, too many connections, a timeout against a server that still accepts connections),
 * SERVICE_UNAVAILABLE otherwise. Nothing the request would have changed is changed. Every other
 * error a store throws is a bug.
 */
/** Why a store could not take the work; `busy` alone means it is there but overloaded. */
export type StoreFaultReason = "busy" | "disk_full" | "io_error" | "unreachable";

export class StoreUnavailableError extends Error {
  override name = "StoreUnavailableError";
  constructor(
    /** What failed, for the log (never shown to clients). */
    message: string,
    /** A short machine-readable reason: `busy`, `disk_full`, `io_error`, `unreachable`. */
    readonly reason: StoreFaultReason,
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
