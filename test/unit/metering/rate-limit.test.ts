import { expect, test } from "bun:test";
import { TestClock } from "../../../src/clock.ts";
import { SlidingWindowLimiter } from "../../../src/metering/rate-limit.ts";

test("no 1-second window, wherever it starts, admits more than the limit", async () => {
  const clock = new TestClock(1_000_000);
  const limiter = new SlidingWindowLimiter(clock);
  const admittedAt: number[] = [];
  // Requests every 100 ms for 5 s against a limit of 3: a fixed window would admit bursts across boundaries.
  for (let i = 0; i < 50; i++) {
    for (let j = 0; j < 4; j++) if (limiter.check("k", 3).allowed) admittedAt.push(clock.now());
    await clock.advance(0.1);
  }
  for (const start of admittedAt) {
    const inWindow = admittedAt.filter((t) => t >= start && t < start + 1000).length;
    expect(inWindow).toBeLessThanOrEqual(3);
  }
  expect(admittedAt.length).toBeGreaterThanOrEqual(3 * 5 - 3);
});

test("remaining, reset and retry-after numbers", async () => {
  const clock = new TestClock(0);
  const limiter = new SlidingWindowLimiter(clock);
  expect(limiter.check("k", 2)).toEqual({ allowed: true, limit: 2, remaining: 1, resetSeconds: 0 });
  await clock.advance(0.4);
  expect(limiter.check("k", 2)).toEqual({ allowed: true, limit: 2, remaining: 0, resetSeconds: 1 });
  expect(limiter.check("k", 2)).toEqual({ allowed: false, limit: 2, remaining: 0, resetSeconds: 1 });
  await clock.advance(0.6); // the first admission (t=0) leaves the window at t=1000
  expect(limiter.check("k", 2).allowed).toBe(true);
  expect(limiter.check("other", 2).remaining).toBe(1); // keys are independent
});

test("a busy key's log stays exact while expired admissions are dropped in bulk", async () => {
  const clock = new TestClock(0);
  const limiter = new SlidingWindowLimiter(clock);
  // 500 requests every 10 ms against a limit of 2,000: the window fills in 40 ms, then admits
  // only as admissions expire, over enough seconds that the log is compacted many times.
  const admittedAt: number[] = [];
  let firstInWindow = 0;
  const wrong: string[] = [];
  for (let tick = 0; tick < 600; tick++) {
    for (let j = 0; j < 500; j++) {
      const d = limiter.check("busy", 2000);
      if (d.allowed) admittedAt.push(clock.now());
      while (admittedAt[firstInWindow]! <= clock.now() - 1000) firstInWindow++;
      const inWindow = admittedAt.length - firstInWindow;
      if (d.remaining !== 2000 - inWindow) wrong.push(`t=${clock.now()}: remaining ${d.remaining}, expected ${2000 - inWindow}`);
    }
    await clock.advance(0.01);
  }
  expect(wrong.slice(0, 5)).toEqual([]);
  // Exactly one full window each second once saturated: 2,000 in the first second and then one
  // second's worth every second (bursts of 500 as the previous second's bursts expire).
  expect(admittedAt.length).toBe(6 * 2000);
});
