/**
 * The per-key sliding-window limiter of `rate-limit.ts`, kept in a SharedArrayBuffer so that the
 * HTTP server's worker threads (one process, one port) share each key's rate and take exactly the
 * decisions one `SlidingWindowLimiter` would take for all of them.
 *
 * Why buckets are exact: only admissions in (now - 1000, now] count, and at millisecond resolution
 * that window holds 1000 distinct instants. A ring of 1000 per-millisecond admission counts,
 * cleared as time moves past each bucket, therefore holds exactly the sliding log's information,
 * whatever the limit, in a fixed 4 KB per key instead of one entry per admission (custom plans
 * allow a million a second). Times are whole milliseconds (`Math.floor` of the clock).
 *
 * Layout: a compact index (hash, length, ring number, newest admission) that lookups probe, and
 * the 4 KB rings, one per index slot, touched only for the key found. Keys are told apart by a
 * 64-bit wyhash plus their length: two live keys merge only on a full 64-bit collision (about
 * 1e-12 with 4096 keys live), which we accept rather than store up to 64 key bytes per slot.
 * The index is open addressing with linear probing. A key idle for a whole window holds nothing,
 * so probes delete such entries as they meet them, shifting later entries of the chain back
 * (backward-shift deletion) so that no lookup ever stops early at a hole and chains stay as short as
 * the live keys make them. A moved entry takes its ring number with it, so no ring is copied.
 *
 * Lock: one `LockWord` (lock-word.ts): a few hundred compare-and-swap spins, then a sleep until
 * the holder's release. The whole look-up, decide and record is inside it, so two threads can
 * never both take the last admission of a window; it allocates nothing and reads the clock
 * inside, so threads see time in lock order. The section takes about a microsecond, so a wait of
 * `STUCK_MS` on one holder means that holder is gone (a thread killed mid-check) or frozen: one
 * waiter then takes the lock over and `onStuck` is told. If the old holder was only frozen, the
 * two share the section once, which can miscount or misplace a key's entry, but only in this
 * memory and only until the key is idle for a window (entries of idle keys are dropped as
 * probes meet them); a lock held for good would stop every API request.
 *
 * Fallback: if every slot holds a key active within the last second, a new key is counted by a
 * thread-local `SlidingWindowLimiter` instead, so no request ever fails on a full table; its limit
 * is then enforced per thread (up to threads × limit in total) until a slot frees up, and
 * `onFull` is called (at most once per 10 s per limiter) so that operators can raise `slots`.
 */
import type { Clock } from "../clock.ts";
import { LockWord } from "../lock-word.ts";
import { decision, type RateDecision, type RateLimiter, SlidingWindowLimiter } from "./rate-limit.ts";

const WINDOW_MS = 1000;
const DEFAULT_SLOTS = 4096;
const SPINS = 200;
/** A wait on the lock this long means its holder is gone (the section takes about 1 µs). */
const STUCK_MS = 1_000;
const FULL_REPORT_INTERVAL_MS = 10_000;
/** Marks a buffer made by `create`, so a wrong buffer fails at attach time, not with odd counts. */
const MAGIC = 0x5357_4c31;

// Header (Int32): lock word, slot count, magic, the lock's tag counter.
const LOCK = 0;
const LOCK_TAGS = 3;
const HEADER_BYTES = 16;
// Index entry (Int32 × 4): hash low, hash high, key length + 1 (0: empty slot), ring number.
const HASH_LO = 0;
const HASH_HI = 1;
const LENGTH = 2;
const RING = 3;
const ENTRY_INTS = 4;


/** The bucket of millisecond `t` (also right for times before the epoch, as in tests). */
const bucketOf = (t: number): number => ((t % WINDOW_MS) + WINDOW_MS) % WINDOW_MS;

function layout(slots: number) {
  const index = HEADER_BYTES;
  const newest = index + slots * ENTRY_INTS * 4;
  const advanced = newest + slots * 8;
  const total = advanced + slots * 8;
  const buckets = total + slots * 4;
  return { index, newest, advanced, total, buckets, bytes: buckets + slots * WINDOW_MS * 4 };
}

export interface SharedWindowLimiterOptions {
  /** Called when a key had to fall back to the per-thread limiter (at most once per 10 s). */
  onFull?: () => void;
  /** Called when the lock was taken over after `STUCK_MS` (its holder gone or frozen). */
  onStuck?: () => void;
}

