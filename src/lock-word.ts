/**
 * A lock in one Int32 of shared memory, for the threads of one server: the HTTP threads' shared
 * rate limits (metering/shared-rate-limit.ts) and their SQLite write lock
 * (store/sqlite/write-lock.ts).
 *
 * The word holds its holder's tag shifted left by one, plus a low bit that says someone waits
 * (0: free). Each `LockWord` has a tag of its own, handed out by a counter in the same shared
 * memory. A taker tries a compare-and-swap, spins a little (the sections guarded are short),
 * then sets the waiter bit and sleeps in `Atomics.wait` until the holder's release, which
 * notifies only when the bit is set.
 *
 * Every wait is bounded: a taker that has seen the same holder for `maxWaitMs` replaces that
 * holder's tag with its own (one compare-and-swap, so only one taker wins) and goes ahead;
 * `takeovers` counts it. The old holder's release then finds another tag and changes nothing, so
 * a takeover lets two threads into the section once, for the old holder's remaining time, and
 * never more. A thread killed while holding the word (Worker.terminate in the middle of a
 * section) therefore costs the others one bounded wait instead of stopping them for good. The
 * deadline restarts whenever the holder changes, so a busy lock handed from thread to thread
 * is never taken over. The caller picks the bound well above any legitimate hold.
 */
const FREE = 0;
const WAITERS = 1;

export class LockWord {
  /** Times a taker waited `maxWaitMs` on one holder and went ahead (that holder gone or stalled). */
  takeovers = 0;
  private readonly mine: number;

  /**
   * `words[index]` is the lock, `words[tagIndex]` the counter that hands out tags (both zero in
   * fresh memory); every LockWord on the same lock must share both.
   */
  constructor(
    private readonly words: Int32Array,
    private readonly index: number,
    tagIndex: number,
    private readonly maxWaitMs: number,
    private readonly spins: number,
    /** Told of each takeover, once the lock is held (a throw from it is ignored). */
    private readonly onTakeover?: () => void,
  ) {
    // Tags 1 … 2^30 − 1, so that tag << 1 stays a positive Int32.
    this.mine = ((Atomics.add(words, tagIndex, 1) % 0x3fff_ffff) + 1) << 1;
  }

  lock(): void {
    const { words, index, mine } = this;
    if (Atomics.compareExchange(words, index, FREE, mine) === FREE) return;
    for (let spin = 0; spin < this.spins; spin++) {
      if (Atomics.load(words, index) === FREE && Atomics.compareExchange(words, index, FREE, mine) === FREE) return;
    }
    let holder = FREE;
    let deadline = 0;
    for (;;) {
      let seen = Atomics.load(words, index);
      if (seen === FREE) {
        // Others may still wait: keep the bit, so that our release wakes the next one.
        if (Atomics.compareExchange(words, index, FREE, mine | WAITERS) === FREE) return;
        continue;
      }
      if ((seen & WAITERS) === 0) {
        if (Atomics.compareExchange(words, index, seen, seen | WAITERS) !== seen) continue;
        seen |= WAITERS;
      }
      const now = performance.now();
      if ((seen & ~WAITERS) !== holder) {
        holder = seen & ~WAITERS;
        deadline = now + this.maxWaitMs;
      }
      if (now >= deadline) {
        if (Atomics.compareExchange(words, index, seen, mine | WAITERS) !== seen) continue;
        this.takeovers++;
        try {
          this.onTakeover?.();
        } catch {
          // Only a notice; the lock is held either way.
        }
        return;
      }
      Atomics.wait(words, index, seen, deadline - now);
    }
  }

  unlock(): void {
    const { words, index, mine } = this;
    for (;;) {
      const seen = Atomics.load(words, index);
      // Taken over meanwhile: the word is the taker's now.
      if ((seen & ~WAITERS) !== mine) return;
      if (Atomics.compareExchange(words, index, seen, FREE) !== seen) continue;
      if (seen & WAITERS) Atomics.notify(words, index, 1);
      return;
    }
  }
}
