/** A worker thread for test/unit/metering/shared-rate-limit.test.ts: hammers one shared limiter key. */
import type { Clock } from "../../src/clock.ts";
import { SharedWindowLimiter } from "../../src/metering/shared-rate-limit.ts";

declare const self: Worker;

export interface HammerJob {
  buffer: SharedArrayBuffer;
  /** Int32 start flag: every worker waits for it so that all of them run at once. */
  start: SharedArrayBuffer;
  now: number;
  key: string;
  limit: number;
  calls: number;
}

self.onmessage = (event: MessageEvent<HammerJob>) => {
  const { buffer, start, now, key, limit, calls } = event.data;
  const clock: Clock = { now: () => now, isTestClock: true };
  const limiter = new SharedWindowLimiter(buffer, clock);
  const flag = new Int32Array(start);
  self.postMessage({ ready: true });
  while (Atomics.load(flag, 0) === 0) Atomics.wait(flag, 0, 0, 50);
  let admitted = 0;
  for (let i = 0; i < calls; i++) if (limiter.check(key, limit).allowed) admitted++;
  self.postMessage({ admitted });
};
