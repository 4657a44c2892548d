/**
 * How a store is opened. A file of its own so that `index.ts`, which chooses the store, and each
 * adapter's opener can both name it without importing each other.
 */
export interface StoreOptions {
  /**
   * How long one call may keep retrying a database locked by another connection before it
   * gives up with StoreUnavailableError (ms; default 3000). The event loop is never blocked for
   * this long: the waits between attempts are asynchronous.
   */
  lockWaitMs?: number;
  /**
   * SQLite: where this connection counts its commits for the server's background checkpoint
   * thread (`CommitSignal.create()`, store/sqlite/checkpointer.ts); it then leaves checkpoints
   * to that thread. PostgreSQL ignores it.
   */
  commits?: SharedArrayBuffer;
}
