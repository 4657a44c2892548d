/** Which SQLite errors are operational faults (the database cannot take the work now) rather than bugs. */
import { driverErrorCode, type StoreFaultReason } from "../errors.ts";

/**
 * `busy` (the database is locked by another connection): worth retrying shortly, and still busy
 * past the bound it is an overload (503 SERVER_BUSY); the others: report at once; undefined: not
 * operational (a bug).
 */
export function classifySqliteError(error: unknown): StoreFaultReason | undefined {
  const code = driverErrorCode(error);
  if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) return "busy";
  if (code === "SQLITE_FULL") return "disk_full";
  if (code.startsWith("SQLITE_IOERR")) return "io_error";
  if (code.startsWith("SQLITE_CANTOPEN") || code.startsWith("SQLITE_READONLY") || code === "SQLITE_PROTOCOL" || code === "SQLITE_NOTADB") return "unreachable";
  return undefined;
}
