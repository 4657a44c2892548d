/**
 * The persistent render cache on real files in a temp directory: round trip, a restart (a new
 * DiskCache on the same directory), verification of every read (truncated, flipped, lying
 * header: a miss, removed, never returned), the byte bound evicting the least recently used,
 * and last use surviving a restart through mtimes.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, truncateSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "../../../src/logger.ts";
import { DiskCache, HEADER_BYTES } from "../../../src/render/caches/disk-cache.ts";

const key = (n: number) => n.toString(16).padStart(2, "0").repeat(32);
const body = (n: number, size = 1000) => new Uint8Array(size).fill(n);

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "ogsmith-disk-cache-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const open = (maxBytes = 1 << 20) => new DiskCache({ dir, maxBytes, logger: silentLogger });

describe("DiskCache", () => {
  test("keeps the code points no font had with the image: a hit after a restart reports them too", async () => {
    const cache = open();
    await cache.set(key(1), body(1), [0x16a0, 0x13000]);
    await cache.set(key(2), body(2));
    expect(readFileSync(cache.pathOf(key(1))).byteLength).toBe(HEADER_BYTES + 8 + 1000);
    const restarted = open();
    expect(await restarted.get(key(1))).toEqual({ bytes: body(1), missingGlyphs: [0x16a0, 0x13000] });
    expect(await restarted.get(key(2))).toEqual({ bytes: body(2), missingGlyphs: [] });
  });

  test("a changed code point or a count that lies is a miss, removed", async () => {
    const cache = open();
    await cache.set(key(1), body(1), [0x16a0]);
    await cache.set(key(2), body(2), [0x16a0]);
    const path1 = cache.pathOf(key(1));
    const changed = readFileSync(path1);
    changed[HEADER_BYTES + 3] ^= 0x01;
    writeFileSync(path1, changed);
    const path2 = cache.pathOf(key(2));
    const lying = readFileSync(path2);
    lying[11] = 2;
    writeFileSync(path2, lying);
    const restarted = open();
    expect(await restarted.get(key(1))).toBeUndefined();
    expect(await restarted.get(key(2))).toBeUndefined();
    expect(restarted.stats.corrupt).toBe(2);
    expect(existsSync(path1) || existsSync(path2)).toBe(false);
  });

  test("stores by key under a two-digit shard and reads back the same bytes, also after a restart", async () => {
    const cache = open();
    expect(await cache.get(key(1))).toBeUndefined();
    await cache.set(key(1), body(1));
    expect(cache.pathOf(key(1))).toBe(join(dir, "01", `${key(1)}.img`));
    expect(readFileSync(cache.pathOf(key(1))).byteLength).toBe(HEADER_BYTES + 1000);
    expect((await cache.get(key(1)))?.bytes).toEqual(body(1));

    const restarted = open();
    expect(restarted.stats).toMatchObject({ entries: 1, bytes: HEADER_BYTES + 1000 });
    expect((await restarted.get(key(1)))?.bytes).toEqual(body(1));
    expect(restarted.stats.hits).toBe(1);
  });

  test("a truncated file, a flipped byte or a header that lies is a miss, is deleted, and can be stored again", async () => {
    const cache = open();
    for (const n of [1, 2, 3]) await cache.set(key(n), body(n));
    truncateSync(cache.pathOf(key(1)), HEADER_BYTES + 500);
    const flipped = readFileSync(cache.pathOf(key(2)));
    flipped[HEADER_BYTES + 10] ^= 0x01;
    writeFileSync(cache.pathOf(key(2)), flipped);
    const lying = readFileSync(cache.pathOf(key(3)));
    lying.writeUInt32BE(999, 4); // claims 999 bytes of body; 1000 follow
    writeFileSync(cache.pathOf(key(3)), lying);

    const restarted = open();
    for (const n of [1, 2, 3]) {
      expect(await restarted.get(key(n))).toBeUndefined();
      expect(existsSync(restarted.pathOf(key(n)))).toBe(false);
    }
    expect(restarted.stats).toMatchObject({ corrupt: 3, entries: 0, bytes: 0 });
    await restarted.set(key(1), body(1));
    expect((await restarted.get(key(1)))?.bytes).toEqual(body(1));
  });

  test("a file removed behind the cache's back is a miss, not an error", async () => {
    const cache = open();
    await cache.set(key(4), body(4));
    rmSync(cache.pathOf(key(4)));
    expect(await cache.get(key(4))).toBeUndefined();
    expect(cache.stats.entries).toBe(0);
  });

  test("the bound evicts the least recently used first: a read counts as use", async () => {
    const entry = HEADER_BYTES + 1000;
    const cache = open(3 * entry);
    for (const n of [1, 2, 3]) await cache.set(key(n), body(n));
    expect((await cache.get(key(1)))?.bytes).toEqual(body(1)); // 1 is now the most recent; 2 the oldest
    await cache.set(key(4), body(4));
    await cache.flush();
    expect(existsSync(cache.pathOf(key(2)))).toBe(false);
    for (const n of [1, 3, 4]) expect(existsSync(cache.pathOf(key(n)))).toBe(true);
    expect(cache.stats).toMatchObject({ entries: 3, bytes: 3 * entry, evicted: 1 });
    cache.used(key(3)); // a hit answered by the memory cache in front
    await cache.set(key(5), body(5));
    await cache.flush();
    expect(existsSync(cache.pathOf(key(1)))).toBe(false);
    for (const n of [3, 4, 5]) expect(existsSync(cache.pathOf(key(n)))).toBe(true);
  });

  test("an image larger than the whole bound is not stored", async () => {
    const cache = open(500);
    await cache.set(key(6), body(6));
    expect(cache.stats.entries).toBe(0);
    expect(existsSync(cache.pathOf(key(6)))).toBe(false);
  });

  test("last use survives a restart through mtimes; a smaller bound at start-up evicts the oldest", async () => {
    const cache = open();
    for (const n of [1, 2, 3]) await cache.set(key(n), body(n));
    const base = Date.now() / 1000 - 3600;
    // Use order 2, 3, 1 (oldest first), as the mtimes record it.
    utimesSync(cache.pathOf(key(2)), base, base);
    utimesSync(cache.pathOf(key(3)), base + 60, base + 60);
    utimesSync(cache.pathOf(key(1)), base + 120, base + 120);
    const smaller = open(2 * (HEADER_BYTES + 1000));
    await smaller.flush();
    expect(existsSync(smaller.pathOf(key(2)))).toBe(false);
    expect(smaller.has(key(3)) && smaller.has(key(1))).toBe(true);
    // And a hit updates the mtime, so the order is kept for the next restart.
    await smaller.get(key(3));
    await smaller.flush();
    const third = open(HEADER_BYTES + 1000);
    await third.flush();
    expect(third.has(key(3))).toBe(true);
    expect(third.has(key(1))).toBe(false);
  });

  test("start-up removes temp files a crash left behind and ignores foreign files", async () => {
    mkdirSync(join(dir, "ab"), { recursive: true });
    writeFileSync(join(dir, "ab", `${key(0xab)}.img.123.1.tmp`), "half");
    writeFileSync(join(dir, "ab", "README"), "not ours");
    writeFileSync(join(dir, "notes.txt"), "not ours either");
    const cache = open();
    expect(cache.stats.entries).toBe(0);
    expect(existsSync(join(dir, "ab", `${key(0xab)}.img.123.1.tmp`))).toBe(false);
    expect(existsSync(join(dir, "ab", "README"))).toBe(true);
    expect(existsSync(join(dir, "notes.txt"))).toBe(true);
  });
});
