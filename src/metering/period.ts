/** Calendar arithmetic for quota periods: months and days in UTC. */

/** `YYYY-MM` of the UTC month containing `epochMs`. */
export function periodOf(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 7);
}

/** `YYYY-MM-DD` of the UTC day containing `epochMs`. */
export function dayOf(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 10);
}

/** 00:00:00.000 UTC on the 1st of the month containing `epochMs`. */
export function periodStart(epochMs: number): number {
  const d = new Date(epochMs);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

/** 00:00:00.000 UTC on the 1st of the next month: when the quota resets. */
export function nextResetAt(epochMs: number): number {
  const d = new Date(epochMs);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

/** The `YYYY-MM` before `period`. */
export function previousPeriod(period: string): string {
  const [year, month] = period.split("-").map(Number) as [number, number];
  return periodOf(Date.UTC(year, month - 2, 1));
}