export class SharedWindowLimiter implements RateLimiter {
  /**
   * Makes the shared memory for `slots` keys live at once (1000 Int32 buckets each: 4096 slots
   * take about 16 MB of address space, resident only as keys use it). Post the buffer to each
   * worker thread and attach a limiter to it there.
   */
  static create(options: { slots?: number } = {}): SharedArrayBuffer {
    const slots = options.slots ?? DEFAULT_SLOTS;
    if (!Number.isInteger(slots) || slots < 1) throw new RangeError("slots must be a positive integer");
    const at = layout(slots);
    const buffer = new SharedArrayBuffer(at.bytes);
    const header = new Int32Array(buffer, 0, HEADER_BYTES / 4);
    header[1] = slots;
    header[2] = MAGIC;
    // Every index slot owns one ring, empty or not; entries move between slots with theirs.
    const index = new Int32Array(buffer, at.index, slots * ENTRY_INTS);
    for (let slot = 0; slot < slots; slot++) index[slot * ENTRY_INTS + RING] = slot;
    return buffer;
  }

  private readonly header: Int32Array;
  private readonly slots: number;
  private readonly index: Int32Array;
  /** Per index slot: ms of the key's newest admission (-Infinity: none yet). */
  private readonly newest: Float64Array;
  /** Per ring: the ms the ring was last advanced to. */
  private readonly advanced: Float64Array;
  /** Per ring: the sum of its buckets, i.e. admissions in the window. */
  private readonly total: Int32Array;
  /** Per ring: 1000 admission counts, bucket `t % 1000` for millisecond t. */
  private readonly buckets: Int32Array;
  private readonly local: SlidingWindowLimiter;
  private readonly lockWord: LockWord;
  private lastFullReport = -Infinity;

  constructor(
    buffer: SharedArrayBuffer,
    private readonly clock: Clock,
    private readonly options: SharedWindowLimiterOptions = {},
  ) {
    this.header = new Int32Array(buffer, 0, HEADER_BYTES / 4);
    const slots = this.header[1]!;
    if (this.header[2] !== MAGIC || buffer.byteLength !== layout(slots).bytes) {
      throw new TypeError("not a buffer made by SharedWindowLimiter.create");
    }
    const at = layout(slots);
    this.slots = slots;
    this.index = new Int32Array(buffer, at.index, slots * ENTRY_INTS);
    this.newest = new Float64Array(buffer, at.newest, slots);
    this.advanced = new Float64Array(buffer, at.advanced, slots);
    this.total = new Int32Array(buffer, at.total, slots);
    this.buckets = new Int32Array(buffer, at.buckets, slots * WINDOW_MS);
    this.local = new SlidingWindowLimiter(clock);
    this.lockWord = new LockWord(this.header, LOCK, LOCK_TAGS, STUCK_MS, SPINS, options.onStuck);
  }

  admit(key: string, limit: number): Promise<RateDecision> {
    return Promise.resolve(this.check(key, limit));
  }

  check(key: string, limit: number): RateDecision {
    // Hashing allocates (a BigInt), so it happens before the lock is taken.
    const hash = Bun.hash.wyhash(key);
    const lo = Number(hash & 0xffff_ffffn) | 0;
    const hi = Number(hash >> 32n) | 0;
    const length = key.length + 1;

    let allowed = false;
    let count = 0;
    let oldest: number | undefined;
    let now = 0;
    let slot = -1;
    this.lockWord.lock();
    try {
      now = Math.floor(this.clock.now());
      slot = this.find(lo, hi, length, now);
      if (slot >= 0) {
        const ring = this.index[slot * ENTRY_INTS + RING]!;
        // Another thread may have read a later clock before us; never move a ring backwards.
        if (this.advanced[ring]! > now) now = this.advanced[ring]!;
        this.advance(ring, now);
        count = this.total[ring]!;
        allowed = count < limit;
        if (allowed) {
          this.buckets[ring * WINDOW_MS + bucketOf(now)]++;
          this.total[ring] = ++count;
          this.newest[slot] = now;
        }
        if (count >= limit) oldest = this.oldestIn(ring, now);
      }
    } finally {
      this.lockWord.unlock();
    }

    if (slot < 0) {
      if (this.options.onFull && now - this.lastFullReport >= FULL_REPORT_INTERVAL_MS) {
        this.lastFullReport = now;
        this.options.onFull();
      }
      return this.local.check(key, limit);
    }
    return decision(allowed, limit, count, oldest, now);
  }

