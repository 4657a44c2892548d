/** Repeat offenders (src/render/sandbox/offenders.ts): what a killed render leaves behind, and for how long. */
import { describe, expect, test } from "bun:test";
import { RepeatOffenders } from "../../../src/render/sandbox/offenders.ts";

const MINUTE = 60_000;

describe("RepeatOffenders", () => {
  test("a killed render's address is refused for 10 minutes, then drawn again", () => {
    let now = 1_000_000;
    const offenders = new RepeatOffenders({ now: () => now });
    offenders.record("addr-1", "acc_a");
    expect(offenders.refusedFor("addr-1")).toBe(10 * MINUTE);
    expect(offenders.refusedFor("addr-2")).toBe(0);
    expect(offenders.refusedFor(undefined)).toBe(0);
    now += 10 * MINUTE - 1;
    expect(offenders.refusedFor("addr-1")).toBe(1);
    now += 1;
    expect(offenders.refusedFor("addr-1")).toBe(0);
  });

  test("two kills within 10 minutes hold the account to one process for the 10 minutes after the second", () => {
    let now = 0;
    const offenders = new RepeatOffenders({ now: () => now });
    offenders.record("a", "acc_a");
    expect(offenders.restricted("acc_a")).toBe(false);
    now += 9 * MINUTE;
    offenders.record("b", "acc_a");
    expect(offenders.restricted("acc_a")).toBe(true);
    expect(offenders.restricted("acc_b")).toBe(false);
    now += 10 * MINUTE - 1;
    expect(offenders.restricted("acc_a")).toBe(true);
    now += 1;
    expect(offenders.restricted("acc_a")).toBe(false);
  });

  test("kills more than 10 minutes apart do not hold the account", () => {
    let now = 0;
    const offenders = new RepeatOffenders({ now: () => now });
    offenders.record("a", "acc_a");
    now += 10 * MINUTE;
    offenders.record("b", "acc_a");
    expect(offenders.restricted("acc_a")).toBe(false);
  });

  test("both lists are bounded: the oldest entries go first", () => {
    const offenders = new RepeatOffenders({ now: () => 0, maxEntries: 3 });
    for (const address of ["a", "b", "c", "d"]) offenders.record(address, undefined);
    expect(offenders.refusedFor("a")).toBe(0);
    expect(offenders.refusedFor("d")).toBeGreaterThan(0);
  });
});
