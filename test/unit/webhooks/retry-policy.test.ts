import { describe, expect, test } from "bun:test";
import { jitteredMs, MAX_RETRY_AFTER_MS, NOMINAL_RETRY_DELAYS_S, nextRetryDelayMs, parseRetryAfterMs } from "../../../src/webhooks/retry-policy.ts";

const NOW = Date.UTC(2027, 4, 20, 9, 0, 0);
const fixed = (r: number) => () => r;
/** A deterministic source that walks [0, 1) evenly: every part of the band gets sampled. */
const sweep = (n: number) => {
  let i = 0;
  return () => (i++ % n) / n;
};

describe("nominal schedule", () => {
  test("is 1 min, 5 min, 30 min, 2 h, 24 h", () => {
    expect([...NOMINAL_RETRY_DELAYS_S]).toEqual([60, 300, 1800, 7200, 86400]);
  });

  test("a random draw of 0.5 gives exactly the nominal delays (what tests on the test clock inject)", () => {
    const delays = [1, 2, 3, 4, 5].map((failures) => nextRetryDelayMs({ failures, now: NOW, random: fixed(0.5) }));
    expect(delays).toEqual([60_000, 300_000, 1_800_000, 7_200_000, 86_400_000]);
  });

  test("after the 5th retry fails (6 failures) the schedule is used up", () => {
    expect(nextRetryDelayMs({ failures: 6, now: NOW, random: fixed(0.5) })).toBeNull();
    expect(nextRetryDelayMs({ failures: 0, now: NOW, random: fixed(0.5) })).toBeNull();
    expect(nextRetryDelayMs({ failures: 1.5, now: NOW, random: fixed(0.5) })).toBeNull();
  });

  test("a custom schedule is data too", () => {
    expect(nextRetryDelayMs({ failures: 2, now: NOW, random: fixed(0.5), schedule: [1, 2] })).toBe(2_000);
    expect(nextRetryDelayMs({ failures: 3, now: NOW, random: fixed(0.5), schedule: [1, 2] })).toBeNull();
  });
});

describe("jitter", () => {
  test("the extremes of the source are −20 % and (almost) +20 %", () => {
    expect(jitteredMs(1_800_000, fixed(0))).toBe(1_440_000);
    expect(jitteredMs(1_800_000, fixed(0.999999))).toBe(2_159_999);
  });

  test("every delay of every retry stays within ±20 % of its nominal value", () => {
    const random = sweep(97);
    for (const [i, nominalS] of NOMINAL_RETRY_DELAYS_S.entries()) {
      const seen = Array.from({ length: 97 }, () => nextRetryDelayMs({ failures: i + 1, now: NOW, random })!);
      expect(Math.min(...seen)).toBe(nominalS * 800);
      expect(Math.max(...seen)).toBeLessThan(nominalS * 1200);
      expect(Math.max(...seen)).toBeGreaterThan(nominalS * 1190);
    }
  });

  test("spreads deliveries that failed together instead of bunching them", () => {
    const random = sweep(1000);
    const delays = new Set(Array.from({ length: 1000 }, () => nextRetryDelayMs({ failures: 1, now: NOW, random })));
    expect(delays.size).toBeGreaterThan(900);
  });

  test("a source outside [0, 1) cannot leave the band", () => {
    expect(jitteredMs(60_000, fixed(-3))).toBe(48_000);
    expect(jitteredMs(60_000, fixed(7))).toBe(72_000);
  });
});

describe("Retry-After", () => {
  test("delay-seconds longer than the jittered delay wins", () => {
    expect(nextRetryDelayMs({ failures: 1, retryAfter: "600", now: NOW, random: fixed(0.5) })).toBe(600_000);
  });

  test("never makes a retry sooner than the jittered schedule", () => {
    expect(nextRetryDelayMs({ failures: 3, retryAfter: "5", now: NOW, random: fixed(0) })).toBe(1_440_000);
    expect(nextRetryDelayMs({ failures: 3, retryAfter: "0", now: NOW, random: fixed(0.5) })).toBe(1_800_000);
  });

  test("an HTTP date is measured from the failure's clock time", () => {
    const inTwoHours = new Date(NOW + 2 * 3_600_000).toUTCString();
    expect(inTwoHours).toEndWith("GMT");
    expect(nextRetryDelayMs({ failures: 1, retryAfter: inTwoHours, now: NOW, random: fixed(0.5) })).toBe(7_200_000);
  });

  test("is capped at 24 h, so a receiver cannot park a delivery for a week", () => {
    expect(nextRetryDelayMs({ failures: 1, retryAfter: String(7 * 86_400), now: NOW, random: fixed(0.5) })).toBe(MAX_RETRY_AFTER_MS);
    const nextWeek = new Date(NOW + 7 * 86_400_000).toUTCString();
    expect(nextRetryDelayMs({ failures: 2, retryAfter: nextWeek, now: NOW, random: fixed(0.5) })).toBe(MAX_RETRY_AFTER_MS);
  });

  test("the cap never shortens the schedule's own 24 h retry and its jitter", () => {
    expect(nextRetryDelayMs({ failures: 5, retryAfter: "999999", now: NOW, random: fixed(0.999) })).toBe(Math.round(86_400_000 * (1 + 0.2 * (2 * 0.999 - 1))));
  });

  test("does not add retries once the schedule is used up", () => {
    expect(nextRetryDelayMs({ failures: 6, retryAfter: "60", now: NOW, random: fixed(0.5) })).toBeNull();
  });

  test("malformed, negative, fractional and past values are ignored", () => {
    for (const value of ["", "  ", "soon", "-30", "1.5", "12abc", "0x10", "tomorrow", "12", new Date(NOW - 60_000).toUTCString()]) {
      expect({ value, delay: nextRetryDelayMs({ failures: 1, retryAfter: value, now: NOW, random: fixed(0.5) }) }).toEqual({ value, delay: 60_000 });
    }
  });

  test("parseRetryAfterMs reads both forms", () => {
    expect(parseRetryAfterMs("120", NOW)).toBe(120_000);
    expect(parseRetryAfterMs(" 120 ", NOW)).toBe(120_000);
    expect(parseRetryAfterMs("Thu, 20 May 2027 09:30:00 GMT", NOW)).toBe(30 * 60_000);
    expect(parseRetryAfterMs(null, NOW)).toBeUndefined();
    expect(parseRetryAfterMs(undefined, NOW)).toBeUndefined();
    expect(parseRetryAfterMs("0", NOW)).toBeUndefined();
  });
});