  /**
   * The key's index slot, inserting it if absent; -1 when every slot holds a live key. Expired
   * entries met on the way are deleted, which keeps the key (if present) reachable further on.
   */
  private find(lo: number, hi: number, length: number, now: number): number {
    const index = this.index;
    const slots = this.slots;
    let slot = (lo >>> 0) % slots;
    for (let live = 0; live < slots; ) {
      const at = slot * ENTRY_INTS;
      if (index[at + LENGTH] === 0) {
        index[at + HASH_LO] = lo;
        index[at + HASH_HI] = hi;
        index[at + LENGTH] = length;
        this.newest[slot] = -Infinity;
        // The ring may still hold the counts of a deleted key (total = sum of its buckets).
        const ring = index[at + RING]!;
        if (this.total[ring] !== 0) this.buckets.fill(0, ring * WINDOW_MS, (ring + 1) * WINDOW_MS);
        this.total[ring] = 0;
        this.advanced[ring] = now;
        return slot;
      }
      if (index[at + HASH_LO] === lo && index[at + HASH_HI] === hi && index[at + LENGTH] === length) return slot;
      if (this.newest[slot]! <= now - WINDOW_MS) {
        // Re-examine this slot: the deletion may have moved a later entry of the chain into it.
        this.remove(slot);
        continue;
      }
      live++;
      slot = slot + 1 === slots ? 0 : slot + 1;
    }
    return -1;
  }

  /** Empties `hole`, moving back each later entry of the run that may no longer sit after it. */
  private remove(hole: number): void {
    const index = this.index;
    const slots = this.slots;
    let next = hole;
    for (;;) {
      next = next + 1 === slots ? 0 : next + 1;
      if (next === hole || index[next * ENTRY_INTS + LENGTH] === 0) break;
      const home = (index[next * ENTRY_INTS + HASH_LO]! >>> 0) % slots;
      // The entry stays if its home lies cyclically in (hole, next]: the hole is not on its path.
      const stays = hole <= next ? hole < home && home <= next : hole < home || home <= next;
      if (stays) continue;
      this.swap(hole, next);
      hole = next;
    }
    index[hole * ENTRY_INTS + LENGTH] = 0;
  }

  /** Exchanges two index entries, rings included (the deleted entry's ring goes to the hole). */
  private swap(a: number, b: number): void {
    const index = this.index;
    for (let field = 0; field < ENTRY_INTS; field++) {
      const value = index[a * ENTRY_INTS + field]!;
      index[a * ENTRY_INTS + field] = index[b * ENTRY_INTS + field]!;
      index[b * ENTRY_INTS + field] = value;
    }
    const newest = this.newest[a]!;
    this.newest[a] = this.newest[b]!;
    this.newest[b] = newest;
  }

  /** Moves the ring to `now`, clearing the buckets of the milliseconds that left the window. */
  private advance(ring: number, now: number): void {
    const last = this.advanced[ring]!;
    if (now <= last) return;
    this.advanced[ring] = now;
    // An empty ring has nothing to clear (the usual case for a key seen now and then).
    if (this.total[ring] === 0) return;
    const base = ring * WINDOW_MS;
    if (now - last >= WINDOW_MS) {
      this.buckets.fill(0, base, base + WINDOW_MS);
      this.total[ring] = 0;
    } else {
      // The bucket of each new millisecond t held t - 1000, now outside (now - 1000, now]. Once
      // the total is 0 every bucket is, so the walk can stop there.
      const buckets = this.buckets;
      let total = this.total[ring]!;
      let bucket = bucketOf(last + 1);
      for (let left = (now - last) | 0; left > 0 && total > 0; left--) {
        total -= buckets[base + bucket]!;
        buckets[base + bucket] = 0;
        bucket = bucket + 1 === WINDOW_MS ? 0 : bucket + 1;
      }
      this.total[ring] = total;
    }
  }

  /** The ms of the oldest admission in the window (only needed once the key is at its limit). */
  private oldestIn(ring: number, now: number): number | undefined {
    const base = ring * WINDOW_MS;
    // now - 999 shares its bucket with now + 1; walk the ring forward from there.
    const buckets = this.buckets;
    let bucket = bucketOf(now + 1);
    for (let t = now - WINDOW_MS + 1; t <= now; t++) {
      if (buckets[base + bucket] !== 0) return t;
      bucket = bucket + 1 === WINDOW_MS ? 0 : bucket + 1;
    }
    return undefined;
  }
}
