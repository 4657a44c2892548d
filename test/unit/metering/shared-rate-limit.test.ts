import { describe, expect, test } from "bun:test";
import type { Clock } from "../../../src/clock.ts";
import { type RateDecision, SlidingWindowLimiter } from "../../../src/metering/rate-limit.ts";
import { SharedWindowLimiter } from "../../../src/metering/shared-rate-limit.ts";
import type { HammerJob } from "../../support/shared-limiter-worker.ts";

/** A clock the test sets directly (integer ms, possibly far from the real time). */
function manualClock(start: number): Clock & { t: number } {
  const clock = { t: start, now: () => clock.t, isTestClock: true };
  return clock;
}

/** Small seeded PRNG (mulberry32), so a failing sequence can be replayed from its seed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

describe("SharedWindowLimiter", () => {
  test("takes exactly the sliding log's decisions (random sequences)", () => {
    const keys = ["a", "b", "c", "d", "big"];
    // slots equal to the number of keys forces collisions, wrap-around and deletions mid-chain.
    for (const slots of [keys.length, 4096]) {
      for (let seed = 1; seed <= 10; seed++) {
        const next = random(seed * 7919 + slots);
        const clock = manualClock(1_700_000_000_000 + seed);
        const shared = new SharedWindowLimiter(SharedWindowLimiter.create({ slots }), clock);
        const reference = new SlidingWindowLimiter(clock);
        const mismatches: string[] = [];
        const compare = (key: string, limit: number) => {
          const got = shared.check(key, limit);
          const want = reference.check(key, limit);
          if (!Bun.deepEquals(got, want)) {
            const at = `seed ${seed}, slots ${slots}, t=${clock.t} ${key}/${limit}`;
            mismatches.push(`${at}: ${JSON.stringify(got)} ≠ ${JSON.stringify(want)}`);
          }
        };
        for (let step = 0; step < 2000 && mismatches.length === 0; step++) {
          const roll = next();
          // Mostly small steps; sometimes exactly a window (the boundary), sometimes past it.
          if (roll < 0.01) clock.t += 1001 + Math.floor(next() * 3000);
          else if (roll < 0.03) clock.t += [999, 1000, 1001][Math.floor(next() * 3)]!;
          else clock.t += Math.floor(next() * 401);
          const calls = 1 + Math.floor(next() * 4);
          for (let i = 0; i < calls; i++) {
            const key = keys[Math.floor(next() * (keys.length - 1))]!;
            compare(key, 1 + Math.floor(next() * 20));
          }
          // The large-limit key: once in a few seeds (for time), bursts close enough together to
          // reach its limit, so its refusals are compared too.
          if (seed <= 2 && step === 300 * seed) {
            for (let burst = 0; burst < 4; burst++) {
              for (let i = 0; i < 30_000 && mismatches.length === 0; i++) compare("big", 100_000);
              clock.t += Math.floor(next() * 300);
            }
          }
        }
        expect(mismatches.slice(0, 3)).toEqual([]);
      }
    }
  });

  test("the window is (now - 1000, now]: refused at 999 ms, admitted again at 1000 ms", () => {
    const clock = manualClock(0);
    const shared = new SharedWindowLimiter(SharedWindowLimiter.create({ slots: 8 }), clock);
    const reference = new SlidingWindowLimiter(clock);
    const both = (): RateDecision => {
      const got = shared.check("k", 2);
      expect(got).toEqual(reference.check("k", 2));
      return got;
    };
    expect(both()).toEqual({ allowed: true, limit: 2, remaining: 1, resetSeconds: 0 });
    clock.t = 10;
    expect(both()).toEqual({ allowed: true, limit: 2, remaining: 0, resetSeconds: 1 });
    clock.t = 999;
    expect(both()).toEqual({ allowed: false, limit: 2, remaining: 0, resetSeconds: 1 });
    clock.t = 1000; // the t=0 admission has left the window
    expect(both()).toEqual({ allowed: true, limit: 2, remaining: 0, resetSeconds: 1 });
    expect(both()).toEqual({ allowed: false, limit: 2, remaining: 0, resetSeconds: 1 });
    clock.t = 1010; // and now the t=10 one
    expect(both()).toEqual({ allowed: true, limit: 2, remaining: 0, resetSeconds: 1 });
  });

  test("two limiters on one buffer (as two threads) share each key's count", () => {
    const clock = manualClock(5_000);
    const buffer = SharedWindowLimiter.create({ slots: 16 });
    const first = new SharedWindowLimiter(buffer, clock);
    const second = new SharedWindowLimiter(buffer, clock);
    let admitted = 0;
    for (let i = 0; i < 10; i++) if ((i % 2 === 0 ? first : second).check("k", 5).allowed) admitted++;
    expect(admitted).toBe(5);
    expect(second.check("k", 5)).toEqual({ allowed: false, limit: 5, remaining: 0, resetSeconds: 1 });
    expect(first.check("other", 5).remaining).toBe(4);
  });

  test("worker threads never admit more than the limit in total", async () => {
    const threads = 4;
    const rounds = 25;
    const buffer = SharedWindowLimiter.create({ slots: 64 });
    const sync = new SharedArrayBuffer(8);
    const workerUrl = new URL("../../support/shared-limiter-worker.ts", import.meta.url);
    const workers = Array.from({ length: threads }, () => new Worker(workerUrl));
    const nextMessage = (worker: Worker) =>
      new Promise<any>((resolve) => worker.addEventListener("message", (event) => resolve(event.data), { once: true }));
    try {
      const ready = workers.map(nextMessage);
      const job: HammerJob = { buffer, sync, threads, rounds, now: 1_700_000_000_000, key: "k", limit: 1000, calls: 2000 };
      for (const worker of workers) worker.postMessage(job);
      await Promise.all(ready);
      const results = workers.map(async (worker) => (await nextMessage(worker)).admitted as number[]);
      // Release all threads at once, so their checks overlap; each round is a fresh window.
      Atomics.store(new Int32Array(sync), 0, 1);
      const admitted = await Promise.all(results);
      const perRound = Array.from({ length: rounds }, (_, round) => admitted.reduce((sum, counts) => sum + counts[round]!, 0));
      expect(perRound).toEqual(Array.from({ length: rounds }, () => 1000));
    } finally {
      for (const worker of workers) worker.terminate();
    }
  });

  test("reuses slots of expired keys; with every slot live, new keys fall back and onFull fires once", () => {
    const clock = manualClock(100_000);
    let full = 0;
    const shared = new SharedWindowLimiter(SharedWindowLimiter.create({ slots: 4 }), clock, { onFull: () => full++ });
    const reference = new SlidingWindowLimiter(clock);
    const both = (key: string): RateDecision => {
      const got = shared.check(key, 2);
      expect(got).toEqual(reference.check(key, 2));
      return got;
    };
    for (const key of ["a", "b", "c", "d"]) expect(both(key).remaining).toBe(1);
    clock.t += 1001; // a..d are idle for a whole window: their slots are free again
    for (const key of ["e", "f", "g", "h"]) expect(both(key).remaining).toBe(1);
    expect(full).toBe(0);
    for (const key of ["e", "f", "g", "h"]) expect(both(key)).toEqual({ allowed: true, limit: 2, remaining: 0, resetSeconds: 1 });

    // A fifth live key: counted per thread, with the same decisions, and reported once.
    expect(both("i")).toEqual({ allowed: true, limit: 2, remaining: 1, resetSeconds: 0 });
    expect(both("i")).toEqual({ allowed: true, limit: 2, remaining: 0, resetSeconds: 1 });
    expect(both("i").allowed).toBe(false);
    expect(both("a").remaining).toBe(1);
    expect(full).toBe(1);
    // e..h stay exact in the shared table meanwhile.
    expect(both("e").allowed).toBe(false);

    clock.t += 1000; // everything has expired: "i" gets a shared slot
    expect(both("i")).toEqual({ allowed: true, limit: 2, remaining: 1, resetSeconds: 0 });
    expect(full).toBe(1);
  });

  test("a lock left held by a thread that died is taken over after a second, once, and onStuck is told", () => {
    const buffer = SharedWindowLimiter.create({ slots: 8 });
    const clock = manualClock(1_700_000_000_000);
    let stuck = 0;
    const limiter = new SharedWindowLimiter(buffer, clock, { onStuck: () => stuck++ });
    // The lock word (the header's first Int32) as a holder killed mid-check leaves it.
    Atomics.store(new Int32Array(buffer, 0, 1), 0, 1);
    expect(limiter.check("k", 2).allowed).toBe(true);
    expect(stuck).toBe(1);
    // Released by the taker: the next checks take it at once, and count on from the first.
    expect(limiter.check("k", 2).allowed).toBe(true);
    expect(limiter.check("k", 2).allowed).toBe(false);
    expect(stuck).toBe(1);
    expect(Atomics.load(new Int32Array(buffer, 0, 1), 0)).toBe(0);
  });

  test("refuses a buffer it did not make", () => {
    expect(() => new SharedWindowLimiter(new SharedArrayBuffer(64), manualClock(0))).toThrow(TypeError);
    expect(() => SharedWindowLimiter.create({ slots: 0 })).toThrow(RangeError);
  });
});
