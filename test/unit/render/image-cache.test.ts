/** The fetched-image LRU: bounded by bytes, least recently used out first, TTL on an injected clock. */
import { expect, test } from "bun:test";

import { createByteBoundedCache } from "../../../src/render/images/image-cache.ts";

const cache = (maxBytes: number, ttlMs = 60_000, now = () => 0) => createByteBoundedCache<string>({ maxBytes, ttlMs, now, sizeOf: (v) => v.length });

test("evicts the least recently used entries once the byte budget is exceeded", () => {
  const c = cache(10);
  c.set("a", "aaaa");
  c.set("b", "bbbb");
  expect(c.get("a")).toBe("aaaa"); // a is now the most recent
  c.set("c", "cccc"); // 12 bytes > 10: b goes
  expect([c.get("a"), c.get("b"), c.get("c")]).toEqual(["aaaa", undefined, "cccc"]);
  expect(c.calculatedSize).toBe(8);
});

test("a value larger than the whole budget is not stored and evicts nothing", () => {
  const c = cache(4);
  c.set("a", "aa");
  c.set("huge", "hhhhh");
  expect([c.get("a"), c.get("huge")]).toEqual(["aa", undefined]);
});

test("replacing a key re-counts its size", () => {
  const c = cache(10);
  c.set("a", "aaaaaaaa");
  c.set("a", "a");
  expect([c.size, c.calculatedSize]).toEqual([1, 1]);
});

test("entries expire once past the TTL and free their bytes", () => {
  let now = 1_000;
  const c = cache(100, 500, () => now);
  c.set("a", "aaa");
  now = 1_500;
  expect(c.get("a")).toBe("aaa");
  now = 1_501;
  expect(c.get("a")).toBeUndefined();
  expect([c.size, c.calculatedSize]).toEqual([0, 0]);
});

test("a clock that starts at 0 still expires what was set at 0", () => {
  let now = 0;
  const c = cache(100, 500, () => now);
  c.set("a", "aaa");
  now = 501;
  expect(c.get("a")).toBeUndefined();
});
