/**
 * The persistent render cache: rendered images as files under OG_CACHE_DIR, named by their
 * content address (the same SHA-256 key as the in-memory cache, which stays in front of this
 * one), bounded by OG_CACHE_MAX_BYTES with the least recently used files evicted first.
 *
 * - Layout: `<dir>/<first two hex digits>/<key>.img`, so no directory grows past a few
 *   thousand entries.
 * - Each file is a 48-byte header — "OGC1", the body length (u32 BE), the number of characters
 *   no font had (u32 BE), 4 reserved bytes, the SHA-256 of what follows — then those characters'
 *   code points (u32 BE each), then the image. The code points travel with the image so that a
 *   hit after a restart reports the same missing glyphs as the render did. A read checks the
 *   magic, the lengths and the digest, so a truncated, partly written or bit-flipped file is a
 *   miss: it is deleted and the image rendered again, never served. The key alone could not
 *   tell: it addresses the request, not the bytes. (Files written before the code points were
 *   stored have 0 there and read as before.)
 * - Writes go to a temp file in the same directory and are renamed over the final name, so a
 *   reader (or a crash) never sees half a file under a real name.
 * - Last use is tracked in memory (an LRUCache of the files' sizes, bounded by their sum: a hit
 *   makes its key the most recent, and what it evicts is unlinked) and mirrored to the file's mtime, which is what the start-up scan orders by, so
 *   the order survives a restart without a database. The mtime update after a hit is not
 *   awaited: losing one to a crash only makes that file look older. (Wall-clock time on
 *   purpose: mtimes are the file system's clock, not the service's test clock.)
 * - Disk trouble (full, read-only, permissions) is logged and the cache steps aside; a request
 *   never fails because of it.
 */
import { mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { rename, rm, unlink, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { LRUCache } from "lru-cache";
import type { Logger } from "../../logger.ts";

const MAGIC = 0x4f474331; // "OGC1"
export const HEADER_BYTES = 48;
const KEY_PATTERN = /^[0-9a-f]{64}$/;
const FILE_PATTERN = /^([0-9a-f]{64})\.img$/;
/** More missing characters than any card can have: a header claiming more is corrupt. */
const MAX_MISSING_GLYPHS = 1 << 16;

/** A cached image and the characters no font had when it was rendered (drawn as boxes). */
export interface CachedImage {
  bytes: Uint8Array;
  missingGlyphs: number[];
}

export const DEFAULT_CACHE_MAX_BYTES = 1024 * 1024 * 1024;

export interface DiskCacheStats {
  entries: number;
  bytes: number;
  maxBytes: number;
  hits: number;
  misses: number;
  /** Files that failed verification and were removed. */
  corrupt: number;
  evicted: number;
}

export interface DiskCacheOptions {
  dir: string;
  maxBytes?: number;
  logger: Logger;
}

interface Entry {
  /** File size on disk, header included: what the bound counts. */
  size: number;
  /** When the file's mtime was last set (ms), to update it at most once a minute per file. */
  mtimeMs: number;
}

/** A hit served from the in-memory cache in front refreshes the file's mtime at most this often. */
const MTIME_REFRESH_MS = 60_000;

export class DiskCache {
  readonly dir: string;
  readonly maxBytes: number;
  private readonly logger: Logger;
  /** The files by key, bounded by their sizes: the least recently used are evicted, and their files unlinked. */
  private readonly index: LRUCache<string, Entry>;
  private readonly counters = { hits: 0, misses: 0, corrupt: 0, evicted: 0 };
  private readonly pending = new Set<Promise<unknown>>();
  private tmpCounter = 0;

  /** Scans `dir` (creating it if needed) and rebuilds the index from the files' sizes and mtimes. */
  constructor({ dir, maxBytes = DEFAULT_CACHE_MAX_BYTES, logger }: DiskCacheOptions) {
    this.dir = dir;
    this.maxBytes = maxBytes;
    this.logger = logger;
    this.index = new LRUCache<string, Entry>({
      maxSize: Math.max(1, maxBytes),
      sizeCalculation: (entry) => Math.max(1, entry.size),
      // Only an eviction removes the file: a key forgotten or replaced has no file to remove, or a new one.
      dispose: (_entry, key, reason) => {
        if (reason !== "evict") return;
        this.counters.evicted++;
        this.track(unlink(this.pathOf(key)).catch(() => {}));
      },
    });
    mkdirSync(dir, { recursive: true });
    const found: { key: string; size: number; mtimeMs: number }[] = [];
    for (const shard of readdirSync(dir, { withFileTypes: true })) {
      if (!shard.isDirectory() || !/^[0-9a-f]{2}$/.test(shard.name)) continue;
      const shardDir = join(dir, shard.name);
      for (const name of readdirSync(shardDir)) {
        const path = join(shardDir, name);
        const match = FILE_PATTERN.exec(name);
        if (!match) {
          // A temp file left by a crash mid-write: never renamed, so never valid.
          if (name.endsWith(".tmp")) rmSync(path, { force: true });
          continue;
        }
        try {
          const stat = statSync(path);
          found.push({ key: match[1]!, size: stat.size, mtimeMs: stat.mtimeMs });
        } catch {
          // Gone between readdir and stat (another process evicted it): nothing to index.
        }
      }
    }
    // Oldest first, so that past the bound the least recently used files are the ones evicted.
    found.sort((a, b) => a.mtimeMs - b.mtimeMs);
    for (const file of found) this.index.set(file.key, { size: file.size, mtimeMs: file.mtimeMs });
  }

  get stats(): DiskCacheStats {
    return { entries: this.index.size, bytes: this.index.calculatedSize, maxBytes: this.maxBytes, ...this.counters };
  }

  has(key: string): boolean {
    return this.index.has(key);
  }

  pathOf(key: string): string {
    return join(this.dir, key.slice(0, 2), `${key}.img`);
  }

  /** The verified image stored under `key`, or undefined (absent, unreadable or corrupt). */
  async get(key: string): Promise<CachedImage | undefined> {
    if (!KEY_PATTERN.test(key) || !this.index.has(key)) {
      this.counters.misses++;
      return undefined;
    }
    const path = this.pathOf(key);
    let file: Uint8Array;
    try {
      file = await Bun.file(path).bytes();
    } catch {
      // Removed behind our back (an operator, another process): forget it.
      this.forget(key);
      this.counters.misses++;
      return undefined;
    }
    const stored = verified(file);
    if (!stored) {
      this.counters.corrupt++;
      this.counters.misses++;
      this.logger.warn("render cache file failed verification; removed", { file: path });
      this.forget(key);
      await unlink(path).catch(() => {});
      return undefined;
    }
    this.counters.hits++;
    this.used(key, true);
    return stored;
  }

  /**
   * Marks `key` as used now: for hits the in-memory cache in front answered, so an image that
   * is hot in memory is not the first to leave the disk (and keeps its place after a restart).
   */
  used(key: string, force = false): void {
    const entry = this.index.get(key);
    if (!entry) return;
    const now = Date.now();
    if (force || now - entry.mtimeMs >= MTIME_REFRESH_MS) {
      entry.mtimeMs = now;
      const at = new Date(now);
      this.track(utimes(this.pathOf(key), at, at).catch(() => {}));
    }
  }

  /**
   * Stores `bytes` under `key` (temp file + rename); the index then evicts down to the bound. Resolves
   * when the file is in place; failures are logged, not thrown.
   */
  set(key: string, bytes: Uint8Array, missingGlyphs: readonly number[] = []): Promise<void> {
    if (!KEY_PATTERN.test(key)) return Promise.resolve();
    const size = HEADER_BYTES + 4 * missingGlyphs.length + bytes.byteLength;
    if (size > this.maxBytes) return Promise.resolve();
    const write = (async () => {
      const path = this.pathOf(key);
      const tmp = `${path}.${process.pid}.${++this.tmpCounter}.tmp`;
      try {
        mkdirSync(join(this.dir, key.slice(0, 2)), { recursive: true });
        await writeFile(tmp, withHeader(bytes, missingGlyphs));
        await rename(tmp, path);
      } catch (error) {
        await rm(tmp, { force: true }).catch(() => {});
        this.logger.warn("render cache write failed", { file: path, error: error instanceof Error ? error.message : String(error) });
        return;
      }
      this.index.set(key, { size, mtimeMs: Date.now() });
    })();
    return this.track(write);
  }

  /** Waits for writes, deletions and mtime updates in progress (shutdown, tests). */
  async flush(): Promise<void> {
    while (this.pending.size) await Promise.all([...this.pending]);
  }

  private track<T>(promise: Promise<T>): Promise<T> {
    this.pending.add(promise);
    void promise.finally(() => this.pending.delete(promise));
    return promise;
  }

  private forget(key: string): void {
    this.index.delete(key);
  }
}

function withHeader(body: Uint8Array, missingGlyphs: readonly number[]): Uint8Array {
  const glyphBytes = 4 * missingGlyphs.length;
  const out = new Uint8Array(HEADER_BYTES + glyphBytes + body.byteLength);
  const view = new DataView(out.buffer);
  view.setUint32(0, MAGIC);
  view.setUint32(4, body.byteLength);
  view.setUint32(8, missingGlyphs.length);
  for (const [i, codePoint] of missingGlyphs.entries()) view.setUint32(HEADER_BYTES + 4 * i, codePoint);
  out.set(body, HEADER_BYTES + glyphBytes);
  out.set(new Bun.CryptoHasher("sha256").update(out.subarray(HEADER_BYTES)).digest(), 16);
  return out;
}

/** The image and code points of a well-formed file, or undefined: wrong magic, lengths or digest. */
function verified(file: Uint8Array): CachedImage | undefined {
  if (file.byteLength < HEADER_BYTES) return undefined;
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const missing = view.getUint32(8);
  if (view.getUint32(0) !== MAGIC || missing > MAX_MISSING_GLYPHS || view.getUint32(4) !== file.byteLength - HEADER_BYTES - 4 * missing) return undefined;
  const digest = new Bun.CryptoHasher("sha256").update(file.subarray(HEADER_BYTES)).digest();
  const stored = file.subarray(16, HEADER_BYTES);
  for (let i = 0; i < 32; i++) if (digest[i] !== stored[i]) return undefined;
  const missingGlyphs = Array.from({ length: missing }, (_, i) => view.getUint32(HEADER_BYTES + 4 * i));
  return { bytes: file.subarray(HEADER_BYTES + 4 * missing), missingGlyphs };
}
