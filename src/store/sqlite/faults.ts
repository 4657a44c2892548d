/** Which SQLite errors are operational faults (the database cannot take the work now) rather than bugs. */
import { driverErrorCode } from "../errors.ts";

/** `locked`: worth retrying shortly; the others: report at once; undefined: not operational (a bug). */
export function classifySqliteError(error: unknown): "locked" | "disk_full" | "io_error" | "unreachable" | undefined {
  const code = driverErrorCode(error);
  if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) return "locked";
  if (code === "SQLITE_FULL") return "disk_full";
  if (code.startsWith("SQLITE_IOERR")) return "io_error";
  if (code.startsWith("SQLITE_CANTOPEN") || code.startsWith("SQLITE_READONLY") || code === "SQLITE_PROTOCOL" || code === "SQLITE_NOTADB") return "unreachable";
  return undefined;
}
