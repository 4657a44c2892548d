/** Calendar arithmetic for quota periods: months and days in UTC. */

const DAY_MS = 86_400_000;

/**
 * Everything derived from one UTC day, for the day asked about last: nearly every call comes from
 * a request asking about today, and building `Date`s and ISO text for it on every request cost
 * about a microsecond of an authenticated one (measured A/B).
 */
interface DayFacts {
  /** [start, end) of the UTC day in epoch ms. */
  start: number;
  end: number;
  day: string;
  period: string;
  periodStart: number;
  nextReset: number;
}

let last: DayFacts = { start: Number.NaN, end: Number.NaN, day: "", period: "", periodStart: Number.NaN, nextReset: Number.NaN };

function factsOf(epochMs: number): DayFacts {
  if (epochMs >= last.start && epochMs < last.end) return last;
  const d = new Date(epochMs);
  const start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  const iso = d.toISOString();
  last = {
    start,
    end: start + DAY_MS,
    day: iso.slice(0, 10),
    period: iso.slice(0, 7),
    periodStart: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1),
    nextReset: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1),
  };
  return last;
}

/** `YYYY-MM` of the UTC month containing `epochMs`. */
export function periodOf(epochMs: number): string {
  return factsOf(epochMs).period;
}

/** `YYYY-MM-DD` of the UTC day containing `epochMs`. */
export function dayOf(epochMs: number): string {
  return factsOf(epochMs).day;
}

/** 00:00:00.000 UTC on the 1st of the month containing `epochMs`. */
export function periodStart(epochMs: number): number {
  return factsOf(epochMs).periodStart;
}

/** 00:00:00.000 UTC on the 1st of the next month: when the quota resets. */
export function nextResetAt(epochMs: number): number {
  return factsOf(epochMs).nextReset;
}

/** The `YYYY-MM` before `period`. */
export function previousPeriod(period: string): string {
  const [year, month] = period.split("-").map(Number) as [number, number];
  return periodOf(Date.UTC(year, month - 2, 1));
}
