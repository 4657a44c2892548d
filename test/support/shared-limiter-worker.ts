/** A worker thread for test/unit/metering/shared-rate-limit.test.ts: hammers one shared limiter key. */
import type { Clock } from "../../src/clock.ts";
import { SharedWindowLimiter } from "../../src/metering/shared-rate-limit.ts";

declare const self: Worker;

export interface HammerJob {
  buffer: SharedArrayBuffer;
  /** Int32 × 2: [0] start flag set by the test, [1] rounds finished, summed over all threads. */
  sync: SharedArrayBuffer;
  threads: number;
  rounds: number;
  /** The frozen clock of round 0; each round is a window later than the one before. */
  now: number;
  key: string;
  limit: number;
  calls: number;
}

self.onmessage = (event: MessageEvent<HammerJob>) => {
  const { buffer, sync, threads, rounds, now, key, limit, calls } = event.data;
  let current = now;
  const clock: Clock = { now: () => current, isTestClock: true };
  // Warm the JIT on a private buffer first, so that the timed part overlaps across threads.
  const warm = new SharedWindowLimiter(SharedWindowLimiter.create({ slots: 4 }), clock);
  for (let i = 0; i < 20_000; i++) warm.check(key, limit);

  const limiter = new SharedWindowLimiter(buffer, clock);
  const flags = new Int32Array(sync);
  self.postMessage({ ready: true });
  // Spin rather than sleep: a woken sleeper starts late, and a race needs all threads at once.
  while (Atomics.load(flags, 0) === 0);
  const admitted: number[] = [];
  for (let round = 0; round < rounds; round++) {
    // Every thread starts a round only once all have finished the one before: spinning starts
    // them together, sleeping after a while lets the others run where cores are few.
    for (let spin = 0; ; spin++) {
      const finished = Atomics.load(flags, 1);
      if (finished >= round * threads) break;
      if (spin > 10_000) Atomics.wait(flags, 1, finished, 1);
    }
    current = now + round * 10_000;
    let count = 0;
    for (let i = 0; i < calls; i++) if (limiter.check(key, limit).allowed) count++;
    admitted.push(count);
    Atomics.add(flags, 1, 1);
    Atomics.notify(flags, 1);
  }
  self.postMessage({ admitted });
};
