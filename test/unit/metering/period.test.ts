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
