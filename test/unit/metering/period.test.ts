import { expect, test } from "bun:test";
import { dayOf, nextResetAt, periodOf, periodStart, previousPeriod } from "../../../src/metering/period.ts";

test("UTC month arithmetic, including year ends and leap days", () => {
  const t = Date.parse("2028-02-29T23:59:59.999Z");
  expect(periodOf(t)).toBe("2028-02");
  expect(dayOf(t)).toBe("2028-02-29");
  expect(new Date(nextResetAt(t)).toISOString()).toBe("2028-03-01T00:00:00.000Z");
  expect(new Date(periodStart(t)).toISOString()).toBe("2028-02-01T00:00:00.000Z");
  expect(new Date(nextResetAt(Date.parse("2026-12-15T12:00:00Z"))).toISOString()).toBe("2027-01-01T00:00:00.000Z");
  expect(periodOf(Date.parse("2027-01-01T00:00:00.000Z"))).toBe("2027-01");
  expect(previousPeriod("2027-01")).toBe("2026-12");
  expect(previousPeriod("2026-07")).toBe("2026-06");
});

test("answers stay right when consecutive calls cross day, month and year boundaries, forwards and back", () => {
  // The module remembers the last day asked about; every answer must match a fresh computation.
  const start = Date.parse("2026-12-30T22:00:00.000Z");
  const times = [
    ...Array.from({ length: 80 }, (_, i) => start + i * 3_600_000 - 1),
    start,
    start - 86_400_000 * 40,
    Date.parse("2027-01-01T00:00:00.000Z") - 1,
    Date.parse("2027-01-01T00:00:00.000Z"),
  ];
  for (const t of times) {
    const iso = new Date(t).toISOString();
    const d = new Date(t);
    expect({ period: periodOf(t), day: dayOf(t), start: periodStart(t), reset: nextResetAt(t) }).toEqual({
      period: iso.slice(0, 7),
      day: iso.slice(0, 10),
      start: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1),
      reset: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1),
    });
  }
});
