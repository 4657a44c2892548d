/**
 * One write lock in shared memory for the SQLite connections of one server's HTTP threads
 * (`OG_HTTP_THREADS`), taken around every write transaction.
 *
 * Why: SQLite itself admits one writer at a time, and a connection that finds the write lock
 * taken waits in SQLite's busy handler, which sleeps in whole milliseconds (1, 2, 5, … ms) on
 * the thread's event loop. Our write transactions last tens of microseconds, so threads that
 * collide would each lose a millisecond or more, and the cached POST's tail grew with every
 * thread. Waiting here instead wakes the next writer the moment the lock is released
 * (`Atomics.notify`).
 *
 * SQLite's lock stays the one that guarantees correctness: this lock only orders our own
 * threads before they reach it. So a wait here is bounded (`maxWaitMs`, the connection's busy
 * timeout): a writer that waited that long goes ahead anyway and takes the lock over, and
 * SQLite sorts out the rest as it would without this lock. A thread killed while holding the
 * lock therefore costs the others one bounded wait, not a deadlock. Other processes (the
 * operator CLI, a backup) never see this lock and are met by SQLite's own locking, as before.
 *
 * The lock word and its bounded wait are `LockWord` (lock-word.ts).
 */
import { LockWord } from "../../lock-word.ts";

/** Compare-and-swap tries before sleeping: a write transaction is often over by then. */
const SPINS = 100;

export class SharedWriteLock {
  /** The memory to hand to every thread's store (`StoreOptions.writeLock`). */
  static create(): SharedArrayBuffer {
    return new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT);
  }

  private readonly word: LockWord;

  /** `maxWaitMs`: how long a writer waits here before it goes ahead to SQLite's own lock. */
  constructor(buffer: SharedArrayBuffer, maxWaitMs: number) {
    this.word = new LockWord(new Int32Array(buffer, 0, 1), 0, maxWaitMs, SPINS);
  }

  /** Writers that waited the whole `maxWaitMs` and went ahead (a holder stuck or gone). */
  get overruns(): number {
    return this.word.takeovers;
  }

  /** Runs a synchronous body holding the lock; the lock is released however the body ends. */
  hold<T>(body: () => T): T {
    this.word.lock();
    try {
      return body();
    } finally {
      this.word.unlock();
    }
  }
}
