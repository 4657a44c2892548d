/**
 * A lock in one Int32 of shared memory, for the threads of one server: the HTTP threads' shared
 * rate limits (metering/shared-rate-limit.ts) and their SQLite write lock
 * (store/sqlite/write-lock.ts). The word is 0 free, 1 held, 2 held with waiters. A taker tries
 * a compare-and-swap, spins a little (the sections guarded are short), then announces itself and
 * sleeps in `Atomics.wait` until the holder's release wakes it; the holder notifies only when
 * someone waits.
 *
 * Every wait is bounded: after `maxWaitMs` the taker goes ahead as if it held the lock, and
 * `takeovers` counts it. A thread killed while holding the word (Worker.terminate in the middle
 * of a section) then costs the others one bounded wait instead of stopping them for good. The
 * caller picks the bound by what two holders at once would cost it.
 */
const UNLOCKED = 0;
const LOCKED = 1;
const CONTENDED = 2;

export class LockWord {
  /** Times a taker waited `maxWaitMs` and went ahead (a holder gone, or stalled that long). */
  takeovers = 0;

  constructor(
    private readonly words: Int32Array,
    private readonly index: number,
    private readonly maxWaitMs: number,
    private readonly spins: number,
    /** Told of each takeover (after it happened, the lock held). */
    private readonly onTakeover?: () => void,
  ) {}

  lock(): void {
    const { words, index } = this;
    if (Atomics.compareExchange(words, index, UNLOCKED, LOCKED) === UNLOCKED) return;
    for (let spin = 0; spin < this.spins; spin++) {
      if (Atomics.load(words, index) === UNLOCKED && Atomics.compareExchange(words, index, UNLOCKED, LOCKED) === UNLOCKED) return;
    }
    const deadline = performance.now() + this.maxWaitMs;
    while (Atomics.exchange(words, index, CONTENDED) !== UNLOCKED) {
      const left = deadline - performance.now();
      if (left <= 0) {
        // The word says held with waiters, so our unlock wakes the next taker.
        this.takeovers++;
        this.onTakeover?.();
        return;
      }
      Atomics.wait(words, index, CONTENDED, left);
    }
  }

  unlock(): void {
    if (Atomics.exchange(this.words, this.index, UNLOCKED) === CONTENDED) Atomics.notify(this.words, this.index, 1);
  }
}
