/**
 * A bounded in-memory LRU for fetched images, keyed by URL, so repeated cards do not
 * refetch their logos. Bounded by total bytes, not entry count, because one 5 MiB logo weighs as
 * much as a thousand avatars. Entries expire after a TTL so a changed logo shows up eventually.
 *
 * The TTL runs on real time (an injectable `now`, not the app's test clock): it protects
 * memory and freshness, it is not business time.
 */
export interface ImageCacheOptions<V> {
  /** Upper bound on the sum of `sizeOf` over all entries. */
  maxBytes: number;
  ttlMs: number;
  sizeOf: (value: V) => number;
  now?: () => number;
}

interface Entry<V> {
  value: V;
  size: number;
  expiresAt: number;
}

export class ImageCache<V> {
  // A Map iterates in insertion order; re-inserting on every hit keeps the least recently
  // used entry first, which is all an LRU needs.
  private readonly entries = new Map<string, Entry<V>>();
  private bytes = 0;
  private readonly now: () => number;

  constructor(private readonly options: ImageCacheOptions<V>) {
    // Monotonic: a wall-clock jump must not expire or resurrect entries.
    this.now = options.now ?? (() => performance.now());
  }

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.remove(key, entry);
      return undefined;
    }
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: V): void {
    const size = this.options.sizeOf(value);
    const previous = this.entries.get(key);
    if (previous) this.remove(key, previous);
    // One value bigger than the whole budget would just evict everything else and then itself.
    if (size > this.options.maxBytes) return;
    this.entries.set(key, { value, size, expiresAt: this.now() + this.options.ttlMs });
    this.bytes += size;
    for (const [oldKey, oldEntry] of this.entries) {
      if (this.bytes <= this.options.maxBytes) break;
      this.remove(oldKey, oldEntry);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  get totalBytes(): number {
    return this.bytes;
  }

  private remove(key: string, entry: Entry<V>): void {
    this.entries.delete(key);
    this.bytes -= entry.size;
  }
}
