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
 * Lock word: 0 free, 1 held, 2 held with waiters (the holder notifies only then).
 */
const LOCK = 0;
const UNLOCKED = 0;
const LOCKED = 1;
const CONTENDED = 2;
/** Compare-and-swap tries before sleeping: a write transaction is often over by then. */
const SPINS = 100;

export class SharedWriteLock {
  /** The memory to hand to every thread's store (`StoreOptions.writeLock`). */
  static create(): SharedArrayBuffer {
    return new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT);
  }

  private readonly word: Int32Array;
  /** Writers that waited the whole `maxWaitMs` and went ahead (a holder stuck or gone). */
  overruns = 0;

  constructor(
    buffer: SharedArrayBuffer,
    private readonly maxWaitMs: number,
  ) {
    this.word = new Int32Array(buffer, 0, 1);
  }

  /** Runs a synchronous body holding the lock; the lock is released however the body ends. */
  hold<T>(body: () => T): T {
    this.acquire();
    try {
      return body();
    } finally {
      this.release();
    }
  }

  private acquire(): void {
    const word = this.word;
    if (Atomics.compareExchange(word, LOCK, UNLOCKED, LOCKED) === UNLOCKED) return;
    for (let spin = 0; spin < SPINS; spin++) {
      if (Atomics.load(word, LOCK) === UNLOCKED && Atomics.compareExchange(word, LOCK, UNLOCKED, LOCKED) === UNLOCKED) return;
    }
    const deadline = performance.now() + this.maxWaitMs;
    // Announce a waiter (so the holder notifies), then sleep until woken or out of time.
    while (Atomics.exchange(word, LOCK, CONTENDED) !== UNLOCKED) {
      const left = deadline - performance.now();
      if (left <= 0) {
        // Held for longer than any of our transactions takes: go ahead as the holder (the word
        // says held, with waiters, so our release wakes the next one).
        this.overruns++;
        return;
      }
      Atomics.wait(word, LOCK, CONTENDED, left);
    }
  }

  private release(): void {
    if (Atomics.exchange(this.word, LOCK, UNLOCKED) === CONTENDED) Atomics.notify(this.word, LOCK, 1);
  }
}
