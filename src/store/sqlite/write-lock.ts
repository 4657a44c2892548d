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
 * threads before they reach it. So a wait here is bounded: a writer that has waited `maxWaitMs`
 * on one holder (set well above a legitimate hold, which can include SQLite's own busy timeout
 * when another process writes) takes the lock over, and SQLite sorts out the rest as it would
 * without this lock. A thread killed while holding the lock therefore costs the others one
 * bounded wait, not a deadlock. Other processes (the operator CLI, a backup) never see this lock
 * and are met by SQLite's own locking, as before.
 *
 * The lock word and its bounded wait are `LockWord` (lock-word.ts).
 */
import { LockWord } from "../../lock-word.ts";

/** Compare-and-swap tries before sleeping: a write transaction is often over by then. */
const SPINS = 100;

export class SharedWriteLock {
  /** The memory to hand to every thread's store (`StoreOptions.writeLock`). */
  static create(): SharedArrayBuffer {
    // The lock word and its tag counter (lock-word.ts).
    return new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT);
  }

  private readonly word: LockWord;

  /**
   * `maxWaitMs`: how long a writer waits here on one holder before it takes the lock over and
   * goes ahead to SQLite's own; `onTakeover` is told each time.
   */
  constructor(buffer: SharedArrayBuffer, maxWaitMs: number, onTakeover?: () => void) {
    this.word = new LockWord(new Int32Array(buffer, 0, 2), 0, 1, maxWaitMs, SPINS, onTakeover);
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
