/**
 * The byte-bounded in-memory LRU both image caches use: fetched images by URL (fetch-image.ts),
 * so repeated cards do not refetch their logos, and rendered images by content address
 * (../caches/png-cache.ts). Bounded by total bytes, not entry count, because one 5 MiB logo
 * weighs as much as a thousand avatars. Fetched images expire after a TTL so a changed logo
 * shows up eventually; a rendered image never goes stale (its key is its content).
 *
 * The TTL runs on real time (an injectable `now`, not the app's test clock): it protects
 * memory and freshness, it is not business time.
 */
import { LRUCache } from "lru-cache";

export interface ImageCacheOptions<V> {
  /** Upper bound on the sum of `sizeOf` over all entries; a value larger than this alone is not kept. */
  maxBytes: number;
  /** How long an entry is served after it was set; none when absent. */
  ttlMs?: number;
  sizeOf: (value: V) => number;
  /** Monotonic milliseconds (default `performance.now`): a wall-clock jump must not expire or resurrect entries. */
  now?: () => number;
}

export type ImageCache<V extends {}> = LRUCache<string, V>;

export function createByteBoundedCache<V extends {}>(options: ImageCacheOptions<V>): ImageCache<V> {
  const now = options.now ?? (() => performance.now());
  return new LRUCache<string, V>({
    maxSize: options.maxBytes,
    // lru-cache counts sizes as positive integers.
    sizeCalculation: (value) => Math.max(1, Math.ceil(options.sizeOf(value))),
    ...(options.ttlMs === undefined
      ? {}
      : {
          ttl: options.ttlMs,
          // Read the clock on every check rather than reuse a reading for a millisecond (the
          // default), so an injected clock's next value applies at once.
          ttlResolution: 0,
          // lru-cache takes a start time of 0 for "set without a TTL"; a clock that starts at 0
          // (a test's) is read one millisecond later, which moves both ends of every interval alike.
          perf: { now: () => now() + 1 },
        }),
  });
}
