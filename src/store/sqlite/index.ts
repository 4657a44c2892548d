/**
 * The SQLite store: bun:sqlite through drizzle, one connection, one process.
 *
 * Every method body is synchronous and runs in one SQLite transaction (write transactions
 * begin IMMEDIATE, so a read never has to upgrade to a write lock mid-way). Bodies must stay
 * synchronous: drizzle's SQLite transaction commits when the callback returns, so an `async`
 * callback would commit before its awaited writes.
 *
 * Waiting for a lock: bun:sqlite waits synchronously, on the event loop. The connection's busy
 * timeout is therefore short (BUSY_TIMEOUT_MS) and a call that still finds the database locked
 * waits asynchronously and tries again, with backoff, for up to `lockWaitMs`; then it gives up
 * with StoreUnavailableError. Disk full, I/O errors and an unopenable file are reported the
 * same way at once. A failed call has rolled back completely, so retrying it is safe.
 */
import type { StoreOptions } from "../options.ts";
import { StoreUnavailableError } from "../errors.ts";
import type { Store } from "../types.ts";
import { openDatabase } from "./database.ts";
import { classifySqliteError } from "./faults.ts";
import { sqliteStore } from "./store.ts";
import { BACKSTOP_PAGES, CommitSignal } from "./checkpointer.ts";

const DEFAULT_LOCK_WAIT_MS = 3_000;

export async function openSqliteStore(path: string, options: StoreOptions = {}): Promise<Store> {
  let db;
  try {
    db = openDatabase(path);
  } catch (error) {
    const fault = classifySqliteError(error);
    if (fault) throw new StoreUnavailableError(`cannot open the SQLite database at ${path}: ${(error as Error).message}`, fault, 1, { cause: error });
    throw error;
  }
  // The server's checkpoint thread does the checkpoints; this connection only as a backstop.
  if (options.commits) db.$client.exec(`PRAGMA wal_autocheckpoint = ${BACKSTOP_PAGES};`);
  return sqliteStore(db, {
    lockWaitMs: options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS,
    path,
    commits: options.commits && new CommitSignal(options.commits),
  });
}
